import type { DuckDb, ReadOptions } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { filterSql } from './filters.ts';
import { Params } from './sql-params.ts';
import { instant, parseTimePlan, timePlanQuery } from './time-plan.ts';

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

/** A path pattern as SQL LIKE: `*` is any run of characters; `%`, `_` and `\` are themselves. */
export const likePattern = (pattern: string) =>
  pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/** A JSON path naming one top-level key, whatever characters it holds. */
const keyPath = (key: string) => `$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

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
  const plan = parseTimePlan(
    q.timeZone,
    await db.read(timePlanQuery(q.timeZone, q.period.from, q.period.to), options),
  );
  const p = new Params();
  const site = p.add(q.site);
  const start = p.add(instant(plan.startMs));
  const end = p.add(instant(plan.endMs));
  const where = filterSql(q.filters, q.site, { start, end }, p);
  const cases = q.goals.map((g, i) => {
    const condition =
      g.kind === 'page'
        ? `e.kind = 'pv' AND e.path LIKE ${p.add(likePattern(g.match))} ESCAPE '\\'`
        : `e.kind = 'ev' AND e.name = ${p.add(g.match)}${
            g.prop
              ? ` AND json_extract_string(e.props, ${p.add(keyPath(g.prop.key))}) = ${p.add(g.prop.value)}`
              : ''
          }`;
    return `SELECT ${i} AS goal, e.visitor_key, e.session_id FROM ev e WHERE ${condition}`;
  });
  const rows = await db.read(
    p.query(`WITH vis AS (
        SELECT session_id FROM sessions
        WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end} AND ${where}
      ), ev AS MATERIALIZED (
        SELECT kind, name, path, props, visitor_key, session_id FROM events
        WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end}
          AND kind IN ('pv', 'ev') AND session_id IN (SELECT session_id FROM vis)
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
