import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { WalEvent } from '@footfall/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import { ev, onStream } from './test-fixtures.ts';
import { prevSameValueSql } from './visits-sql.ts';

/** A visitor with more visits than most ever have (a server-side id shared by many). */
const MANY = 104;

/**
 * The loader stores each visit's previous visit, overall and per dimension value, from the
 * visitor's record (apps/query/src/visits): for visitors with few visits and one with many, it
 * must store what `lag()` over all of a visitor's visits gives, however far back the previous
 * visit lies.
 */
const COLUMNS = [
  ['prev_at', 'NULL'],
  ['prev_channel', 'channel'],
  ['prev_referrer', 'referrer'],
  ['prev_entry_page', 'entry_page'],
  ['prev_exit_page', 'exit_page'],
  ['prev_campaign', 'utm_campaign'],
  ['prev_country', 'country'],
  ['prev_browser', 'browser'],
  ['prev_device', 'device'],
] as const;
const SAME_VALUE = COLUMNS.map(([c]) => c).filter((c) => c !== 'prev_at');

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function visits(visitor: string, count: number, first: number, stepMs: number): WalEvent[] {
  const events: WalEvent[] = [];
  for (let i = 0; i < count; i++) {
    const at = first + i * stepMs;
    const fields = {
      visitor,
      channel: (['Direct', 'Email', 'Organic Search'] as const)[i % 3]!,
      referrerHost: i % 4 === 0 ? null : `ref${i % 2}.example`,
      country: i % 5 === 0 ? null : 'DE',
      browser: i % 7 === 0 ? 'Firefox' : 'Chrome',
      // the first and the last visit share a campaign: for the many-visit id and the visitors who
      // come back every 40 days, more than 33 days apart
      utmCampaign: i === 0 || i === count - 1 ? 'launch' : i % 6 === 0 ? 'spring' : null,
    };
    events.push(ev(new Date(at).toISOString(), { ...fields, path: `/p${i % 3}` }));
    events.push(ev(new Date(at + 60_000).toISOString(), { ...fields, path: `/p${i % 4}` }));
  }
  return events;
}

describe('previous visits stored by the loader', () => {
  it('equal lag() over all visits, for visitors with few visits and one with many', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ff-prev-'));
    dirs.push(dir);
    const path = join(dir, 'analytics.duckdb');
    const first = Date.parse('2026-03-01T00:00:00Z');
    const events = [
      // a server-side id with more candidate visits than the join takes, 9 hours apart (39 days)
      ...visits('shared', MANY, first, 9 * 3_600_000),
      ...Array.from({ length: 30 }, (_, v) =>
        visits(`v${v}`, 1 + (v % 6), first + v * 3_600_000, 2 * 86_400_000),
      ).flat(),
      ...Array.from({ length: 8 }, (_, v) =>
        visits(`far${v}`, 3, first + v * 3_600_000, 40 * 86_400_000),
      ).flat(),
    ].sort((a, b) => a.at - b.at);
    const engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
    let seq = 1n;
    // batches of 90 events, every 5th batch held back and loaded after the next (late events)
    const batches: WalEvent[][] = [];
    for (let i = 0; i < events.length; i += 90) batches.push(events.slice(i, i + 90));
    for (let i = 4; i + 1 < batches.length; i += 5)
      [batches[i], batches[i + 1]] = [batches[i + 1]!, batches[i]!];
    for (const batch of batches) {
      const records = onStream('a', batch, seq);
      seq += BigInt(records.length);
      await engine.applyBatch({ records });
    }
    await engine.close();

    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    const lagOf = (column: string) =>
      `lag(started_at) OVER (PARTITION BY site, visitor${column === 'NULL' ? '' : `, ${column}`} ORDER BY started_at)`;
    // the time itself, NULL when there is none (as lag() gives it), from the stored form
    const read = (column: string) =>
      column === 'prev_at'
        ? column
        : `nullif(${prevSameValueSql(column.slice(5))}, '-infinity'::TIMESTAMPTZ)`;
    const rows = (
      await connection.runAndReadAll(
        `SELECT visitor = 'shared' AS heavy, count(*) AS visits,
          ${COLUMNS.map(([c]) => `count(*) FILTER (WHERE ${read(c)} IS DISTINCT FROM want_${c}) AS wrong_${c}`).join(', ')},
          ${SAME_VALUE.map((c) => `count(*) FILTER (WHERE ${c} = prev_at) AS stored_full_${c}`).join(', ')},
          count(*) FILTER (WHERE ${read('prev_channel')} IS NOT NULL) AS with_prev,
          count(*) FILTER (WHERE ${read('prev_campaign')} < started_at - INTERVAL 33 DAYS) AS far_campaign,
          count(*) FILTER (WHERE prev_at < started_at - INTERVAL 33 DAYS) AS far_prev
        FROM (SELECT *, ${COLUMNS.map(([c, d]) => `${lagOf(d)} AS want_${c}`).join(', ')} FROM sessions)
        GROUP BY heavy ORDER BY heavy`,
      )
    ).getRowObjectsJS();
    connection.closeSync();
    instance.closeSync();
    expect(rows.map((r) => Number(r['visits']))).toEqual([
      Array.from({ length: 30 }, (_, v) => 1 + (v % 6)).reduce((a, b) => a + b) + 8 * 3,
      MANY,
    ]);
    // previous visits more than 33 days back: the last visit of the many-visit id and of each
    // far visitor with the same campaign, and every later visit of a far visitor
    expect(rows.map((r) => [Number(r['far_campaign']), Number(r['far_prev'])])).toEqual([
      [8, 16],
      [1, 0],
    ]);
    for (const row of rows) {
      expect(Number(row['with_prev'])).toBeGreaterThan(10);
      for (const [c] of COLUMNS) expect(Number(row[`wrong_${c}`]), c).toBe(0);
      // stored as NULL when it is the previous visit (storedPrevSql), never as the same time
      for (const c of SAME_VALUE) expect(Number(row[`stored_full_${c}`]), c).toBe(0);
    }
  });
});
