import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { WalEvent, WalRecord } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTraffic } from '../../../../../bench/demo-traffic.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { BatchRecord } from '../loader.ts';
import { botDrop, crawl, ev } from '../test-fixtures.ts';
import {
  type ClickHouseHarness,
  chTables,
  duckTablesAt,
  numbered,
  startHarness,
  TABLE_QUERIES,
} from './test-support.ts';

/**
 * The ClickHouse loader against the DuckDB one: the same WAL batches loaded into both must leave
 * the same visits, events, counters and positions (ClickHouse's read collapsed, FINAL), and a
 * batch stopped at any step and loaded again after a restart must leave what an uninterrupted
 * load leaves.
 */

let h: ClickHouseHarness;
let dir: string;
let ducks = 0;
beforeAll(async () => {
  h = await startHarness();
  dir = h.dir;
}, 60_000);
afterAll(async () => h?.close());

/** Loads the batches into DuckDB (a file, closed after) and reads each table back. */
async function duckTables(batches: BatchRecord[][]): Promise<Record<string, unknown[]>> {
  const path = join(dir, `duck-${++ducks}.duckdb`);
  const engine = await createDuckDbEngine({ path, threads: 1, memoryLimit: '256MB' });
  for (const records of batches) await engine.applyBatch({ records });
  await engine.close();
  return duckTablesAt(path);
}

/** Every state either collapsed with its cancel or standing alone: no -1 left, no visit twice (a visit replaced sums to 0). */
async function collapsedCleanly(client: ClickHouseClient): Promise<void> {
  const q = async (query: string) =>
    (await (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>())[0];
  expect(await q('SELECT count() AS n FROM sessions FINAL WHERE sign < 0')).toEqual({ n: '0' });
  expect(await q('SELECT count() AS n FROM events FINAL WHERE sign < 0')).toEqual({ n: '0' });
  const sums = await q(
    'SELECT countIf(s NOT IN (0, 1)) AS n FROM (SELECT sum(sign) AS s FROM sessions GROUP BY site, visitor_key, started_at)',
  );
  expect(sums).toEqual({ n: '0' });
}

async function expectSame(batches: WalRecord[][]): Promise<void> {
  const numberedBatches = numbered(batches);
  const expected = await duckTables(numberedBatches);
  const { client, loader } = await h.database();
  for (const records of numberedBatches) await loader.apply({ records });
  const actual = await chTables(client);
  for (const name of Object.keys(TABLE_QUERIES)) expect(actual[name], name).toEqual(expected[name]);
  await collapsedCleanly(client);
}

const P = 'p-yesterday';
const X = 'x-today';
const hashed = (at: string, visitor: string, fields: Partial<WalEvent> = {}): WalEvent =>
  ev(at, { visitor, idMode: 'hash', ...fields });

describe('the ClickHouse loader', () => {
  it('stores what DuckDB stores: visits going on across batches, new visits, engagement, counters', async () => {
    await expectSame([
      [
        ev('2026-03-02T10:00:00Z', { path: '/a', channel: 'Organic Search', referrerHost: 'google.com' }),
        ev('2026-03-02T10:01:00Z', { path: '/b', visitor: 'v2', country: 'DE', screenW: 1280.4 }),
        crawl(),
        botDrop(),
      ],
      [
        ev('2026-03-02T10:05:00Z', { path: '/c' }),
        ev('2026-03-02T10:06:00Z', { kind: 'en', path: '/c', engagedMs: 12_000.5, scroll: 0.4 }),
        ev('2026-03-02T10:07:00Z', { kind: 'ev', name: 'signup', path: '/c', props: { plan: 'pro', n: 2 } }),
        crawl({ robot: 'ClaudeBot', status: 404 }),
        crawl(),
      ],
      // exactly 30 minutes continues, more starts a new visit; a second site
      [ev('2026-03-02T10:37:00Z', { path: '/a' }), ev('2026-03-02T11:30:00Z', { path: '/d' })],
      [ev('2026-03-02T12:00:00Z', { site: 'site2', path: '/x' }), botDrop({ kind: 'headless' })],
      // a new month
      [
        ev('2026-04-01T09:00:00Z', { path: '/april' }),
        ev('2026-04-01T09:00:00Z', { path: '/april', visitor: 'v3' }),
      ],
    ]);
  });

  it('stores what DuckDB stores when events come late, out of order and again', async () => {
    const original = ev('2026-03-02T10:10:00Z', { path: '/retried', visitor: 'v9' });
    await expectSame([
      [ev('2026-03-02T10:00:00Z', { path: '/a' }), ev('2026-03-02T11:00:00Z', { path: '/c' }), original],
      // a late event fills the gap: the two visits become one
      [ev('2026-03-02T10:30:00Z', { path: '/b' })],
      // an event before the visit's start: the start moves, the entry page and channel change
      [ev('2026-03-02T09:55:00Z', { path: '/early', channel: 'Referral', referrerHost: 'news.example' })],
      // a tracker's retry a batch later, and an engagement event before its pageview
      [
        { ...original, at: original.at + 1_500 },
        ev('2026-03-02T13:00:10Z', { visitor: 'v8', kind: 'en', engagedMs: 5_000 }),
      ],
      [ev('2026-03-02T13:00:00Z', { visitor: 'v8', path: '/late-pv' })],
      // a late event far from every visit: a visit of its own
      [ev('2026-03-01T08:00:00Z', { path: '/yesterday' })],
    ]);
  });

  it('stores what DuckDB stores for a cookieless visit carried over midnight, in any order', async () => {
    const night = [
      hashed('2026-03-02T23:50:00Z', P, { path: '/blog' }),
      hashed('2026-03-02T23:55:00Z', P, { path: '/blog/post-1' }),
      hashed('2026-03-03T00:05:00Z', X, { carry: P, path: '/blog/post-2' }),
      hashed('2026-03-03T00:20:00Z', X, { carry: P, path: '/blog/post-3' }),
      hashed('2026-03-03T00:45:00Z', X, { path: '/pricing' }),
      hashed('2026-03-03T00:46:00Z', X, { kind: 'en', path: '/pricing', engagedMs: 30_000 }),
    ];
    for (const order of [
      [0, 1, 2, 3, 4, 5],
      [5, 4, 3, 2, 1, 0],
      [2, 4, 0, 5, 3, 1],
    ]) {
      await expectSame(order.map((i) => [night[i] as WalEvent]));
    }
  });

  it('stores what DuckDB stores for demo traffic in batches, some events late and some sent twice', async () => {
    const events: WalEvent[] = [];
    for (const chunk of demoTraffic({
      events: 4_000,
      siteId: 'site1',
      host: 'example.com',
      timeZone: 'Europe/Berlin',
      endMs: Date.parse('2026-03-10T00:00:00Z'),
      days: 5,
      seed: 7,
    })) {
      events.push(...chunk);
    }
    // every 37th event arrives three batches late, every 53rd is sent again a batch later
    const batches: WalRecord[][] = [];
    const size = 400;
    for (let i = 0; i < events.length; i += size) batches.push([]);
    events.forEach((e, i) => {
      const b = Math.floor(i / size);
      batches[Math.min(batches.length - 1, i % 37 === 0 ? b + 3 : b)]!.push(e);
      if (i % 53 === 0) batches[Math.min(batches.length - 1, b + 1)]!.push({ ...e, at: e.at + 900 });
    });
    await expectSame(batches);
  }, 120_000);

  it('leaves what an uninterrupted load leaves when a batch stops at any step and is loaded again', async () => {
    const batches = numbered([
      [ev('2026-03-02T10:00:00Z', { path: '/a' }), ev('2026-03-02T10:01:00Z', { visitor: 'v2' }), crawl()],
      [
        ev('2026-03-02T10:05:00Z', { path: '/b' }),
        ev('2026-03-02T09:58:00Z', { visitor: 'v2', path: '/late' }),
        crawl(),
      ],
      [ev('2026-03-02T10:20:00Z', { path: '/c' }), botDrop()],
    ]);
    const expected = await duckTables(batches);
    const steps = [
      'spooled',
      'stored',
      'sent:000-events.jsonl',
      'sent:001-sessions.jsonl',
      'sent:003-stream_positions.jsonl',
      'committed',
    ];
    for (const stopAt of steps) {
      let armed = false;
      const { client, reopen } = await h.database();
      const crashing = await reopen((s) => {
        if (armed && s === stopAt) {
          armed = false;
          throw new Error(`stopped at ${s}`);
        }
      });
      await crashing.apply({ records: batches[0]! });
      armed = true;
      // the second batch stops at the step, as a crash would stop it
      await expect(crashing.apply({ records: batches[1]! })).rejects.toThrow(`stopped at ${stopAt}`);
      crashing.store.close();
      const loader = await reopen();
      // the tailer reads the WAL again from the stored positions
      for (const records of batches.slice(1)) await loader.apply({ records });
      const actual = await chTables(client);
      for (const name of Object.keys(TABLE_QUERIES))
        expect(actual[name], `${stopAt}: ${name}`).toEqual(expected[name]);
      await collapsedCleanly(client);
      loader.store.close();
    }
  }, 120_000);
});
