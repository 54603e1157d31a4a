import { type BucketSlot, bucketSlots } from './buckets.ts';
import type { DuckDb, ReadOptions, Row } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { goalMatchSql } from './filters.ts';
import type { GoalMatch } from './goals-sql.ts';
import { visitsInPeriod } from './heatmap-retention.ts';
import { num, str } from './reads.ts';
import type { Bucket } from './report-params.ts';
import { bucketKeySql } from './report-sql.ts';
import { Params } from './sql-params.ts';
import { readTimePlan } from './time-plan.ts';
import { activityKindSql } from './visits-sql.ts';

/** Channels drawn on their own in the channel chart; the rest are one "Other" line. */
export const CHART_CHANNELS = 5;
/** Pages per visit: the bins' upper bounds (inclusive) and names; a visit of no pageview is in the first. */
export const PAGES_BINS: [number, string][] = [
  [1, '1'],
  [2, '2'],
  [3, '3'],
  [5, '4–5'],
  [10, '6–10'],
  [Number.POSITIVE_INFINITY, '11+'],
];
/** Engaged time per visit: the bins' upper bounds (exclusive, ms) and names. */
export const ENGAGED_BINS: [number, string][] = [
  [10_000, 'under 10 s'],
  [30_000, '10–30 s'],
  [60_000, '30 s–1 min'],
  [180_000, '1–3 min'],
  [600_000, '3–10 min'],
  [Number.POSITIVE_INFINITY, '10 min or more'],
];

/** The data of the chart cards (docs/api.md, `report/charts`): visits of the period after filters. */
export interface Charts {
  bucket: Bucket;
  buckets: { bucket: string; start: string }[];
  /** visits per bucket of the top channels of the period, then "Other" when more had visits */
  channels: { channel: string; visits: number[]; total: number }[];
  /** visits per bucket that were the visitor's first ever, and visits of visitors seen before */
  new_vs_returning: { first: number[]; returning: number[] };
  pages_per_visit: { pages: string; visits: number }[];
  /** per visit, the engaged time its pages reported (the tracker's `en` events) */
  engaged_time: { range: string; visits: number }[];
  /** visits per bucket that reached any goal; null without goals */
  conversions: { visits: number[] } | null;
}

/**
 * The chart cards in one pass per card over the period's visits: a time plan for local buckets,
 * then four small aggregates (five with goals), each grouped in DuckDB.
 */
export async function readCharts(
  db: DuckDb,
  q: PeriodQuery & { bucket: Bucket; goals: readonly GoalMatch[] | null },
  options: ReadOptions,
): Promise<Charts> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  const slots = bucketSlots(q.bucket, q.period, plan);
  const p = new Params();
  const { local, from, site, start, end } = visitsInPeriod(q.site, plan, q.filters, p);
  const bkt = bucketKeySql(q.bucket, 'started_at', local);
  const pagesCase = PAGES_BINS.map(([max, _name], i) =>
    Number.isFinite(max) ? `WHEN pageviews <= ${max} THEN ${i}` : `ELSE ${i}`,
  ).join(' ');
  const engagedCase = ENGAGED_BINS.map(([max, _], i) =>
    Number.isFinite(max) ? `WHEN engaged < ${max} THEN ${i}` : `ELSE ${i}`,
  ).join(' ');
  const goals = q.goals ?? [];
  const converted =
    goals.length === 0
      ? 'false'
      : `session_id IN (SELECT session_id FROM events
          WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end} AND ${activityKindSql()}
            AND (${goals.map((g) => goalMatchSql(g, p)).join(' OR ')}))`;
  const rows = await db.read(
    p.query(`WITH v AS MATERIALIZED (
        SELECT session_id, visitor_key, started_at, pageviews, coalesce(channel, 'Direct') AS channel,
          prev_at IS NULL AS first, ${bkt} AS bkt ${from}
      ), engaged AS (
        SELECT session_id, sum(engaged_ms) AS ms FROM events
        WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end} AND kind = 'en'
          AND session_id IN (SELECT session_id FROM v)
        GROUP BY session_id
      )
      SELECT 'channel' AS card, bkt, channel AS val, count(*)::DOUBLE AS visits FROM v GROUP BY bkt, channel
      UNION ALL
      SELECT 'new', bkt, CASE WHEN first THEN 'first' ELSE 'returning' END, count(*)::DOUBLE FROM v GROUP BY ALL
      UNION ALL
      SELECT 'pages', NULL, (CASE ${pagesCase} END)::VARCHAR, count(*)::DOUBLE FROM v GROUP BY ALL
      UNION ALL
      SELECT 'engaged', NULL, (CASE ${engagedCase} END)::VARCHAR, count(*)::DOUBLE
        FROM (SELECT coalesce(e.ms, 0) AS engaged FROM v LEFT JOIN engaged e USING (session_id)) GROUP BY ALL
      UNION ALL
      SELECT 'goal', bkt, NULL, count(*)::DOUBLE FROM v WHERE ${converted} GROUP BY bkt`),
    options,
  );
  return chartsFrom(rows, q.bucket, slots, q.goals !== null);
}

/**
 * The chart cards from their rows (both engines read the same rows: card, bucket key `bkt`, value,
 * visits): channels over time (the top ones, the rest as Other), first and returning visits,
 * pages per visit, engaged time and, with goals, converting visits.
 */
export function chartsFrom(rows: Row[], bucket: Bucket, slots: BucketSlot[], withGoals: boolean): Charts {
  const index = new Map(slots.map((s, i) => [s.key, i]));
  const series = () => slots.map(() => 0);
  const channels = new Map<string, number[]>();
  const first = series();
  const returning = series();
  const conversions = series();
  const pages = PAGES_BINS.map(() => 0);
  const engaged = ENGAGED_BINS.map(() => 0);
  for (const r of rows) {
    const card = str(r['card']);
    const value = str(r['val']);
    const visits = num(r['visits']);
    const i = index.get(num(r['bkt']));
    if (card === 'pages') pages[Number(value)] = visits;
    else if (card === 'engaged') engaged[Number(value)] = visits;
    else if (i === undefined) continue;
    else if (card === 'channel' && value !== null) {
      const line = channels.get(value) ?? series();
      line[i] = visits;
      channels.set(value, line);
    } else if (card === 'new') (value === 'returning' ? returning : first)[i] = visits;
    else if (card === 'goal') conversions[i] = visits;
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const ranked = [...channels.entries()]
    .map(([channel, visits]) => ({ channel, visits, total: sum(visits) }))
    .sort((a, b) => b.total - a.total || a.channel.localeCompare(b.channel));
  const top = ranked.slice(0, CHART_CHANNELS);
  const rest = ranked.slice(CHART_CHANNELS);
  if (rest.length > 0) {
    const visits = slots.map((_, i) => sum(rest.map((r) => r.visits[i] ?? 0)));
    top.push({ channel: 'Other', visits, total: sum(visits) });
  }
  return {
    bucket,
    buckets: slots.map((s) => ({ bucket: s.label, start: new Date(s.startMs).toISOString() })),
    channels: top,
    new_vs_returning: { first, returning },
    pages_per_visit: PAGES_BINS.map(([, name], i) => ({ pages: name, visits: pages[i] ?? 0 })),
    engaged_time: ENGAGED_BINS.map(([, name], i) => ({ range: name, visits: engaged[i] ?? 0 })),
    conversions: withGoals ? { visits: conversions } : null,
  };
}
