import { describe, expect, it } from 'vitest';
import {
  decodeWalRecord,
  encodeWalRecord,
  readWalRecord,
  type WalCrawl,
  type WalEvent,
  WalRecordError,
} from './wal-record.ts';

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

describe("readWalRecord (the tailer's decode)", () => {
  const event = {
    t: 'event',
    id: 'e1',
    site: 's1',
    at: 1_795_318_524_316,
    kind: 'pv',
    props: { plan: 'pro', seats: 3, trial: false },
    host: 'example.com',
    path: '/a',
    visitor: 'v1',
    idMode: 'hash',
    carry: 'v0',
    channel: 'Referral',
    referrerHost: 'news.example',
    device: 'mobile',
    country: 'DE',
    screenW: 390,
    cls: 0.1,
  };
  const crawl = {
    t: 'crawl',
    site: 's1',
    day: '2026-11-22',
    robot: 'GPTBot',
    robotKind: 'search',
    path: '/',
  };
  const bot = { t: 'bot', site: 's1', day: '2026-11-22', kind: 'headless' };
  /** Values that break some field: wrong types, too long, not one of the allowed. */
  const BAD = [null, 1, 'x'.repeat(3000), true, {}, [], 'nope', -1.5, '2026-1-2', { a: { b: 1 } }];

  it('accepts and refuses what the schema does, field by field (an array of props: refused)', () => {
    let refused = 0;
    for (const base of [event, crawl, bot] as Record<string, unknown>[]) {
      const variants: Record<string, unknown>[] = [base];
      for (const key of [...Object.keys(base), 'name', 'status', 'unknownField']) {
        for (const value of BAD) variants.push({ ...base, [key]: value });
        const { [key]: _, ...without } = base;
        variants.push(without);
      }
      for (const variant of variants) {
        const json = JSON.stringify(variant);
        let schema: unknown;
        try {
          schema = decodeWalRecord(new TextEncoder().encode(json));
        } catch {
          schema = undefined;
        }
        // valibot takes an array for a record (and makes it an object); the gateway never writes one
        if (schema === undefined || Array.isArray(variant.props)) {
          refused++;
          expect(() => readWalRecord(json), json).toThrow(WalRecordError);
        } else {
          // the same record, with the schema's nulls for what is absent
          const read = readWalRecord(json) as unknown as Record<string, unknown>;
          for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
            expect(read[key] ?? null, `${json}: ${key}`).toEqual(value);
          }
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
  });

  it('names the field that is wrong', () => {
    expect(() => readWalRecord(JSON.stringify({ ...event, kind: 'xx' }))).toThrow('kind: invalid value');
    expect(() => readWalRecord(JSON.stringify({ ...event, extra: 1 }))).toThrow(
      'extra: not a field of the record',
    );
    expect(() => readWalRecord('not json')).toThrow('(record): not JSON');
  });
});
