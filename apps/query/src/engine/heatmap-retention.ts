import type { Query } from './duckdb.ts';
import { filterSql } from './filters.ts';
import type { Filter } from './report-params.ts';
import { Params } from './sql-params.ts';
import { instant, localMsSql, type TimePlan } from './time-plan.ts';

const DAY = 86_400_000;

/**
 * Visits of a period after filters, as SQL text plus its local-time expression, and the parameter
 * names of the site and the period's first and last instant (exclusive).
 */
export function visitsInPeriod(site: string, plan: TimePlan, filters: readonly Filter[], p: Params) {
  const s = p.add(site);
  const start = p.add(instant(plan.startMs));
  const end = p.add(instant(plan.endMs));
  const where = filterSql(filters, site, { start, end }, p);
  return {
    site: s,
    start,
    end,
    local: localMsSql('started_at', plan, p),
    from: `FROM sessions WHERE site = ${s} AND started_at >= ${start} AND started_at < ${end} AND ${where}`,
  };
}

/**
 * Visits, visitors and pageviews per local weekday and hour of the visit's start. Weekday 0 is
 * Monday (1970-01-01, day 0, was a Thursday, hence the +3).
 */
export function buildHeatmapQuery(site: string, plan: TimePlan, filters: readonly Filter[]): Query {
  const p = new Params();
  const { local, from } = visitsInPeriod(site, plan, filters, p);
  return p.query(`SELECT ((${local} // ${DAY} + 3) % 7)::INTEGER AS weekday,
      ((${local} % ${DAY}) // 3600000)::INTEGER AS hour,
      count(DISTINCT visitor_key)::DOUBLE AS visitors, count(*)::DOUBLE AS visits,
      sum(pageviews)::DOUBLE AS pageviews
    ${from} GROUP BY ALL`);
}

/**
 * Weekly cohorts: a visitor belongs to the local week (Monday first) of their first visit in
 * the period; `week` k counts those of them with a visit k weeks later. Weeks are numbered
 * from 1970-01-01's week as in report-sql.ts.
 */
export function buildRetentionQuery(site: string, plan: TimePlan, filters: readonly Filter[]): Query {
  const p = new Params();
  const { local, from } = visitsInPeriod(site, plan, filters, p);
  return p.query(`WITH v AS (SELECT visitor_key, (${local} // ${DAY} + 3) // 7 AS week ${from}),
      firsts AS (SELECT visitor_key, min(week) AS cohort FROM v GROUP BY visitor_key)
    SELECT f.cohort::DOUBLE AS cohort, (v.week - f.cohort)::DOUBLE AS k, count(DISTINCT v.visitor_key)::DOUBLE AS visitors
    FROM v JOIN firsts f USING (visitor_key) GROUP BY ALL`);
}
