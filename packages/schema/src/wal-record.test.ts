import { describe, expect, it } from 'vitest';
import { decodeWalRecord, encodeWalRecord, type WalCrawl, type WalEvent } from './wal-record.ts';

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

  it('round-trips an event whose strings need escaping, with props, numbers and nulls', () => {
    const event: WalEvent = {
      t: 'event',
      id: 'e1',
      site: 's1',
      at: 1_795_318_524_316,
      kind: 'ev',
      name: 'Quote "this" \\ and \n new line',
      props: { plan: 'Zürich 🚀', seats: 3, trial: false, '"odd" key': '\u2028' },
      host: 'example.com',
      path: '/ünïcode/😀?',
      visitor: 'v1',
      idMode: 'cookie',
      carry: null,
      referrerHost: null,
      referrerPath: null,
      channel: 'Direct',
      assistant: null,
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
      utmTerm: null,
      utmContent: null,
      clickId: null,
      browser: 'Firefox',
      browserVersion: '128',
      os: null,
      osVersion: null,
      device: 'desktop',
      language: 'de',
      country: null,
      region: null,
      city: null,
      screenW: 1920,
      screenH: null,
      engagedMs: 0,
      scroll: 0.5,
      lcp: null,
      fcp: null,
      inp: null,
      ttfb: null,
      cls: 0.01,
    };
    const payload = encodeWalRecord(event);
    const json = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    expect(Object.values(json)).not.toContain(null);
    expect(json['engagedMs']).toBe(0);
    expect(decodeWalRecord(payload)).toEqual(event);
  });

  it('writes the same bytes for a record built with undefined as for one built with null', () => {
    const base = {
      t: 'crawl',
      site: 's1',
      day: '2026-11-22',
      robot: 'GPTBot',
      robotKind: 'ai_training',
      path: '/":null,"x":1',
    } as const;
    const withNull = encodeWalRecord({ ...base, status: null });
    expect(encodeWalRecord({ ...base, status: undefined })).toEqual(withNull);
    expect(encodeWalRecord(base)).toEqual(withNull);
    // a string value that looks like a null field is kept as it is
    expect(decodeWalRecord(withNull)).toEqual({ ...base, status: null });
  });

  it('refuses a payload that is not a record', () => {
    expect(() => decodeWalRecord(new TextEncoder().encode('{"t":"event"}'))).toThrow();
    expect(() => decodeWalRecord(new TextEncoder().encode('not json'))).toThrow();
  });
});
