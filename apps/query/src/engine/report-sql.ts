import { localToInstant } from './buckets.ts';
import type { Query } from './duckdb.ts';
import { DIMENSION_COLUMNS, filterSql } from './filters.ts';
import type { Bucket, Filter, VisitDimension } from './report-params.ts';
import { rawDayRowsSql, sectionCode, sectionNameSql } from './rollup-sql.ts';
import { Params } from './sql-params.ts';
import { instant, localDay, localMsSql, type TimePlan } from './time-plan.ts';
import { activityKindSql, prevSameValueSql } from './visits-sql.ts';

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
  /** keeps only breakdown rows whose value contains this text, case-insensitively */
  search?: string;
  /**
   * Count visitors from each visit's stored previous visits (`prev_*`, see visits/engine.ts
   * and visits-sql.ts) instead of looking for repeat visitors. Taken only without filters (a
   * filtered-out previous visit would hide a visitor): with filters the report looks for them.
   */
  fast?: boolean;
  /**
   * Local days of the period whose day rollups (rollup-sql.ts) are current, as read just before:
   * the fast way reads those days' rollup rows and only the other days' raw rows (not with hour
   * buckets). The statement also returns a 'check' row counting how many of them are still
   * listed in its own snapshot (the days in progress with the same `through`); fewer than given
   * means a batch changed one meanwhile, and the caller asks again (report.ts). `partial` are the
   * listed days rolled up only so far: their visits from `through` on are read raw.
   */
  rolled?: {
    timeZone: string;
    days: readonly number[];
    partial?: readonly { day: number; through: number }[];
  };
}

/** `(day, first instant of that local day)` rows for every local day of a plan's period. */
function dayStarts(plan: TimePlan, p: Params): string[] {
  const dayOf = (ms: number) => localDay(plan, ms);
  const rows: string[] = [];
  for (let d = dayOf(plan.startMs); d <= dayOf(plan.endMs - 1); d++) {
    rows.push(`(${p.add(d)}::BIGINT, ${p.add(instant(localToInstant(plan, d * DAY)))}::TIMESTAMPTZ)`);
  }
  return rows;
}

const DAY = 86_400_000;
/** Periods longer than this read the fast way's visits inlined (see buildReportQuery). */
const INLINE_AFTER_DAYS = 32;
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

/** The section, day, bucket and value columns every breakdown row carries. */
function keys(section: string, cols: { day?: boolean; bkt?: boolean; val?: string }): string {
  return `'${section}' AS section, ${cols.day ? 'day' : 'NULL::BIGINT'} AS day,
    ${cols.bkt ? 'bkt' : 'NULL::BIGINT'} AS bkt, ${cols.val ?? 'NULL::VARCHAR'} AS val`;
}

const groupBy = (cols: readonly string[]) => (cols.length === 0 ? '' : `GROUP BY ${cols.join(', ')}`);

const VISIT_AGGREGATES = `count(*) AS visits, sum(pageviews) AS pageviews,
  count(*) FILTER (WHERE bounce) AS bounces, sum(duration_ms) AS duration_ms`;
const VISIT_ROLLUP = `sum(visits) AS visits, sum(pageviews) AS pageviews, sum(bounces) AS bounces,
  sum(duration_ms) AS duration_ms`;

/** Visits minus distinct visitors of each `cols` group of `rows`: per visitor, visits - 1. */
const duplicates = (keyList: string, rows: string, cols: readonly string[]) =>
  `SELECT ${keyList}, sum(n) - count(*) AS dup
   FROM (SELECT ${[...cols, 'count(*) AS n'].join(', ')} FROM ${rows} ${groupBy([...cols, 'visitor_key'])})
   ${groupBy(cols)}`;

/**
 * Page or event rows summed from rows keyed by `key`: the visitor where that visitor's first
 * views must be told apart, NULL otherwise, at most one row per group and visitor. A NULL row's
 * first views are each by a different visitor, every other row is one visitor.
 */
const pageSums = (key: string) => `sum(visits) AS visits, 0 AS pageviews, 0 AS bounces, 0 AS duration_ms,
  sum(hits) AS hits, coalesce(sum(visits) FILTER (WHERE ${key} IS NOT NULL), 0) - count(${key}) AS dup`;

/**
 * The sums of breakdown rows `a` with their duplicates `b` (every `b` row has its `a` row, as
 * repeat visits are visits). A GROUP BY over both, not a join: NULL keys group together.
 */
const withDuplicates = (a: string, b: string) =>
  `SELECT section, day, bkt, val, sum(visits) AS visits, sum(pageviews) AS pageviews, sum(bounces) AS bounces,
    sum(duration_ms) AS duration_ms, sum(hits) AS hits, sum(dup) AS dup
   FROM (SELECT *, 0 AS dup FROM ${a}
     UNION ALL SELECT section, day, bkt, val, 0, 0, 0, 0, 0, dup FROM ${b})
   GROUP BY section, day, bkt, val`;

/**
 * One statement for a period: totals (section 'total'), the chart ('chart', key `bkt`), visit
 * breakdowns (section = dimension), pages and custom events, optionally per local day.
 *
 * Distinct visitors without a DISTINCT over every row: a visitor with one visit in the period
 * is one visitor of whatever that visit shows, so `visitors = visits - duplicates`, where the
 * duplicates are counted among the (few) visits of visitors who came more than once (`sm`), as
 * each such visitor's visits in the row minus one. A day's duplicates need two visits of one
 * visitor on that day, so day rows count them among those visits only (`smd`, fewer still).
 * For pages and events the same works on "first view of this path in its visit" rows.
 *
 * With `daily`, each breakdown groups the period's rows by day and value once; the period's
 * sums are rolled up from that small result instead of another pass over every row.
 */
export function buildReportQuery(input: ReportSqlInput): Query {
  if (
    input.fast === true &&
    input.filters.length === 0 &&
    input.bucket !== 'hour' &&
    input.rolled !== undefined &&
    input.rolled.days.length > 0
  ) {
    return buildRolledReportQuery(input, input.rolled);
  }
  const p = new Params();
  const site = p.add(input.site);
  const start = p.add(instant(input.plan.startMs));
  const end = p.add(instant(input.plan.endMs));
  const where = filterSql(input.filters, input.site, { start, end }, p);
  const local = localMsSql('started_at', input.plan, p);
  const dims = input.dimensions;
  const dimCols = dims.map((d) => `${DIMENSION_COLUMNS[d]} AS ${d}`).join(', ');
  const daily = input.daily;

  const fast = input.fast === true && input.filters.length === 0;
  // fast: whether each visit's previous visit (overall, and with the same value of each
  // dimension) started before the period (np*), the chart bucket it started in, and for day
  // rows the previous visits themselves (compared with the local day's start below)
  const prevCols = fast
    ? [
        `(prev_at IS NULL OR prev_at < ${start}) AS np`,
        `${bucketKeySql(input.bucket, 'prev_at', localMsSql('prev_at', input.plan, p))} AS prev_bkt`,
        ...dims.map(
          (d) => `(${prevSameValueSql(d)} IS NULL OR ${prevSameValueSql(d)} < ${start}) AS np_${d}`,
        ),
        ...(daily ? dims.map((d) => `${prevSameValueSql(d)} AS prev_${d}`) : []),
      ]
    : [];
  // a bounce is a visit of exactly one pageview and no custom event (engagement and vitals
  // events are not interaction)
  const visits = `SELECT visitor_key, pageviews, (pageviews = 1 AND events = 0) AS bounce, duration_ms,
        session_id${dimCols ? `, ${dimCols}` : ''},
        ${bucketKeySql(input.bucket, 'started_at', local)} AS bkt, ${local} // ${DAY} AS day
        ${prevCols.map((c) => `, ${c}`).join('')}
      FROM sessions
      WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end} AND ${where}`;
  const ctes: string[] = [];
  // The slow way reads `s` in joins and needs it computed once (inlined, a long period ran out of
  // memory). The fast way reads it in plain GROUP BYs. Over a long period it is inlined: each
  // GROUP BY scans only its own columns of `sessions`, where a materialized `s` outgrew the memory
  // limit and every scan read it back from disk (400 days of 2.3M visits under 256MB: 4.4 s
  // materialized, 1.1 s inlined). Over a short one a materialized `s` fits, and computing its
  // local days once is faster (30 days with day rows: median 201 ms materialized, 250 inlined).
  const longPeriod = input.plan.endMs - input.plan.startMs > INLINE_AFTER_DAYS * DAY;
  const visitsCte = fast && longPeriod ? 's AS NOT MATERIALIZED' : 's AS MATERIALIZED';
  if (fast && daily) {
    // a visit is its visitor's first of the day with its value when the previous visit with that
    // value started before the local day did: the day's first instant comes from this small
    // table (computed from the zone's offsets), not from per-row time zone arithmetic
    ctes.push(`ds(day, day_start) AS (VALUES ${dayStarts(input.plan, p).join(', ')})`);
    ctes.push(`${visitsCte} (
      SELECT x.* EXCLUDE (${dims.map((d) => `prev_${d}`).join(', ')}),
        ${dims.map((d) => `(x.prev_${d} IS NULL OR x.prev_${d} < ds.day_start) AS nd_${d}`).join(', ')}
      FROM (${visits}) x LEFT JOIN ds USING (day))`);
  } else {
    ctes.push(`${visitsCte} (${visits})`);
  }
  if (!fast) {
    // repeat visitors (more than one visit in the period) and, for day rows, their days;
    // twice = more than one visit that day. Only the slow way needs them.
    ctes.push(
      'multi AS (SELECT visitor_key FROM s GROUP BY visitor_key HAVING count(*) > 1)',
      'sm AS MATERIALIZED (SELECT * FROM s SEMI JOIN multi USING (visitor_key))',
    );
    if (daily) {
      ctes.push(
        'mv AS MATERIALIZED (SELECT visitor_key, day, count(*) > 1 AS twice FROM sm GROUP BY visitor_key, day)',
        'smd AS MATERIALIZED (SELECT * FROM sm SEMI JOIN (SELECT * FROM mv WHERE twice) USING (visitor_key, day))',
      );
    }
  }
  const parts = [fast ? fastVisitRows(dims, daily, ctes) : slowVisitRows(dims, daily, ctes)];

  if (input.pagesAndEvents) {
    const eventLocal = localMsSql('visit_start', input.plan, p);
    const filtered = input.filters.length > 0 ? 'AND session_id IN (SELECT session_id FROM s)' : '';
    const section = "CASE WHEN pv THEN 'pages' ELSE 'events' END AS section";
    // mk: the visitor on a repeat visitor's first views, else NULL; dk the same for visitors with
    // more than one visit that day (mv.twice), the only ones a day row could count twice
    const events = `SELECT kind = 'pv' AS pv, CASE WHEN kind = 'pv' THEN path ELSE name END AS val,
        visit_first, visitor_key, ${eventLocal} // ${DAY} AS day
      FROM events
      WHERE site = ${site} AND ${activityKindSql()} AND visit_start >= ${start} AND visit_start < ${end} ${filtered}`;
    const mk =
      'CASE WHEN visit_first AND e.visitor_key IN (SELECT visitor_key FROM multi) THEN e.visitor_key END AS mk';
    const sums = 'count(*) FILTER (WHERE visit_first) AS visits, count(*) AS hits';
    if (fast) {
      // A visitor of a path (event name) is one first view: the one whose previous visit with a
      // first view of it started before the period (day): `prev_view_at`, see visits/engine.ts.
      const newIn = (since: string) =>
        `count(*) FILTER (WHERE visit_first AND (prev_view_at IS NULL OR prev_view_at < ${since}))`;
      const views = `SELECT kind = 'pv' AS pv, CASE WHEN kind = 'pv' THEN path ELSE name END AS val,
          visit_first, prev_view_at, ${eventLocal} // ${DAY} AS day
        FROM events
        WHERE site = ${site} AND ${activityKindSql()} AND visit_start >= ${start} AND visit_start < ${end}`;
      const pageRow = 'visits, 0 AS pageviews, 0 AS bounces, 0 AS duration_ms, hits';
      if (daily) {
        ctes.push(
          `pd AS MATERIALIZED (SELECT pv, val, day, ${sums}, ${newIn('day_start')} AS vday, ${newIn(start)} AS vper
            FROM (${views}) e LEFT JOIN ds USING (day) GROUP BY pv, val, day)`,
        );
        parts.push(
          `SELECT ${section}, day, NULL::BIGINT AS bkt, val, ${pageRow}, visits - vday AS dup FROM pd`,
          `SELECT ${section}, NULL::BIGINT AS day, NULL::BIGINT AS bkt, val, sum(visits) AS visits, 0 AS pageviews,
             0 AS bounces, 0 AS duration_ms, sum(hits) AS hits, sum(visits) - sum(vper) AS dup
           FROM pd GROUP BY pv, val`,
        );
      } else {
        parts.push(
          `SELECT ${section}, NULL::BIGINT AS day, NULL::BIGINT AS bkt, val, ${pageRow}, visits - vper AS dup
           FROM (SELECT pv, val, ${sums}, ${newIn(start)} AS vper FROM (${views}) e GROUP BY pv, val)`,
        );
      }
    } else if (daily) {
      // one pass, two grouping sets: by value and mk for the period, by day, value and dk for
      // days. An event's day is its visit's, so a repeat visitor's events always find their mv row.
      ctes.push(
        `pg AS MATERIALIZED (
          SELECT pv, day, val, mk, dk, GROUPING(day) AS period, ${sums}
          FROM (
            SELECT e.pv, e.val, e.visit_first, e.day,
              CASE WHEN e.visit_first AND mv.visitor_key IS NOT NULL THEN e.visitor_key END AS mk,
              CASE WHEN e.visit_first AND mv.twice THEN e.visitor_key END AS dk
            FROM (${events}) e LEFT JOIN mv ON mv.visitor_key = e.visitor_key AND mv.day = e.day)
          GROUP BY GROUPING SETS ((pv, val, mk), (pv, day, val, dk)))`,
      );
      parts.push(
        `SELECT ${section}, NULL::BIGINT AS day, NULL::BIGINT AS bkt, val, ${pageSums('mk')}
         FROM pg WHERE period = 1 GROUP BY pv, val`,
        `SELECT ${section}, day, NULL::BIGINT AS bkt, val, ${pageSums('dk')}
         FROM pg WHERE period = 0 GROUP BY pv, day, val`,
      );
    } else {
      parts.push(
        `SELECT ${section}, NULL::BIGINT AS day, NULL::BIGINT AS bkt, val, ${pageSums('mk')}
         FROM (SELECT pv, val, ${mk}, ${sums} FROM (${events}) e GROUP BY pv, val, mk)
         GROUP BY pv, val`,
      );
    }
  }

  return p.query(finalSql(input, ctes, parts, p));
}

/** The report's rows from its CTEs and row parts: visitors, then each breakdown's top rows. */
function finalSql(
  input: ReportSqlInput,
  ctes: readonly string[],
  parts: readonly string[],
  p: Params,
): string {
  const limit = p.add(input.limit);
  const search =
    input.search === undefined
      ? ''
      : `WHERE section IN ('total', 'chart', 'check') OR contains(lower(val), lower(${p.add(input.search)}))`;
  return `WITH ${ctes.join(',\n')},
    rows AS (${parts.join('\nUNION ALL\n')})
    SELECT section, day::DOUBLE AS day, bkt::DOUBLE AS bkt, val, (visits - dup)::DOUBLE AS visitors,
      visits::DOUBLE AS visits, pageviews::DOUBLE AS pageviews, bounces::DOUBLE AS bounces,
      duration_ms::DOUBLE AS duration_ms, hits::DOUBLE AS hits
    FROM rows ${search}
    QUALIFY section IN ('total', 'chart')
      OR row_number() OVER (PARTITION BY section, day ORDER BY visits - dup DESC, val ASC NULLS LAST) <= ${limit}`;
}

/**
 * The fast way over day rollups (rollup-sql.ts): the rolled days' rows, plus the same rows
 * computed from raw visits and views for the period's other days (today, and days a batch
 * changed since their rollup was built), then one pass that sums them. A row of local day `day`
 * whose previous same-value visit started on day `p` counts its visits as visitors of a period
 * starting on day a when `p IS NULL OR p < a`, of its day when `p < day`, of a chart bucket when
 * also `p` lies in an earlier bucket. For raw rows `p` comes from the plan's offsets, which are
 * exact inside the period and put any earlier instant before day a: all those tests need.
 */
function buildRolledReportQuery(input: ReportSqlInput, rolled: NonNullable<ReportSqlInput['rolled']>): Query {
  const p = new Params();
  const plan = input.plan;
  const site = p.add(input.site);
  const tz = p.add(rolled.timeZone);
  const firstDay = localDay(plan, plan.startMs);
  const lastDay = localDay(plan, plan.endMs - 1);
  const a = p.add(firstDay);
  const b = p.add(lastDay);
  const rolledSet = new Set(rolled.days);
  const raw: number[] = [];
  for (let d = firstDay; d <= lastDay; d++) if (!rolledSet.has(d)) raw.push(d);
  const dims = input.dimensions;
  const total = sectionCode('total');
  const codes = ['total', ...dims, ...(input.pagesAndEvents ? ['pages', 'events'] : [])]
    .map(sectionCode)
    .sort((x, y) => x - y);
  // a report without deep=1 asks for the first sections: a range the scan can skip by
  const sectFilter = codes.every((code, i) => code === i)
    ? `sect <= ${codes.length - 1}`
    : `sect IN (${codes.join(', ')})`;

  // the period's days that are not rolled up: usually none or today, so rollup rows are
  // picked by a day range and this short list, and raw rows by its first and last day
  const ctes =
    raw.length === 0
      ? []
      : [`unrolled(day) AS (VALUES ${raw.map((d) => `(${p.add(d)}::INTEGER)`).join(', ')})`];
  const rolledRange = `site = ${site} AND tz = ${tz} AND day BETWEEN ${a} AND ${b}${
    raw.length === 0 ? '' : ' AND day NOT IN (SELECT day FROM unrolled)'
  }`;
  const sources = [
    `SELECT sect, day, val, p, visits, pageviews, bounces, duration_ms, hits FROM day_rollup
     WHERE ${rolledRange} AND ${sectFilter}`,
  ];
  // the days in progress rolled up so far (usually today): their later visits are read raw
  const partial = (rolled.partial ?? []).filter((d) => d.day >= firstDay && d.day <= lastDay);
  const partialKeep = partial.map(
    ({ day, through }) => `(day = ${p.add(day)} AND vstart >= ${p.add(instant(through))})`,
  );
  const rawStarts = [...raw.map((d) => localToInstant(plan, d * DAY)), ...partial.map((d) => d.through)];
  const rawEnds = [...raw, ...partial.map((d) => d.day)].map((d) => localToInstant(plan, (d + 1) * DAY));
  if (rawStarts.length > 0) {
    const start = p.add(instant(Math.min(...rawStarts)));
    const end = p.add(instant(Math.max(...rawEnds)));
    // the plan's offsets are exact inside the period and put any earlier instant before day a
    const dayOf = (x: string) =>
      `CASE WHEN ${x} IS NULL OR ${x} = '-infinity'::TIMESTAMPTZ THEN NULL ELSE ${localMsSql(x, plan, p)} // ${DAY} END`;
    const keep = [...(raw.length > 0 ? ['day IN (SELECT day FROM unrolled)'] : []), ...partialKeep].join(
      ' OR ',
    );
    const rows = rawDayRowsSql(
      { site, plan, start, end, dimensions: dims, views: input.pagesAndEvents, dayOf, keep },
      p,
    );
    sources.push(`SELECT * FROM (${rows})`);
  }
  ctes.push(`vr AS (${sources.join('\nUNION ALL\n')})`);

  const sums = `sum(visits) AS visits, sum(pageviews) AS pageviews, sum(bounces) AS bounces,
    sum(duration_ms) AS duration_ms, sum(hits) AS hits`;
  const newIn = (since: string) => `coalesce(sum(visits) FILTER (WHERE p IS NULL OR ${since}), 0)`;
  const bucketOf = (day: string) => bucketKeySql(input.bucket, day, `(${day}::BIGINT * ${DAY})`);
  // the total and the chart from the total's rows, grouped by chart bucket
  ctes.push(`tot AS MATERIALIZED (SELECT ${bucketOf('day')} AS bkt, ${sums},
      ${newIn(`p < ${a}`)} AS vper, ${newIn(`p < ${a} OR ${bucketOf('p')} < ${bucketOf('day')}`)} AS vbkt
    FROM vr WHERE sect = ${total} GROUP BY 1)`);
  const parts = [
    `SELECT 'total' AS section, NULL::BIGINT AS day, NULL::BIGINT AS bkt, NULL::VARCHAR AS val, sum(visits) AS visits,
       sum(pageviews) AS pageviews, sum(bounces) AS bounces, sum(duration_ms) AS duration_ms, sum(hits) AS hits,
       sum(visits) - sum(vper) AS dup
     FROM tot`,
    `SELECT 'chart', NULL, bkt, NULL, visits, pageviews, bounces, duration_ms, hits, visits - vbkt FROM tot`,
    `SELECT 'check', NULL, NULL, NULL, (SELECT count(*) FROM rollup_days WHERE ${rolledRange}${
      partial.length === 0
        ? ''
        : ` AND CASE ${partial.map(({ day, through }) => `WHEN day = ${p.add(day)} THEN day_end = ${p.add(instant(through))}`).join(' ')} ELSE true END`
    }), 0, 0, 0, 0, 0`,
  ];
  if (codes.length > 1) {
    // every breakdown in one pass: by value for the period, and by day and value for day rows
    const sets = input.daily ? 'GROUPING SETS ((sect, val), (sect, day, val))' : 'sect, val';
    ctes.push(`bd AS MATERIALIZED (SELECT sect, ${input.daily ? 'day' : 'NULL::INTEGER AS day'}, val, ${sums},
        ${newIn(`p < ${a}`)} AS vper${input.daily ? `, ${newIn('p < day')} AS vday, GROUPING(day) AS period` : ''}
      FROM vr WHERE sect <> ${total} GROUP BY ${sets})`);
    parts.push(
      `SELECT ${sectionNameSql('sect')}, ${input.daily ? 'CASE WHEN period = 0 THEN day END' : 'NULL'}, NULL, val,
         visits, pageviews, bounces, duration_ms, hits, visits - ${input.daily ? 'CASE WHEN period = 0 THEN vday ELSE vper END' : 'vper'}
       FROM bd`,
    );
  }
  return p.query(finalSql(input, ctes, parts, p));
}

/**
 * Visit rows from repeat visitors (`sm`, `smd`): visitors = visits - duplicates (see
 * buildReportQuery). Pushes its CTEs onto `ctes`.
 */
function slowVisitRows(dims: readonly VisitDimension[], daily: boolean, ctes: string[]): string {
  // The visit sums of every breakdown come from one pass over s with a grouping set per
  // dimension (small hash tables: values, or days and values). Duplicates stay one plain GROUP
  // BY per breakdown: DuckDB builds a hash table per grouping set and thread, and the
  // (value, visitor) tables are large; with count(DISTINCT) beside them a daily report of a
  // million events once ran out of the default 256 MB.
  const sums = [
    `SELECT ${keys('total', {})}, ${VISIT_AGGREGATES}, 0 AS hits FROM s`,
    `SELECT ${keys('chart', { bkt: true })}, ${VISIT_AGGREGATES}, 0 AS hits FROM s GROUP BY bkt`,
  ];
  const dups = [
    duplicates(keys('total', {}), 'sm', []),
    duplicates(keys('chart', { bkt: true }), 'sm', ['bkt']),
  ];
  if (dims.length > 0) {
    const sets = dims.map((d) => (daily ? `(day, ${d})` : `(${d})`)).join(', ');
    ctes.push(
      `dg AS MATERIALIZED (SELECT ${daily ? 'day, ' : ''}${dims.join(', ')}, GROUPING(${dims.join(', ')}) AS g,
        ${VISIT_AGGREGATES} FROM s GROUP BY GROUPING SETS (${sets}))`,
    );
  }
  // GROUPING(d0, d1, ...) has a 1 bit per dimension not grouped, the first one highest
  const setOf = (i: number) => 2 ** dims.length - 1 - 2 ** (dims.length - 1 - i);
  for (const [i, d] of dims.entries()) {
    dups.push(duplicates(keys(d, { val: d }), 'sm', [d]));
    const rows = `FROM dg WHERE g = ${setOf(i)}`;
    if (!daily) {
      sums.push(`SELECT ${keys(d, { val: d })}, visits, pageviews, bounces, duration_ms, 0 AS hits ${rows}`);
      continue;
    }
    sums.push(
      `SELECT ${keys(d, { val: d })}, ${VISIT_ROLLUP}, 0 AS hits ${rows} GROUP BY ${d}`,
      `SELECT ${keys(d, { day: true, val: d })}, visits, pageviews, bounces, duration_ms, 0 AS hits ${rows}`,
    );
    dups.push(duplicates(keys(d, { day: true, val: d }), 'smd', ['day', d]));
  }
  ctes.push(`va AS (${sums.join('\nUNION ALL\n')})`, `vb AS (${dups.join('\nUNION ALL\n')})`);
  return withDuplicates('va', 'vb');
}

/**
 * Visit rows from the stored previous visits: a visit is its visitor's first in the period (or
 * day, or chart bucket) with its value when the previous visit with that value started before
 * it, so visitors are a filtered count in the same pass as the visit sums. A chart bucket is
 * clipped to the period (a week bucket of a period starting on a Wednesday begins then), so a
 * previous visit counts as before it when it lies before the bucket's week or before the period.
 * Rows carry `dup` = visits - visitors like the slow path's. Pushes its CTEs onto `ctes`.
 */
function fastVisitRows(dims: readonly VisitDimension[], daily: boolean, ctes: string[]): string {
  const dup = (isNew: string) => `count(*) - count(*) FILTER (WHERE ${isNew}) AS dup`;
  const rows = [
    `SELECT ${keys('total', {})}, ${VISIT_AGGREGATES}, 0 AS hits, ${dup('np')} FROM s`,
    `SELECT ${keys('chart', { bkt: true })}, ${VISIT_AGGREGATES}, 0 AS hits,
      ${dup('np OR prev_bkt < bkt')} FROM s GROUP BY bkt`,
  ];
  for (const d of dims) {
    if (!daily) {
      rows.push(
        `SELECT ${keys(d, { val: d })}, ${VISIT_AGGREGATES}, 0 AS hits, ${dup(`np_${d}`)} FROM s GROUP BY ${d}`,
      );
      continue;
    }
    // one pass per dimension by day and value; the period's rows are summed from it
    ctes.push(
      `dd_${d} AS MATERIALIZED (SELECT day, ${d}, ${VISIT_AGGREGATES},
        count(*) FILTER (WHERE nd_${d}) AS vday, count(*) FILTER (WHERE np_${d}) AS vper
        FROM s GROUP BY day, ${d})`,
    );
    rows.push(
      `SELECT ${keys(d, { day: true, val: d })}, visits, pageviews, bounces, duration_ms, 0 AS hits, visits - vday AS dup
       FROM dd_${d}`,
      `SELECT ${keys(d, { val: d })}, ${VISIT_ROLLUP}, 0 AS hits, sum(visits) - sum(vper) AS dup
       FROM dd_${d} GROUP BY ${d}`,
    );
  }
  return rows.join('\nUNION ALL\n');
}
