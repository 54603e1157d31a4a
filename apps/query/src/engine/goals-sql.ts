import type { DuckDb, ReadOptions } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { goalMatchSql } from './filters.ts';
import { periodScope, scopeVisits } from './period-scope.ts';
import { activityKindSql } from './visits-sql.ts';

/** A goal as the engine counts it (packages/control/src/goals.ts defines them). */
export interface GoalMatch {
  kind: 'page' | 'event';
  /** a path pattern with `*` wildcards, or a custom event's name */
  match: string;
  prop: { key: string; value: string } | null;
}

/** One goal's count in a period: converting visitors and visits, and the matching events. */
export interface GoalCount {
  visitors: number;
  visits: number;
  conversions: number;
}

/**
 * Each goal's conversions among the visits that started in the period and match the filters: the
 * distinct visitors and visits that reached it, and the pageviews or custom events that did, in
 * one pass over those visits' events. Goals come back in the order given.
 */
export async function readGoals(
  db: DuckDb,
  q: PeriodQuery & { goals: readonly GoalMatch[] },
  options: ReadOptions,
): Promise<GoalCount[]> {
  if (q.goals.length === 0) return [];
  const scope = await periodScope(db, q, options);
  const { p, site, start, end } = scope;
  const cases = q.goals.map(
    (g, i) => `SELECT ${i} AS goal, e.visitor_key, e.session_id FROM ev e WHERE ${goalMatchSql(g, p, 'e.')}`,
  );
  const rows = await db.read(
    p.query(`WITH vis AS (${scopeVisits(scope)}), ev AS MATERIALIZED (
        SELECT kind, name, path, props, visitor_key, session_id FROM events
        WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end}
          AND ${activityKindSql()} AND session_id IN (SELECT session_id FROM vis)
      )
      SELECT goal, count(DISTINCT visitor_key) AS visitors, count(DISTINCT session_id) AS visits,
        count(*) AS conversions
      FROM (${cases.join(' UNION ALL ')}) GROUP BY goal`),
    options,
  );
  const counts: GoalCount[] = q.goals.map(() => ({ visitors: 0, visits: 0, conversions: 0 }));
  for (const r of rows) {
    counts[Number(r['goal'])] = {
      visitors: Number(r['visitors']),
      visits: Number(r['visits']),
      conversions: Number(r['conversions']),
    };
  }
  return counts;
}

/** One property of a goal's events: its values, each with the visitors and events that had it. */
export interface GoalProperty {
  key: string;
  values: { value: string | null; visitors: number; conversions: number }[];
}

/** Most properties, and values of one property, that goal-props lists. */
const PROPERTY_KEYS = 30;
const PROPERTY_VALUES = 100;

/**
 * A goal's events broken down by each of their properties (`report/goal-props`): per property key,
 * its values with the distinct visitors and the events that carried them, among the visits that
 * started in the period and match the filters. A page goal's pageviews have no properties.
 */
export async function readGoalProperties(
  db: DuckDb,
  q: PeriodQuery & { goal: GoalMatch },
  options: ReadOptions,
): Promise<GoalProperty[]> {
  if (q.goal.kind !== 'event') return [];
  const scope = await periodScope(db, q, options);
  const { p, site, start, end } = scope;
  const rows = await db.read(
    p.query(`WITH vis AS (${scopeVisits(scope)}), ev AS (
        SELECT visitor_key, props FROM events
        WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end}
          AND session_id IN (SELECT session_id FROM vis) AND props IS NOT NULL AND ${goalMatchSql(q.goal, p)}
      ), kv AS (
        SELECT k AS key, visitor_key,
          json_extract_string(props, '$."' || replace(replace(k, '\\', '\\\\'), '"', '\\"') || '"') AS value
        FROM ev, unnest(json_keys(props)) AS t(k)
      ), counted AS (
        SELECT key, value, count(DISTINCT visitor_key) AS visitors, count(*) AS conversions FROM kv GROUP BY key, value
      ), ranked AS (
        SELECT *, row_number() OVER (PARTITION BY key ORDER BY visitors DESC, conversions DESC, value) AS n,
          dense_rank() OVER (ORDER BY key) AS k
        FROM counted
      )
      SELECT key, value, visitors, conversions FROM ranked
      WHERE n <= ${PROPERTY_VALUES} AND k <= ${PROPERTY_KEYS}
      ORDER BY key, n`),
    options,
  );
  const out = new Map<string, GoalProperty>();
  for (const r of rows) {
    const key = String(r['key']);
    let entry = out.get(key);
    if (!entry) {
      entry = { key, values: [] };
      out.set(key, entry);
    }
    entry.values.push({
      value: r['value'] === null ? null : String(r['value']),
      visitors: Number(r['visitors']),
      conversions: Number(r['conversions']),
    });
  }
  return [...out.values()];
}
