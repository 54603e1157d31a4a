import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { Engine } from '../engine.ts';
import type { Batch } from '../loader.ts';
import { load, randomEvents } from '../report-cases.ts';
import { ev, ms, onStream } from '../test-fixtures.ts';
import {
  readJourneyCh,
  readLifetimeCh,
  readNowCh,
  readRecentEventsCh,
  readStatusCh,
  readStorageCh,
  readWindowTotalsCh,
} from './live.ts';
import { type ClickHouseHarness, startHarness } from './test-support.ts';

/**
 * The live and per-visitor reads on ClickHouse against DuckDB's on the same data: months of
 * visitors coming back (report-cases.ts, loaded with late events), a cookieless visit carried over
 * midnight (carry.test.ts) and an hour of live traffic with custom events, engagement and vitals
 * events, one that never joined a visit, and one that came before its pageview. Every answer must
 * be equal, at many pinned clocks.
 */

const LIVE = ms('2026-08-20T12:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const P = 'p-yesterday';
const X = 'x-today';

/** carry.test.ts's night: a cookieless visit from 23:50 that the new day's id carries on. */
const hashed = (at: string, visitor: string, fields: Partial<WalEvent> = {}) =>
  ev(at, { visitor, idMode: 'hash', ...fields });
const NIGHT = [
  hashed('2026-03-02T23:50:00Z', P, { path: '/blog' }),
  hashed('2026-03-02T23:55:00Z', P, { path: '/blog/post-1' }),
  hashed('2026-03-03T00:05:00Z', X, { carry: P, path: '/blog/post-2' }),
  hashed('2026-03-03T00:20:00Z', X, { carry: P, path: '/blog/post-3' }),
  hashed('2026-03-03T00:45:00Z', X, { path: '/pricing', country: 'FR' }),
  hashed('2026-03-03T00:46:00Z', X, { kind: 'en', path: '/pricing', engagedMs: 30_000 }),
  hashed('2026-03-03T09:00:00Z', X, { path: '/docs' }),
];

/**
 * Three hours of traffic up to LIVE, on two sites, every event at its own millisecond (the reads
 * take "latest" values, which a tie would leave to chance): visitors who also came two days
 * before, some cookieless, with custom events with properties, engagement and vitals events.
 */
function liveTraffic(): WalEvent[] {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const events: WalEvent[] = [];
  let tick = 0;
  const pick = <T>(list: readonly T[]): T => list[rand(list.length)] as T;
  const at = (t: number) => new Date(t + ++tick).toISOString();
  for (let v = 0; v < 30; v++) {
    const visitor = `live-${v}`;
    const base: Partial<WalEvent> = {
      visitor,
      site: v % 6 === 5 ? 'site2' : 'site1',
      idMode: v % 4 === 3 ? 'hash' : 'cookie',
      country: pick(['DE', 'FR', null]),
      city: pick(['Berlin', null]),
      browser: pick(['Firefox', 'Chrome']),
      channel: pick(['Direct', 'Email', 'Referral'] as const),
    };
    if (v % 3 === 0) events.push(ev(at(LIVE - 2 * DAY + rand(600) * MINUTE), { ...base, path: '/old' }));
    let t = LIVE - (5 + rand(175)) * MINUTE;
    for (let n = 1 + rand(5); n > 0 && t < LIVE; n--) {
      const path = pick(['/', '/pricing', '/docs', '/blog']);
      events.push(ev(at(t), { ...base, path }));
      if (rand(3) === 0)
        events.push(
          ev(at(t + 2000), { ...base, path, kind: 'ev', name: 'Signup', props: { plan: 'pro', seats: n } }),
        );
      if (rand(2) === 0) events.push(ev(at(t + 4000), { ...base, path, kind: 'en', engagedMs: 1000 * n }));
      if (rand(4) === 0) events.push(ev(at(t + 5000), { ...base, path, kind: 'vt', lcp: 1200 + n }));
      t += (1 + rand(14)) * MINUTE;
    }
  }
  // on the windows' edges, inclusive
  events.push(ev(new Date(LIVE - 30 * MINUTE).toISOString(), { visitor: 'edge-30' }));
  events.push(ev(new Date(LIVE - 5 * MINUTE).toISOString(), { visitor: 'edge-5', path: '/edge' }));
  // an engagement event whose pageview never came: it joins no visit
  events.push(ev(at(LIVE - 3 * MINUTE), { visitor: 'orphan', kind: 'en', engagedMs: 500 }));
  return events;
}

let h: ClickHouseHarness;
let client: ClickHouseClient;
let duck: Engine;
let dir: string;
let clock = LIVE;
const historyTimes: number[] = [];

beforeAll(async () => {
  h = await startHarness();
  const db = await h.database();
  client = db.client;
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-live-'));
  duck = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => clock,
  });
  const apply = async (batch: Batch) => {
    await db.loader.apply(batch);
    return duck.applyBatch(batch);
  };
  const history = randomEvents();
  for (const [i, e] of history.entries()) if (i % 60 === 0) historyTimes.push(e.at);
  await load({ applyBatch: apply }, history);
  // the night in two batches, the new day's id first: a replay folds its visit into the day before's
  const night = [2, 4, 0, 5, 3, 1, 6].map((i) => NIGHT[i]!);
  await apply({ records: onStream('b', night.slice(0, 2)) });
  await apply({ records: onStream('b', night.slice(2), 3n) });
  // live traffic in three batches of mixed-up order; an engagement event comes a batch before its
  // pageview, which replays the visitor
  const live = liveTraffic();
  const late = ev(new Date(LIVE - 8 * MINUTE).toISOString(), { visitor: 'late', path: '/late' });
  const early = ev(new Date(LIVE - 7 * MINUTE).toISOString(), { visitor: 'late', kind: 'en', engagedMs: 9 });
  const thirds = [0, 1, 2].map((k) => live.filter((_, i) => i % 3 === k));
  await apply({ records: onStream('c', [...thirds[2]!, early]) });
  await apply({ records: onStream('c', [...thirds[0]!, late], BigInt(thirds[2]!.length + 2)) });
  await apply({ records: onStream('d', thirds[1]!) });
  db.loader.store.close();
}, 180_000);
afterAll(async () => {
  await duck?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Clocks: live, after it, the carried night, nothing at all, and throughout the months of visits. */
const clocks = () => [
  LIVE,
  LIVE - 7 * MINUTE,
  LIVE + 20 * MINUTE,
  LIVE + DAY,
  ms('2026-03-03T00:50:00Z'),
  ms('2026-03-03T09:10:00Z'),
  ms('2025-01-01T00:00:00Z'),
  ...historyTimes.map((t) => t + 3 * MINUTE),
];

describe('ClickHouse live reads', () => {
  it('give DuckDB’s right-now numbers and people at every clock', async () => {
    let people = 0;
    for (const now of clocks()) {
      clock = now;
      for (const site of ['site1', 'site2']) {
        for (const limit of [2, 20]) {
          const expected = await duck.now({ site, limit });
          people += expected.recent.length;
          expect(
            await readNowCh(client, site, now, limit, {}),
            `${site} ${new Date(now).toISOString()}`,
          ).toEqual(expected);
        }
      }
    }
    expect(people).toBeGreaterThan(100);
  }, 120_000);

  it('give DuckDB’s recent events with their visitors and visits at every clock', async () => {
    let events = 0;
    for (const now of clocks()) {
      clock = now;
      for (const site of ['site1', 'site2']) {
        for (const limit of [5, 200]) {
          const expected = await duck.recentEvents({ site, limit });
          events += expected.length;
          expect(
            await readRecentEventsCh(client, site, limit, now, {}),
            `${site} ${new Date(now).toISOString()}`,
          ).toEqual(expected);
        }
      }
    }
    expect(events).toBeGreaterThan(500);
  }, 120_000);

  it('give DuckDB’s journeys: visits newest first, each with its events, the carried one too', async () => {
    const history = Array.from({ length: 120 }, (_, v) => `visitor-${v}`);
    const live = Array.from({ length: 30 }, (_, v) => `live-${v}`);
    const cases = [
      ...[...history, ...live, P, X, 'late', 'orphan', 'edge-5', 'nobody'].map((visitor) => ({
        site: 'site1',
        visitor,
        limit: 50,
      })),
      ...history.filter((_, i) => i % 8 === 0).map((visitor) => ({ site: 'site1', visitor, limit: 2 })),
      ...live.map((visitor) => ({ site: 'site2', visitor, limit: 50 })),
    ];
    let events = 0;
    for (const q of cases) {
      const expected = await duck.journey(q);
      events += expected.visits.reduce((n, v) => n + v.events.length, 0);
      expect(await readJourneyCh(client, q.site, q.visitor, q.limit, {}), JSON.stringify(q)).toEqual(
        expected,
      );
    }
    expect(events).toBeGreaterThan(1000);
    // the carried visit is the day before's id's, with the new day's events in it
    const carried = await readJourneyCh(client, 'site1', P, 50, {});
    expect(carried.visits.map((v) => [v.started, v.pageviews, v.events.length])).toEqual([
      ['2026-03-02T23:50:00.000Z', 5, 6],
    ]);
    expect((await readJourneyCh(client, 'site1', X, 50, {})).visits).toHaveLength(1);
  }, 120_000);

  it('give DuckDB’s status, storage and window totals', async () => {
    for (const site of ['site1', 'site2', 'nobody']) {
      expect(await readStatusCh(client, site, {}), site).toEqual(await duck.status({ site }));
    }
    for (const now of [LIVE, ms('2026-04-01T00:00:00Z'), ms('2026-07-10T10:00:00Z')]) {
      clock = now;
      expect(await readStorageCh(client, now, {})).toEqual(await duck.storage());
    }
    const windows = [
      { from: LIVE - DAY, to: LIVE, buckets: 24 },
      { from: LIVE - 7 * DAY, to: LIVE, buckets: 7 },
      { from: LIVE - 3 * DAY, to: LIVE - 2 * DAY, buckets: 7 },
      { from: ms('2026-03-15T00:00:00Z'), to: ms('2026-04-14T00:00:00Z'), buckets: 30 },
      { from: ms('2026-03-01T10:00:00Z') + 1, to: ms('2026-05-29T10:00:00Z') - 7, buckets: 13 },
      { from: ms('2025-01-01T00:00:00Z'), to: ms('2025-01-02T00:00:00Z'), buckets: 4 },
    ];
    for (const site of ['site1', 'site2']) {
      for (const w of windows) {
        const q = { site, ...w };
        expect(await readWindowTotalsCh(client, q, {}), JSON.stringify(q)).toEqual(
          await duck.windowTotals(q),
        );
      }
    }
  }, 120_000);

  it('give DuckDB’s lifetime counts to the end of a day in two zones', async () => {
    const days = [
      '2026-02-28',
      '2026-03-02',
      '2026-03-03',
      '2026-03-29',
      '2026-04-15',
      '2026-06-30',
      '2026-08-20',
    ];
    for (const timeZone of ['UTC', 'Europe/Berlin']) {
      for (const site of ['site1', 'site2']) {
        for (const day of days) {
          const q = { site, timeZone, day };
          expect(await readLifetimeCh(client, q, {}), JSON.stringify(q)).toEqual(await duck.lifetime(q));
        }
      }
    }
  }, 120_000);
});
