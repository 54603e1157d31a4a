import type { DuckDb, ReadOptions } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { filterSql } from './filters.ts';
import { Params } from './sql-params.ts';
import { instant, readTimePlan } from './time-plan.ts';

/**
 * What the reads over "the visits that started in the period and match the filters" share: the
 * period's bounds in the site's zone as parameters, and the filters as one SQL condition on
 * `sessions` (goals, goal properties, assistants, funnels).
 */
export interface PeriodScope {
  p: Params;
  /** parameter names of the site and the period's first and last instant (exclusive) */
  site: string;
  start: string;
  end: string;
  /** the filters, as a condition on sessions */
  where: string;
}

export async function periodScope(db: DuckDb, q: PeriodQuery, options: ReadOptions): Promise<PeriodScope> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  const p = new Params();
  const site = p.add(q.site);
  const start = p.add(instant(plan.startMs));
  const end = p.add(instant(plan.endMs));
  return { p, site, start, end, where: filterSql(q.filters, q.site, { start, end }, p) };
}

/** The ids of the scope's visits: `SELECT session_id FROM sessions WHERE …`. */
export const scopeVisits = (s: PeriodScope) =>
  `SELECT session_id FROM sessions
   WHERE site = ${s.site} AND started_at >= ${s.start} AND started_at < ${s.end} AND ${s.where}`;
