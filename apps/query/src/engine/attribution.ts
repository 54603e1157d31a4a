import { listValue } from '@duckdb/node-api';
import type { DuckDb, ReadOptions } from './duckdb.ts';
import { DIMENSION_COLUMNS, filterSql, goalMatchSql } from './filters.ts';
import type { GoalMatch } from './goals-sql.ts';
import { type Filter, VISIT_DIMENSIONS, type VisitDimension } from './report-params.ts';
import { Params } from './sql-params.ts';
import { activityKindSql } from './visits-sql.ts';

/** How far back a sale looks for the visit that earned it (spec, Limits). */
export const ATTRIBUTION_WINDOW_DAYS = 90;

/**
 * Payment providers date a payment to the second (rounded down): a visit that started in the same
 * second as the payment it led to may carry a later millisecond. Such a visit still counts.
 */
export const PAYMENT_TIME_PRECISION_MS = 1000;

/** `last`: the last non-direct visit within 90 days (direct only when there is nothing else); `first`: the visit that found the visitor. */
export type AttributionModel = 'last' | 'first';

/** A sale to credit: whose, and when (for a renewal, its subscription's first payment). */
export interface Anchor {
  visitor: string;
  /** unix ms */
  at: number;
}

/** The credited visit: its dimension values, and whether it matches the report's filters. */
export interface CreditedVisit {
  dims: Record<VisitDimension, string | null>;
  matches: boolean;
}

/**
 * For each anchor, the visit credited with its sale, or null when the visitor had no visit that
 * qualifies. Runs at query time, so webhooks that arrived late or out of order are credited like
 * any other.
 */
export async function runAttribution(
  db: DuckDb,
  q: { site: string; anchors: readonly Anchor[]; model: AttributionModel; filters: readonly Filter[] },
  options: ReadOptions = {},
): Promise<(CreditedVisit | null)[]> {
  const out: (CreditedVisit | null)[] = q.anchors.map(() => null);
  if (q.anchors.length === 0) return out;
  const p = new Params();
  const site = p.add(q.site);
  const idx = p.add(listValue(q.anchors.map((_, i) => i)));
  const visitors = p.add(listValue(q.anchors.map((a) => a.visitor)));
  const ats = p.add(listValue(q.anchors.map((a) => a.at)));
  // a page or event filter looks at the events of the credited visit, whenever it started
  const bounds = {
    start: "TIMESTAMPTZ '1970-01-01 00:00:00+00'",
    end: "TIMESTAMPTZ '9999-12-31 00:00:00+00'",
  };
  const matches = filterSql(q.filters, q.site, bounds, p);
  const window =
    q.model === 'last' ? `AND s.started_at > a.at - INTERVAL ${ATTRIBUTION_WINDOW_DAYS} DAY` : '';
  const order = q.model === 'last' ? "(s.channel <> 'Direct') DESC, s.started_at DESC" : 's.started_at ASC';
  const columns = VISIT_DIMENSIONS.map((d) => `s.${DIMENSION_COLUMNS[d]} AS ${d}`).join(', ');
  const sql = `
    WITH a AS (
      SELECT unnest(${idx}::INTEGER[]) AS idx, unnest(${visitors}::VARCHAR[]) AS visitor,
        make_timestamptz((unnest(${ats}::DOUBLE[]) * 1000)::BIGINT) AS at
    ),
    credited AS (
      SELECT a.idx, s.session_id AS credited_id,
        row_number() OVER (PARTITION BY a.idx ORDER BY ${order}, s.session_id) AS rn
      FROM a JOIN sessions s ON s.site = ${site} AND s.visitor = a.visitor AND s.started_at < a.at + INTERVAL ${PAYMENT_TIME_PRECISION_MS} MILLISECOND ${window}
    )
    SELECT c.idx, ${columns}, (${matches}) AS matches
    FROM credited c JOIN sessions s ON s.site = ${site} AND s.session_id = c.credited_id
    WHERE c.rn = 1`;
  for (const row of await db.read(p.query(sql), options)) {
    const dims = {} as Record<VisitDimension, string | null>;
    for (const d of VISIT_DIMENSIONS) dims[d] = row[d] == null ? null : String(row[d]);
    out[Number(row['idx'])] = { dims, matches: row['matches'] === true };
  }
  return out;
}

/**
 * For each anchor, the indices of `goals` its visitor reached at or before the sale, within
 * ATTRIBUTION_WINDOW_DAYS before it (revenue per goal: what the people who reached a goal paid).
 */
export async function runGoalPayers(
  db: DuckDb,
  q: { site: string; anchors: readonly Anchor[]; goals: readonly GoalMatch[] },
  options: ReadOptions = {},
): Promise<number[][]> {
  const out: number[][] = q.anchors.map(() => []);
  if (q.anchors.length === 0 || q.goals.length === 0) return out;
  const p = new Params();
  const site = p.add(q.site);
  const idx = p.add(listValue(q.anchors.map((_, i) => i)));
  const visitors = p.add(listValue(q.anchors.map((a) => a.visitor)));
  const ats = p.add(listValue(q.anchors.map((a) => a.at)));
  const cases = q.goals.map(
    (g, i) => `SELECT DISTINCT idx, ${i} AS goal FROM ev WHERE ${goalMatchSql(g, p)}`,
  );
  const rows = await db.read(
    p.query(`WITH a AS (
        SELECT unnest(${idx}::INTEGER[]) AS idx, unnest(${visitors}::VARCHAR[]) AS visitor,
          make_timestamptz((unnest(${ats}::DOUBLE[]) * 1000)::BIGINT) AS at
      ), ev AS MATERIALIZED (
        SELECT a.idx, e.kind, e.name, e.path, e.props FROM a JOIN events e
          ON e.site = ${site} AND e.visitor_key = md5_number_lower(a.visitor) AND ${activityKindSql('e.')}
          AND e.ts < a.at + INTERVAL ${PAYMENT_TIME_PRECISION_MS} MILLISECOND
          AND e.ts > a.at - INTERVAL ${ATTRIBUTION_WINDOW_DAYS} DAY
      )
      ${cases.join(' UNION ALL ')}`),
    options,
  );
  for (const r of rows) out[Number(r['idx'])]?.push(Number(r['goal']));
  for (const list of out) list.sort((a, b) => a - b);
  return out;
}
