import type { DuckDBConnection } from '@duckdb/node-api';
import type { VisitorStore } from '../visits/store.ts';
import type { Expired } from './engine.ts';
import { inTransaction } from './loader.ts';

/**
 * Rollup days that end less than this after the cutoff are dropped with the visits: in the site's
 * zone the cutoff is a local midnight, but a day of another zone still kept (until `prepare` drops
 * it) may straddle it. Each is built again from what is left when a report asks for it.
 */
const STRADDLE_MS = 26 * 3_600_000;

/**
 * Deletes a site's visits that started before `before` (unix ms) in one transaction, with their
 * events, the events joined to no visit from before it, the carries of those days and the day
 * rollups made of them; then the visitor records of those whose every visit went. Counters and
 * stream positions stay. DuckDB's DELETE marks rows; CHECKPOINT (run by the backup and at
 * close) reclaims their space.
 */
export async function expireVisits(
  writer: DuckDBConnection,
  store: VisitorStore,
  site: string,
  before: number,
): Promise<Expired> {
  const cutoff = [site, before * 1000] as const;
  const at = 'make_timestamptz($2::BIGINT)';
  let gone: { visitor: string; key: bigint }[] = [];
  const out: Expired = { visits: 0, events: 0 };
  await inTransaction(writer, async () => {
    const rows = await writer.runAndReadAll(
      `SELECT visitor, visitor_key FROM sessions WHERE site = $1
       GROUP BY visitor, visitor_key HAVING max(started_at) < ${at}`,
      [...cutoff],
    );
    gone = rows
      .getRowObjectsJS()
      .map((r) => ({ visitor: String(r['visitor']), key: BigInt(r['visitor_key'] as bigint) }));
    const events = await writer.run(
      `DELETE FROM events WHERE site = $1
         AND (visit_start < ${at} OR (visit_start IS NULL AND ts < ${at}))`,
      [...cutoff],
    );
    out.events = Number(events.rowsChanged);
    const visits = await writer.run(`DELETE FROM sessions WHERE site = $1 AND started_at < ${at}`, [
      ...cutoff,
    ]);
    out.visits = Number(visits.rowsChanged);
    await writer.run(`DELETE FROM visit_carries WHERE site = $1 AND last_at < ${at}`, [...cutoff]);
    const straddle = [site, (before + STRADDLE_MS) * 1000] as const;
    await writer.run(
      `DELETE FROM day_rollup WHERE site = $1 AND (tz, day) IN
         (SELECT tz, day FROM rollup_days WHERE site = $1 AND day_end < ${at})`,
      [...straddle],
    );
    await writer.run(`DELETE FROM rollup_days WHERE site = $1 AND day_end < ${at}`, [...straddle]);
  });
  if (gone.length > 0) store.forget(site, gone);
  return out;
}
