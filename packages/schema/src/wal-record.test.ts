import { describe, expect, it } from 'vitest';
import { decodeWalRecord, encodeWalRecord, type WalCrawl } from './wal-record.ts';

describe('WAL record encoding', () => {
  it('leaves null fields out of the payload and puts them back as null on decode', () => {
    const crawl: WalCrawl = {
      t: 'crawl',
      site: 's1',
      day: '2026-11-22',
      robot: 'GPTBot',
      robotKind: 'ai_training',
      path: '/',
      status: null,
    };
    const payload = encodeWalRecord(crawl);
    expect(new TextDecoder().decode(payload)).not.toContain('status');
    expect(decodeWalRecord(payload)).toEqual(crawl);
  });

  it('refuses a payload that is not a record', () => {
    expect(() => decodeWalRecord(new TextEncoder().encode('{"t":"event"}'))).toThrow();
    expect(() => decodeWalRecord(new TextEncoder().encode('not json'))).toThrow();
  });
});
