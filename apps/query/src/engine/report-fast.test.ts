import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { MIGRATIONS } from './migrations.ts';
import { useSlowReports } from './report.ts';
import { parseReportParams } from './report-params.ts';
import { ev, onStream } from './test-fixtures.ts';
import { prevSameValueSql } from './visits-sql.ts';

/**
 * Unfiltered reports count visitors from each visit's stored previous visits (the fast
 * way, report-sql.ts); every other report looks for repeat visitors (the slow way). Both must
 * give the same report to the last number, on data loaded the way the tailer loads it: in
 * batches, with late events that merge, split and extend visits already stored.
 */
const CHANNELS = ['Direct', 'Organic Search', 'Email', 'Referral'] as const;
const COUNTRIES = ['DE', 'FR', null] as const;
const BROWSERS = ['Firefox', 'Chrome'] as const;
const PATHS = ['/a', '/b', '/c', '/d', '/e'] as const;
const REFERRERS = ['news.example', 'blog.example', null] as const;
const DAY = 86_400_000;
const FIRST = Date.parse('2026-03-01T00:00:00Z');

function randomEvents(): WalEvent[] {
  let seed = 11;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const pick = <T>(list: readonly T[]): T => list[rand(list.length)] as T;
  const events: WalEvent[] = [];
  for (let v = 0; v < 120; v++) {
    const visitor = `visitor-${v}`;
    const browser = pick(BROWSERS);
    // a visitor comes back within hours, days, weeks or months over 140 days (DST change on 29 March)
    let at = FIRST + rand(45 * 24) * 3_600_000;
    for (let n = 1 + rand(6); n > 0 && at < FIRST + 140 * DAY; n--) {
      const channel = pick(CHANNELS);
      const referrerHost = channel === 'Referral' ? pick(REFERRERS) : null;
      const country = rand(5) === 0 ? pick(COUNTRIES) : 'DE';
      for (let k = 1 + rand(3); k > 0; k--) {
        const path = pick(PATHS);
        events.push(
          ev(new Date(at).toISOString(), { visitor, path, channel, referrerHost, country, browser }),
        );
        if (rand(4) === 0) {
          events.push(
            ev(new Date(at + 1000).toISOString(), { visitor, path, kind: 'ev', name: `E${rand(2)}` }),
          );
        }
        at += (1 + rand(20)) * 60_000;
      }
      at += [40 * 60_000, 5 * 3_600_000, 2 * DAY, 9 * DAY, 40 * DAY, 55 * DAY][rand(6)]!;
    }
  }
  return events;
}

let dir: string;
let engine: Engine;
let path: string;

/** Loads the events in batches of mixed-up order, so later batches rebuild stored visits. */
async function load(target: Engine, events: WalEvent[]): Promise<void> {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  // every 7th event is held back and arrives with a later batch (up to a day late)
  const late = sorted.filter((_, i) => i % 7 === 3);
  const onTime = sorted.filter((_, i) => i % 7 !== 3);
  const batches: WalEvent[][] = [];
  for (let i = 0; i < onTime.length; i += 150) {
    const batch = onTime.slice(i, i + 150);
    const until = batch.at(-1)!.at;
    batches.push([...batch, ...late.filter((e) => e.at <= until - DAY / 2 && !batches.flat().includes(e))]);
  }
  const loaded = new Set(batches.flat());
  batches.push(late.filter((e) => !loaded.has(e)));
  let seq = 1n;
  for (const batch of batches) {
    const records = onStream('a', batch, seq);
    seq += BigInt(records.length);
    await target.applyBatch({ records });
  }
}

const NOW = Date.parse('2026-08-20T12:00:00Z');

/**
 * Parameter sets: periods of 1 day to 5 months, every bucket, daily, deep, compare, two zones.
 * Visitors come back after up to 55 days, so long periods hold repeat visits whose previous one
 * lies more than 33 days back (the loader's old look-back).
 */
const CASES: { zone: string; q: Record<string, string> }[] = [];
for (const zone of ['UTC', 'Europe/Berlin']) {
  for (const [from, to] of [
    ['2026-03-05', '2026-03-05'],
    ['2026-03-10', '2026-03-16'],
    ['2026-03-20', '2026-04-02'],
    ['2026-03-01', '2026-03-30'],
    ['2026-03-08', '2026-04-08'],
    ['2026-03-15', '2026-06-20'],
    ['2026-03-01', '2026-07-31'],
  ] as const) {
    CASES.push({ zone, q: { from, to, daily: '1', deep: '1', limit: '250', compare: 'previous' } });
    CASES.push({ zone, q: { from, to, limit: '3' } });
  }
  CASES.push({ zone, q: { from: '2026-03-28', to: '2026-03-30', bucket: 'hour', limit: '1000' } });
  CASES.push({
    zone,
    q: { from: '2026-03-02', to: '2026-03-31', bucket: 'week', daily: '1', limit: '1000' },
  });
  CASES.push({ zone, q: { from: '2026-03-01', to: '2026-07-31', bucket: 'month', limit: '1000' } });
  // a week bucket clipped by a period that starts on a Wednesday
  CASES.push({ zone, q: { from: '2026-03-11', to: '2026-04-05', bucket: 'week', limit: '1000' } });
}

async function reports(target: Engine, slow: boolean) {
  useSlowReports(slow);
  try {
    const out = [];
    for (const { zone, q } of CASES) {
      const params = parseReportParams(q, zone, NOW);
      out.push(await target.report({ site: 'site1', timeZone: zone, params }));
    }
    return out;
  } finally {
    useSlowReports(false);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-fast-'));
  path = join(dir, 'analytics.duckdb');
  engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
  await load(engine, randomEvents());
});
afterAll(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Turns the stored previous visits back into what versions before 6 stored (visits-sql.ts
 * storedPrevSql): each one's time, NULL when there is none.
 */
async function storeRaw(connection: DuckDBConnection): Promise<void> {
  const sameValue = (
    await connection.runAndReadAll(
      "SELECT column_name FROM duckdb_columns() WHERE table_name = 'sessions' AND column_name LIKE 'prev_%' AND column_name <> 'prev_at'",
    )
  )
    .getRowsJS()
    .map(([name]) => String(name).slice('prev_'.length));
  expect(sameValue).toHaveLength(16);
  await connection.run(
    `UPDATE sessions SET ${sameValue
      .map((d) => `prev_${d} = nullif(${prevSameValueSql(d)}, '-infinity'::TIMESTAMPTZ)`)
      .join(', ')}`,
  );
}

/** Gives events back the visitor strings they stored before version 7 (from their visits). */
async function storeVisitorStrings(connection: DuckDBConnection): Promise<void> {
  await connection.run('ALTER TABLE events ADD COLUMN visitor VARCHAR');
  await connection.run(
    `UPDATE events SET visitor = s.visitor FROM sessions s
     WHERE s.site = events.site AND s.session_id = events.session_id`,
  );
}

describe('visitors from stored previous visits', () => {
  it('give the same reports as looking for repeat visitors, for every period, bucket and zone', async () => {
    const fast = await reports(engine, false);
    const slow = await reports(engine, true);
    // the data must have visitors coming back in a period, a day and a bucket
    const repeats = fast.filter((r) => r.kpis.visits > r.kpis.visitors);
    expect(repeats.length).toBeGreaterThan(10);
    expect(fast).toEqual(slow);
  });

  it('come out the same after migration 5 finds the previous visits the old 33-day look-back left out', async () => {
    const expected = await reports(engine, true);
    engine.close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    // what the loader stored before version 5: no previous visit older than 33 days
    const old = (column: string, start: string) =>
      `${column} = CASE WHEN ${column} < ${start} - INTERVAL 33 DAYS THEN NULL ELSE ${column} END`;
    const prevColumns = (
      await connection.runAndReadAll(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = 'sessions' AND column_name LIKE 'prev_%'",
      )
    )
      .getRowsJS()
      .map(([name]) => String(name));
    expect(prevColumns).toHaveLength(17);
    await storeRaw(connection);
    const cut = await connection.runAndReadAll(
      `UPDATE sessions SET ${prevColumns.map((c) => old(c, 'started_at')).join(', ')}
       WHERE ${prevColumns.map((c) => `${c} < started_at - INTERVAL 33 DAYS`).join(' OR ')}`,
    );
    expect(Number(cut.getRowsJS()[0]?.[0])).toBeGreaterThan(20);
    await connection.run(`UPDATE events SET ${old('prev_view_at', 'visit_start')}`);
    await storeVisitorStrings(connection);
    for (const version of [5, 6, 7])
      for (const statement of MIGRATIONS.find((m) => m.version === version)!.statements)
        await connection.run(statement);
    connection.closeSync();
    instance.closeSync();
    engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
    expect(await reports(engine, false)).toEqual(expected);
  });

  it('come out the same when the schema migration computes them for stored visits', async () => {
    const expected = await reports(engine, true);
    engine.close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    const backfills = MIGRATIONS.find((m) => m.version === 2)!.statements.filter((q) =>
      q.startsWith('UPDATE'),
    );
    expect(backfills).toHaveLength(2);
    const columns = [
      'prev_at',
      'prev_channel',
      'prev_referrer',
      'prev_country',
      'prev_browser',
      'prev_entry_page',
    ];
    await storeRaw(connection);
    await connection.run(`UPDATE sessions SET ${columns.map((c) => `${c} = NULL`).join(', ')}`);
    await connection.run('UPDATE events SET prev_view_at = NULL');
    await storeVisitorStrings(connection);
    for (const backfill of backfills) await connection.run(backfill);
    for (const version of [6, 7])
      for (const statement of MIGRATIONS.find((m) => m.version === version)!.statements)
        await connection.run(statement);
    connection.closeSync();
    instance.closeSync();
    engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
    expect(await reports(engine, false)).toEqual(expected);
  });
});
