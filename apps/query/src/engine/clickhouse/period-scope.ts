import type { PeriodQuery } from '../engine.ts';
import type { TimePlan } from '../time-plan.ts';
import { ChParams, filterSql } from './report-sql.ts';
import { timePlanOf } from './time-plan.ts';

/**
 * What the ClickHouse reads over "the visits that started in the period and match the filters"
 * share (period-scope.ts's, for ClickHouse): the period's time plan and bounds as parameters, and
 * the filters as one condition on `sessions`.
 */
export interface ChScope {
  p: ChParams;
  plan: TimePlan;
  /** placeholders of the site and of the period's first and end instants (exclusive) */
  site: string;
  start: string;
  end: string;
  /** the filters, as a condition on sessions */
  where: string;
}

export function periodScope(q: PeriodQuery): ChScope {
  const plan = timePlanOf(q.timeZone, q.period);
  const p = new ChParams();
  const site = p.add(q.site, 'String');
  const start = p.time(plan.startMs);
  const end = p.time(plan.endMs);
  return { p, plan, site, start, end, where: filterSql(q.filters, q.site, { start, end }, p) };
}

/**
 * The scope's visits, collapsed (`sessions FINAL`): each by `(visitor_key, started_at)`, which is
 * how events name their visit (`(visitor_key, visit_start)`).
 */
export const scopeVisits = (s: ChScope, columns = 'visitor_key, started_at') =>
  `SELECT ${columns} FROM sessions FINAL
   WHERE site = ${s.site} AND started_at >= ${s.start} AND started_at < ${s.end} AND ${s.where}`;
