import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WalEvent, WalRecord } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTraffic } from '../../../../../bench/demo-traffic.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { BatchRecord } from '../loader.ts';
import { botDrop, crawl, ev } from '../test-fixtures.ts';
import { clickhouseClient } from './connection.ts';
import { CopyError, copyToClickHouse } from './copy.ts';
import { createClickHouseEngine } from './engine.ts';
import {
  type ClickHouseHarness,
  chTables,
  duckTablesAt,
  numbered,
  startHarness,
  TABLE_QUERIES,
} from './test-support.ts';

/**
 * `footfall engine copy --to clickhouse` (copy.ts): a DuckDB installation copied into ClickHouse,
 * cut short and resumed, then both engines load the same later batches (visits going on across
 * the copy, late events, a cookieless carry over midnight): every table must be equal.
 */

let h: ClickHouseHarness;
let databases = 0;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => h?.close());

/** Three months of demo traffic ending at the copy, and then what comes after it, in batches. */
function traffic(): { before: BatchRecord[][]; after: BatchRecord[][]; months: number } {
  const events: WalRecord[] = [];
  for (const chunk of demoTraffic({
    events: 3_000,
    siteId: 'site1',
    host: 'example.com',
    timeZone: 'Europe/Berlin',
    endMs: Date.parse('2026-03-02T10:20:00Z'),
    days: 70,
    seed: 11,
  })) {
    events.push(...chunk);
  }
  const batches: WalRecord[][] = [];
  for (let i = 0; i < events.length; i += 500) batches.push(events.slice(i, i + 500));
  batches.push([crawl(), crawl({ robot: 'ClaudeBot', status: 404 }), botDrop()]);
  // cookieless, over midnight: yesterday's hash, then today's carrying it
  const hashed = (at: string, visitor: string, fields: Partial<WalEvent> = {}): WalEvent =>
    ev(at, { visitor, idMode: 'hash', ...fields });
  batches.push([hashed('2026-03-02T23:50:00Z', 'p-night', { path: '/blog' })]);
  const cut = batches.length;
  const later: WalRecord[][] = [
    // visits open at the copy go on; a late event joins a copied visit; a new visit
    [
      ev('2026-03-02T10:25:00Z', { path: '/after-copy', visitor: 'v1' }),
      hashed('2026-03-03T00:10:00Z', 'x-day', { carry: 'p-night', path: '/blog/2' }),
      crawl(),
    ],
    [
      ev('2026-03-02T09:59:00Z', { path: '/late', visitor: 'v1' }),
      ev('2026-03-04T08:00:00Z', { path: '/new' }),
    ],
  ];
  // the last demo visitors go on too
  const lastVisitors = events
    .slice(-20)
    .filter((e): e is WalEvent => 'visitor' in e && e.kind === 'pv')
    .slice(0, 5);
  later.push(lastVisitors.map((e) => ({ ...e, id: `${e.id}-more`, at: e.at + 60_000, path: '/more' })));
  const all = numbered([...batches, ...later]);
  const months = new Set(
    events.flatMap((e) => (e.t === 'event' ? [new Date(e.at).toISOString().slice(0, 7)] : [])),
  ).size;
  return { before: all.slice(0, cut), after: all.slice(cut), months };
}

async function setup() {
  const root = join(h.dir, `copy-${++databases}`);
  mkdirSync(root, { recursive: true });
  const duckdbPath = join(root, 'analytics.duckdb');
  const options = {
    duckdbPath,
    clickhouseDir: join(root, 'clickhouse'),
    target: { url: h.server.url, database: `ff_copy${process.pid}_${databases}` },
    threads: 1,
    memoryLimit: '256MB',
  };
  return { root, duckdbPath, options };
}

describe('copying a DuckDB installation into ClickHouse', () => {
  it('resumes a copy cut short, then loads on as DuckDB does', async () => {
    const { before, after, months: monthsOfTraffic } = traffic();
    const { duckdbPath, options } = await setup();
    const duck = await createDuckDbEngine({ path: duckdbPath, threads: 1, memoryLimit: '256MB' });
    for (const records of before) await duck.applyBatch({ records });
    await duck.close();

    // cut short after the second month of events
    let months = 0;
    await expect(
      copyToClickHouse({
        ...options,
        afterMonth: (table) => {
          if (table === 'events' && ++months === 2) throw new Error('stopped here');
        },
      }),
    ).rejects.toThrow('stopped here');
    // the engine will not open on half a copy
    await expect(
      createClickHouseEngine({ target: options.target, dir: options.clickhouseDir }),
    ).rejects.toThrow(/copy from DuckDB .* unfinished/);
    const steps = new Set<string>();
    const summary = await copyToClickHouse({ ...options, progress: (p) => steps.add(p.step) });
    expect(summary.copied).toBe(true);
    expect(steps).toEqual(new Set(['events', 'sessions']));
    expect(summary.counts.events).toBeGreaterThan(2_500);
    expect(summary.counts.crawls).toBe(2);
    expect(summary.counts.streams).toBe(1);
    // the two months of events copied before the cut are not copied again (events and visits
    // fall in the same months)
    expect(monthsOfTraffic).toBeGreaterThanOrEqual(3);
    expect(summary.months).toBe(2 * monthsOfTraffic - 2);
    // again: nothing to do
    expect((await copyToClickHouse(options)).copied).toBe(false);

    // both engines load what comes after
    const ch = await createClickHouseEngine({ target: options.target, dir: options.clickhouseDir });
    const duckAgain = await createDuckDbEngine({ path: duckdbPath, threads: 1, memoryLimit: '256MB' });
    for (const records of after) {
      await ch.applyBatch({ records });
      await duckAgain.applyBatch({ records });
    }
    await duckAgain.close();
    await ch.close();
    const client = clickhouseClient(options.target);
    const actual = await chTables(client);
    await client.close();
    const expected = await duckTablesAt(duckdbPath);
    for (const name of Object.keys(TABLE_QUERIES)) expect(actual[name], name).toEqual(expected[name]);
  }, 180_000);

  it('refuses a database that holds loaded data, and a DuckDB directory with none', async () => {
    const { duckdbPath, options } = await setup();
    await expect(copyToClickHouse(options)).rejects.toThrow(CopyError);
    await expect(copyToClickHouse(options)).rejects.toThrow(/no DuckDB data/);
    // a ClickHouse database the engine has loaded batches into
    const ch = await createClickHouseEngine({
      target: options.target,
      dir: join(options.clickhouseDir, '..', 'own'),
    });
    await ch.applyBatch({ records: numbered([[ev('2026-03-02T10:00:00Z', { path: '/a' })]])[0]! });
    await ch.close();
    const duck = await createDuckDbEngine({ path: duckdbPath, threads: 1, memoryLimit: '256MB' });
    await duck.applyBatch({ records: numbered([[ev('2026-03-02T10:00:00Z', { path: '/b' })]])[0]! });
    await duck.close();
    await expect(copyToClickHouse(options)).rejects.toThrow(/already holds loaded data/);
    // a server that does not answer: said, tried for a while, then given up
    const waits: string[] = [];
    await expect(
      copyToClickHouse({
        ...options,
        target: { url: 'http://default:@127.0.0.1:1', database: 'x' },
        waitMs: 2_500,
        onWaiting: (reason) => waits.push(reason),
      }),
    ).rejects.toThrow(/ClickHouse cannot be reached: .*ECONNREFUSED/);
    expect(waits.length).toBeGreaterThan(0);
  }, 60_000);
});
