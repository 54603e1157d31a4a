import { timestampTZValue } from '@duckdb/node-api';
import type { DuckDb, Query, ReadOptions, Row } from './duckdb.ts';
import type { Params } from './sql-params.ts';

/**
 * Site-time-zone arithmetic without per-row time zone functions. Converting every row with
 * ICU's timezone() costs about ten times more than the rest of a report query, so a report
 * first asks DuckDB (ICU) for the UTC offsets in force around its period, once; the big
 * queries then compute local time as `epoch_ms + offset`, where the offset is a CASE over
 * the few instants at which it changes (DST). Days therefore have 23 or 25 hours exactly
 * when the site's zone says so.
 */
export interface TimePlan {
  timeZone: string;
  /** first instant of `from` in the zone, unix ms */
  startMs: number;
  /** first instant of the day after `to`, unix ms (exclusive end) */
  endMs: number;
  /** offset segments: from `fromMs` on (until the next one) local = utc + offsetMs */
  segments: { fromMs: number; offsetMs: number }[];
}

const MARGIN = "INTERVAL '2 days'";

/** Builds the query whose rows describe a period: its bounds and the offset segments around it. */
export function timePlanQuery(timeZone: string, from: string, to: string): Query {
  return {
    sql: `WITH b AS (
        SELECT timezone($1, $2::DATE::TIMESTAMP) AS s, timezone($1, ($3::DATE + 1)::TIMESTAMP) AS e
      ), samples AS (
        SELECT t, epoch_ms(timezone($1, t)) - epoch_ms(t) AS off
        FROM b, generate_series(b.s - ${MARGIN}, b.e + ${MARGIN}, INTERVAL '15 minutes') g(t)
      )
      SELECT epoch_ms(b.s)::DOUBLE AS start_ms, epoch_ms(b.e)::DOUBLE AS end_ms,
        epoch_ms(t)::DOUBLE AS from_ms, off::DOUBLE AS offset_ms
      FROM samples, b
      QUALIFY off IS DISTINCT FROM lag(off) OVER (ORDER BY t)
      ORDER BY t`,
    params: [timeZone, from, to],
  };
}

export function parseTimePlan(timeZone: string, rows: Row[]): TimePlan {
  const first = rows[0];
  if (!first) throw new Error('time plan query returned no rows');
  return {
    timeZone,
    startMs: Number(first['start_ms']),
    endMs: Number(first['end_ms']),
    // The first sample stands for everything before it too.
    segments: rows.map((row, i) => ({
      fromMs: i === 0 ? Number.NEGATIVE_INFINITY : Number(row['from_ms']),
      offsetMs: Number(row['offset_ms']),
    })),
  };
}

/** A period's time plan in a zone, asked of DuckDB (one small query before the big one). */
export async function readTimePlan(
  db: DuckDb,
  timeZone: string,
  period: { from: string; to: string },
  options: ReadOptions,
): Promise<TimePlan> {
  return parseTimePlan(timeZone, await db.read(timePlanQuery(timeZone, period.from, period.to), options));
}

/** The offset in force at an instant. */
export function offsetAt(plan: TimePlan, ms: number): number {
  let offset = plan.segments[0]?.offsetMs ?? 0;
  for (const segment of plan.segments) if (ms >= segment.fromMs) offset = segment.offsetMs;
  return offset;
}

/** The local day number (days since 1970-01-01 local) of an instant in unix ms. */
export const localDay = (plan: TimePlan, ms: number): number =>
  Math.floor((ms + offsetAt(plan, ms)) / 86_400_000);

/** A TIMESTAMPTZ parameter value for an instant in unix ms. */
export const instant = (ms: number) => timestampTZValue(BigInt(Math.round(ms)) * 1000n);

/**
 * SQL for the local wall-clock time, in ms since 1970-01-01 local, of a TIMESTAMPTZ column.
 * Values go through `p`; the column name is the builder's own text, never input.
 */
export function localMsSql(column: string, plan: TimePlan, p: Params): string {
  const [first, ...rest] = plan.segments;
  if (!first) throw new Error('time plan has no offset segment');
  if (rest.length === 0) return `(epoch_ms(${column}) + ${p.add(first.offsetMs)}::BIGINT)`;
  const arms = [...rest]
    .reverse()
    .map((s) => `WHEN ${column} >= ${p.add(instant(s.fromMs))} THEN ${p.add(s.offsetMs)}::BIGINT`)
    .join(' ');
  return `(epoch_ms(${column}) + CASE ${arms} ELSE ${p.add(first.offsetMs)}::BIGINT END)`;
}
