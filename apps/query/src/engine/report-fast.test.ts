import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { MIGRATIONS } from './migrations.ts';
import { load, randomEvents, reports } from './report-cases.ts';
import { prevSameValueSql } from './visits-sql.ts';

/**
 * Unfiltered reports count visitors from each visit's stored previous visits (the fast
 * way, report-sql.ts); every other report looks for repeat visitors (the slow way). Both must
 * give the same report to the last number, on data loaded the way the tailer loads it: in
 * batches, with late events that merge, split and extend visits already stored. The engine's
 * clock stands before the data, so no day is over and no day rollup is built: the fast way reads
 * raw visits here (rollups.test.ts compares the rollups).
 */
const BEFORE_THE_DATA = () => Date.parse('2026-02-01T00:00:00Z');
let dir: string;
let engine: Engine;
let path: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-fast-'));
  path = join(dir, 'analytics.duckdb');
  engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB', now: BEFORE_THE_DATA });
  await load(engine, randomEvents());
});
afterAll(async () => {
  await engine.close();
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
    await engine.close();
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
    engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB', now: BEFORE_THE_DATA });
    expect(await reports(engine, false)).toEqual(expected);
  });

  it('come out the same when the schema migration computes them for stored visits', async () => {
    const expected = await reports(engine, true);
    await engine.close();
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
    engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB', now: BEFORE_THE_DATA });
    expect(await reports(engine, false)).toEqual(expected);
  });
});
