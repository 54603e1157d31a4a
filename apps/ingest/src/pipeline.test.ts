import { decodeWalRecord, encodeWalRecord, type IngestEvent } from '@footfall/schema';
import { describe, expect, it } from 'vitest';
import { MemorySaltStore } from './enrich/visitor-hash.ts';
import { enrichEvent } from './pipeline.ts';

const site = {
  id: 'site1',
  domain: 'example.com',
  timezone: 'Europe/Berlin',
  cookieless: false,
  proxyKey: 'k'.repeat(32),
  cityRecording: false,
};

function enrich(event: Partial<IngestEvent>) {
  const full = { s: 'site1', k: 'pv', u: 'https://example.com/a', i: 'abcdefgh1', ...event } as IngestEvent;
  return enrichEvent(
    {
      site,
      event: full,
      id: full.i ?? 'made-by-gateway',
      page: new URL(full.u),
      address: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
      acceptLanguage: undefined,
      receivedAt: Date.UTC(2026, 10, 22, 12),
    },
    { salts: new MemorySaltStore(), geo: { lookup: () => null } },
  );
}

describe('enrichEvent', () => {
  it('leaves what is absent undefined, never null, so its WAL record is encoded in one step', () => {
    for (const record of [
      enrich({}),
      enrich({ r: 'https://www.google.com/', u: 'https://example.com/?utm_source=x', v: 'visitor01' }),
      enrich({ k: 'ev', n: 'Signup', p: { plan: 'pro' }, w: 390, h: 844 }),
    ]) {
      expect(Object.values(record)).not.toContain(null);
      const stored = decodeWalRecord(encodeWalRecord(record));
      // decoding puts every absent field back as null
      for (const [key, value] of Object.entries(record))
        expect(stored[key as keyof typeof stored]).toEqual(value ?? null);
    }
  });
});
