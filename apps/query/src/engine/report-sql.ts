import type { Query } from './duckdb.ts';
import { DIMENSION_COLUMNS, filterSql } from './filters.ts';
import type { Bucket, Filter, VisitDimension } from './report-params.ts';
import { Params } from './sql-params.ts';
import { instant, localMsSql, type TimePlan } from './time-plan.ts';

/** What one report statement computes. */
export interface ReportSqlInput {
  site: string;
  plan: TimePlan;
  bucket: Bucket;
  filters: readonly Filter[];
  /** visit dimensions to break down (none for a compared period) */
  dimensions: readonly VisitDimension[];
  /** also break down pages and custom events */
  pagesAndEvents: boolean;
  /** per-day breakdowns as well */
  daily: boolean;
  /** rows kept per breakdown (per breakdown and day for daily rows) */
  limit: number;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * A bucket key from local wall-clock ms `local` of TIMESTAMPTZ `column`: for hours the UTC
 * instant the local hour began (so the two 01:00 hours of a fall-back day stay apart), else
 * the local day number, Monday-based week number (day 0, 1970-01-01, was a Thursday) or month
 * number (months since 1970-01).
 */
export function bucketKeySql(bucket: Bucket, column: string, local: string): string {
  switch (bucket) {
    case 'hour':
      return `(epoch_ms(${column}) - ${local} % ${HOUR})`;
    case 'day':
      return `(${local} // ${DAY})`;
    case 'week':
      return `((${local} // ${DAY} + 3) // 7)`;
    case 'month': {
      const d = `(DATE '1970-01-01' + (${local} // ${DAY})::INTEGER)`;
      return `((year(${d}) - 1970) * 12 + month(${d}) - 1)::BIGINT`;
    }
  }
}

/** One breakdown of visits: its section name and the columns it groups by. */
interface Group {
  section: string;
  cols: readonly string[];
}

/** The section, day, bucket and value columns every breakdown row carries. */
function groupKeys(g: Group): string {
  const has = (c: string) => g.cols.includes(c);
  const val = g.cols.find((c) => c !== 'day' && c !== 'bkt');
  return `'${g.section}' AS section, ${has('day') ? 'day' : 'NULL::BIGINT'} AS day,
    ${has('bkt') ? 'bkt' : 'NULL::BIGINT'} AS bkt, ${val ?? 'NULL::VARCHAR'} AS val`;
}

const groupBy = (cols: readonly string[]) => (cols.length === 0 ? '' : `GROUP BY ${cols.join(', ')}`);

/**
 * One statement for a period: totals (section 'total'), the chart ('chart', key `bkt`), visit
 * breakdowns (section = dimension), pages and custom events, optionally per local day.
 *
 * Distinct visitors without a DISTINCT over every row: a visitor with one visit in the period
 * is one visitor of whatever that visit shows, so `visitors = visits - duplicates`, where the
 * duplicates are counted among the (few) visits of visitors who came more than once, as each
 * such visitor's visits in the row minus one. For pages and events the same works (with
 * DISTINCT) on "first view of this path in its visit" rows.
 */
export function buildReportQuery(input: ReportSqlInput): Query {
  const p = new Params();
  const site = p.add(input.site);
  const start = p.add(instant(input.plan.startMs));
  const end = p.add(instant(input.plan.endMs));
  const where = filterSql(input.filters, input.site, { start, end }, p);
  const local = localMsSql('started_at', input.plan, p);
  const dims = input.dimensions;
  const dimCols = dims.map((d) => `${DIMENSION_COLUMNS[d]} AS ${d}`).join(', ');

  // One plain GROUP BY per breakdown, joined by UNION ALL, not GROUPING SETS: DuckDB builds a
  // hash table per grouping set and thread, and with count(DISTINCT) beside them a daily report
  // of a million events ran out of the default 256 MB. Plain aggregates stay small and cost less.
  const groups: Group[] = [
    { section: 'total', cols: [] },
    { section: 'chart', cols: ['bkt'] },
    ...dims.map((d) => ({ section: d, cols: [d] })),
    ...(input.daily ? dims.map((d) => ({ section: d, cols: ['day', d] })) : []),
  ];
  const dayKey = input.daily ? 'CASE WHEN GROUPING(day) = 0 THEN day END' : 'NULL::BIGINT';

  const ctes = [
    `s AS MATERIALIZED (
      SELECT visitor_key, pageviews, duration_ms, session_id${dimCols ? `, ${dimCols}` : ''},
        ${bucketKeySql(input.bucket, 'started_at', local)} AS bkt, ${local} // ${DAY} AS day
      FROM sessions
      WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end} AND ${where})`,
    'multi AS (SELECT visitor_key FROM s GROUP BY visitor_key HAVING count(*) > 1)',
    'sm AS MATERIALIZED (SELECT * FROM s SEMI JOIN multi USING (visitor_key))',
    `va AS (${groups
      .map(
        (g) => `SELECT ${groupKeys(g)}, count(*) AS visits, sum(pageviews) AS pageviews,
       count(*) FILTER (WHERE pageviews = 1) AS bounces, sum(duration_ms) AS duration_ms, 0 AS hits
     FROM s ${groupBy(g.cols)}`,
      )
      .join('\nUNION ALL\n')})`,
    // visits minus distinct visitors = the sum over visitors of (their visits - 1), no DISTINCT
    `vb AS (${groups
      .map(
        (g) => `SELECT ${groupKeys(g)}, sum(n) - count(*) AS dup
     FROM (SELECT ${[...g.cols, 'count(*) AS n'].join(', ')} FROM sm ${groupBy([...g.cols, 'visitor_key'])})
     ${groupBy(g.cols)}`,
      )
      .join('\nUNION ALL\n')})`,
  ];
  const parts = [
    `SELECT va.*, coalesce(vb.dup, 0) AS dup FROM va LEFT JOIN vb ON va.section = vb.section
      AND va.day IS NOT DISTINCT FROM vb.day AND va.bkt IS NOT DISTINCT FROM vb.bkt
      AND va.val IS NOT DISTINCT FROM vb.val`,
  ];

  if (input.pagesAndEvents) {
    const eventLocal = localMsSql('visit_start', input.plan, p);
    const filtered = input.filters.length > 0 ? 'AND session_id IN (SELECT session_id FROM s)' : '';
    const peSets = input.daily ? '(section, val), (section, day, val)' : '(section, val)';
    const peKeys = `section, ${dayKey} AS day, NULL::BIGINT AS bkt, val`;
    ctes.push(
      `pe AS NOT MATERIALIZED (
        SELECT CASE WHEN kind = 'pv' THEN 'pages' ELSE 'events' END AS section,
          CASE WHEN kind = 'pv' THEN path ELSE name END AS val, visitor_key, visit_first,
          ${eventLocal} // ${DAY} AS day
        FROM events
        WHERE site = ${site} AND kind IN ('pv', 'ev') AND visit_start >= ${start} AND visit_start < ${end} ${filtered})`,
      `pa AS (SELECT ${peKeys}, count(*) FILTER (WHERE visit_first) AS visits, 0 AS pageviews, 0 AS bounces,
         0 AS duration_ms, count(*) AS hits
       FROM pe GROUP BY GROUPING SETS (${peSets}))`,
      `pb AS (SELECT ${peKeys}, count(*) - count(DISTINCT visitor_key) AS dup
       FROM (SELECT * FROM pe SEMI JOIN multi USING (visitor_key) WHERE visit_first)
       GROUP BY GROUPING SETS (${peSets}))`,
    );
    parts.push(
      `SELECT pa.*, coalesce(pb.dup, 0) AS dup FROM pa LEFT JOIN pb ON pa.section = pb.section
        AND pa.day IS NOT DISTINCT FROM pb.day AND pa.val IS NOT DISTINCT FROM pb.val`,
    );
  }

  const limit = p.add(input.limit);
  const sql = `WITH ${ctes.join(',\n')},
    rows AS (${parts.join('\nUNION ALL\n')})
    SELECT section, day::DOUBLE AS day, bkt::DOUBLE AS bkt, val, (visits - dup)::DOUBLE AS visitors,
      visits::DOUBLE AS visits, pageviews::DOUBLE AS pageviews, bounces::DOUBLE AS bounces,
      duration_ms::DOUBLE AS duration_ms, hits::DOUBLE AS hits
    FROM rows
    QUALIFY section IN ('total', 'chart')
      OR row_number() OVER (PARTITION BY section, day ORDER BY visits - dup DESC, val ASC NULLS LAST) <= ${limit}`;
  return p.query(sql);
}
