import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createLogger } from '@footfall/http';
import { openAnalytics } from '@footfall/query';
import { LIMITS, type WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../durability/plan.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { visitorKey } from '../support/visitor-key.ts';

/**
 * A 202 is a promise: every body the gateway accepts must come out of the tailer as the same
 * event. Generated bodies, valid and borderline (numbers at the edges of what JSON and the schema
 * allow, unicode of every kind, every optional field), go through the real gateway (schema,
 * enrichment, WAL encoder and fsync), then the real WAL reader and decoder, the real tailer and
 * loader into a DuckDB file, and are read back row by row.
 */
const BODIES = 600;
const random = seeded(20261123);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
const chance = (p: number) => random() < p;

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1 + 0.2,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  5e-324,
  123.456e-10,
];
const TEXTS = [
  'plain',
  'Zürich 🚀 café',
  'e\u0301 combining',
  'עברית RTL',
  '中文 日本語',
  'quote " backslash \\ slash /',
  'line\nbreak\ttab',
  '\u2028\u2029',
  'nul \u0000 inside',
  '\ud83d cut emoji',
  'lone \udc00 low',
  '<script>alert(1)</script>',
  '=SUM(A1)',
  ' ',
];
const sized = (n: number) => 'x'.repeat(n);
const textOf = (max: number) =>
  chance(0.1) ? sized(max) : (pick(TEXTS) + (chance(0.3) ? pick(TEXTS) : '')).slice(0, max);

function props(): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  const n = chance(0.1) ? LIMITS.propCount : 1 + Math.floor(random() * 5);
  for (let i = 0; i < n; i++) {
    const key = chance(0.2) ? `${pick(TEXTS).slice(0, LIMITS.propKeyChars - 3) || 'k'}${i}` : `k${i}`;
    out[key] = chance(0.4) ? pick(NUMBERS) : chance(0.5) ? textOf(LIMITS.propValueChars) : chance(0.5);
  }
  return out;
}

const PATHS = [
  '/',
  '/pricing/',
  '/caf%C3%A9',
  '/a%2Fb',
  '/%F0%9F%9A%80',
  '/emoji/🚀',
  '/a b',
  '/%00x',
  `/${sized(1500)}`,
];

let seq = 0;
/** A body the schema accepts, with a random choice of every optional field. */
function body(site: string): Record<string, unknown> {
  const k = pick(['pv', 'ev', 'en', 'vt'] as const);
  const b: Record<string, unknown> = {
    s: site,
    k,
    u: `https://${pick(['example.com', 'www.example.com', 'shop.example.com'])}${pick(PATHS)}${chance(0.3) ? '?utm_source=news&utm_medium=email&utm_campaign=Spring%20%F0%9F%8C%B8' : ''}`,
    i: `rt${String(++seq).padStart(6, '0')}${chance(0.2) ? sized(LIMITS.eventIdMaxChars - 8) : ''}`,
  };
  if (k === 'ev' || chance(0.1)) b.n = textOf(LIMITS.eventNameChars) || 'x';
  if (chance(0.5))
    b.r = pick([
      '',
      'https://news.ycombinator.com/item?id=1',
      'https://www.google.com/',
      'android-app://com.google.android.gm/',
    ]);
  if (chance(0.4)) b.p = props();
  if (chance(0.3)) b.e = pick([0, 1, 24 * 60 * 60 * 1000]);
  if (chance(0.3)) b.d = pick([0, 50, 100]);
  if (chance(0.6)) b.v = chance(0.5) ? 'visitor-cookie-01' : sized(64);
  if (chance(0.3)) b.w = pick([0, 390, 100_000]);
  if (chance(0.3)) b.h = pick([0, 844, 100_000]);
  if (k === 'vt' || chance(0.1)) {
    b.m = {
      lcp: pick([0, 1234.5, 600_000]),
      cls: pick([0, 0.05, 100]),
      ...(chance(0.5) ? { inp: 5e-324, ttfb: 0.1 + 0.2, fcp: 1 } : {}),
    };
  }
  if (chance(0.3)) b.a = pick([0, 1, 24 * 60 * 60 * 1000]);
  return b;
}

/** What JSON and UTF-8 storage make of a value: -0 is 0, a lone surrogate U+FFFD. */
const settled = (value: unknown): unknown => {
  if (typeof value === 'string') return value.toWellFormed();
  if (Object.is(value, -0)) return 0;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), settled(v)]));
  return value;
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on' });
});
afterAll(() => gw.stop());

describe('every body answered 202 comes out of the tailer as the same event', () => {
  it('through the gateway, the WAL, the tailer and the loader, field by field', async () => {
    const sent = new Map<string, Record<string, unknown>>();
    for (let n = 0; n < BODIES; n++) {
      const b = body(gw.site.id);
      const res = await gw.post('/api/e', b);
      if (res.status === 202) sent.set(b.i as string, b);
      else
        throw new Error(`a valid body was refused: ${res.status} ${await res.text()} ${JSON.stringify(b)}`);
    }
    expect(sent.size).toBe(BODIES);

    // the WAL holds the gateway's promise: each body, enriched
    const wal = new Map<string, WalEvent>();
    for (const r of await gw.records()) if (r.t === 'event') wal.set(r.id, r);
    for (const [id, b] of sent) {
      const e = wal.get(id);
      expect(e, id).toBeDefined();
      expect(e!.kind).toBe(b.k);
      expect(e!.name ?? undefined).toEqual(settled(b.n));
      expect(e!.props ?? undefined).toEqual(settled(b.p));
      expect(e!.engagedMs ?? undefined).toBe(b.e);
      expect(e!.scroll ?? undefined).toBe(b.d);
      expect(e!.screenW ?? undefined).toBe(b.w);
      expect(e!.screenH ?? undefined).toBe(b.h);
      const m = b.m as Record<string, number> | undefined;
      for (const metric of ['lcp', 'fcp', 'inp', 'ttfb', 'cls'] as const)
        expect(e![metric] ?? undefined).toBe(m?.[metric]);
    }

    // the tailer loads the WAL into a DuckDB file, as the query service does
    const dbPath = join(gw.dataDir, 'analytics.duckdb');
    const analytics = await openAnalytics({
      walRoot: join(gw.dataDir, 'wal'),
      engine: { path: dbPath, threads: 2, memoryLimit: '256MB' },
      logger: createLogger({ level: 'silent', name: 'round-trip' }),
    });
    await analytics.tailer.init();
    await analytics.tailer.drain();
    expect(analytics.tailer.unreadable).toBe(0);
    expect(analytics.tailer.stuck).toEqual([]);
    await analytics.tailer.stop();
    await analytics.engine.close();

    const instance = await DuckDBInstance.create(dbPath);
    const connection = await instance.connect();
    const rows = (
      await connection.runAndReadAll(
        `SELECT id, epoch_ms(ts)::DOUBLE AS at, kind, name, props, host, path, visitor_key::VARCHAR AS visitor_key, id_mode, referrer_host,
           referrer_path, channel, utm_source, utm_medium, utm_campaign, browser, os, device, language,
           screen_w, screen_h, engaged_ms::DOUBLE AS engaged_ms, scroll, lcp, fcp, inp, ttfb, cls
         FROM events`,
      )
    ).getRowObjectsJS();
    connection.closeSync();
    instance.closeSync();
    expect(rows).toHaveLength(sent.size);
    for (const row of rows) {
      const e = wal.get(String(row.id))!;
      const stored = {
        at: row.at,
        kind: row.kind,
        name: row.name,
        props: row.props === null ? null : JSON.parse(String(row.props)),
        host: row.host,
        path: row.path,
        // events keep the visitor id's 64-bit key (analytics schema 7); the visit keeps the id
        visitor: row.visitor_key,
        idMode: row.id_mode,
        referrerHost: row.referrer_host,
        referrerPath: row.referrer_path,
        channel: row.channel,
        utmSource: row.utm_source,
        utmMedium: row.utm_medium,
        utmCampaign: row.utm_campaign,
        browser: row.browser,
        os: row.os,
        device: row.device,
        language: row.language,
        screenW: row.screen_w,
        screenH: row.screen_h,
        engagedMs: row.engaged_ms,
        scroll: row.scroll,
        lcp: row.lcp,
        fcp: row.fcp,
        inp: row.inp,
        ttfb: row.ttfb,
        cls: row.cls,
      };
      const promised = Object.fromEntries(
        Object.keys(stored).map((k) => [k, (e as Record<string, unknown>)[k] ?? null]),
      );
      promised.at = Math.round(e.at);
      promised.visitor = visitorKey(e.visitor);
      expect(stored, String(row.id)).toEqual(promised);
    }
  }, 120_000);
});
