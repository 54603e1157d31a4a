import type { DuckDb, ReadOptions } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { goalMatchSql } from './filters.ts';
import type { GoalMatch } from './goals-sql.ts';
import { periodScope, scopeVisits } from './period-scope.ts';
import { activityKindSql } from './visits-sql.ts';

/** A funnel as the engine counts it: ordered steps, within one visit or a number of days. */
export interface FunnelQuery {
  steps: readonly GoalMatch[];
  /** null: every step in one visit; else within this many days from the first step */
  withinDays: number | null;
}

/** Visitors who reached each step in order (the first entry is step one). */
export type FunnelCount = number[];

/**
 * How many visitors went through each step of a funnel, in order, among the events of visits that
 * started in the period and match the filters. Within a visit: the steps happen in one visit, each
 * after the one before. Within days: each step after the one before, and the last no later than
 * that many days after the first time the visitor reached step one in the period (first touch: a
 * later try that would fit the window is not looked for). Each step takes the earliest event after
 * the previous step's, which within a visit finds an ordered path whenever one exists. An event
 * counts for one step only.
 */
export async function readFunnel(
  db: DuckDb,
  q: PeriodQuery & FunnelQuery,
  options: ReadOptions,
): Promise<FunnelCount> {
  const scope = await periodScope(db, q, options);
  const { p, site, start, end } = scope;
  const perVisit = q.withinDays === null;
  const key = perVisit ? 'session_id' : 'visitor_key';
  const window = perVisit ? '' : `AND e.ts <= s.t0 + INTERVAL (${p.add(q.withinDays)}) DAY`;
  const steps = q.steps.map((step, i) => {
    const match = goalMatchSql(step, p, 'e.');
    if (i === 0) {
      return `s0 AS (SELECT e.${key} AS k, any_value(e.visitor_key) AS vk, min(e.ts) AS t, arg_min(e.id, e.ts) AS id,
        min(e.ts) AS t0 FROM ev e WHERE ${match} GROUP BY e.${key})`;
    }
    return `s${i} AS (SELECT s.k, any_value(s.vk) AS vk, min(e.ts) AS t, arg_min(e.id, e.ts) AS id, any_value(s.t0) AS t0
      FROM s${i - 1} s JOIN ev e ON e.${key} = s.k AND (e.ts > s.t OR (e.ts = s.t AND e.id <> s.id)) ${window}
      WHERE ${match} GROUP BY s.k)`;
  });
  const counts = q.steps.map((_, i) => `SELECT ${i} AS step, count(DISTINCT vk) AS visitors FROM s${i}`);
  const rows = await db.read(
    p.query(`WITH vis AS (${scopeVisits(scope)}), ev AS MATERIALIZED (
        SELECT id, ts, kind, name, path, props, visitor_key, session_id FROM events
        WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end}
          AND ${activityKindSql()} AND session_id IN (SELECT session_id FROM vis)
      ), ${steps.join(', ')}
      ${counts.join(' UNION ALL ')}`),
    options,
  );
  const out: FunnelCount = q.steps.map(() => 0);
  for (const r of rows) out[Number(r['step'])] = Number(r['visitors']);
  return out;
}
