import { localToInstant } from './buckets.ts';
import type { Query } from './duckdb.ts';
import { DIMENSION_COLUMNS } from './filters.ts';
import { VISIT_DIMENSIONS, type VisitDimension } from './report-params.ts';
import { Params } from './sql-params.ts';
import { instant, localMsSql, type TimePlan } from './time-plan.ts';
import { activityKindSql, prevSameValueSql } from './visits-sql.ts';

/**
 * Day rollups (schema version 8): per site, time zone and local day, what an unfiltered report
 * reads of that day, in rows of
 *
 *   (sect, val, p) -> visits, pageviews, bounces, duration_ms, hits
 *
 * where `sect` is the total, a visit dimension, pages or events (ROLLUP_SECTIONS), `val` the
 * value, and `p` the local day on which the previous visit (view) with that value started, NULL
 * when there was none. A report over local days a..b counts a visit as its visitor's first with its value when
 * its previous one started before day a (`p IS NULL OR p < a`), exactly as the fast way does with
 * the stored previous visits (report-sql.ts), so visitors stay exact; a day row compares `p` with
 * the row's day, a chart bucket with the bucket `p` falls in. For pages and events, `visits` are
 * first views (`p` their previous visit's first view of the path or name) and `hits` every view;
 * a view that is not its visit's first has `p` NULL and adds hits only.
 *
 * `rollup_days` lists the days whose rows are current, each with the instant its rows end
 * (`day_end`): the day's end, or for the day in progress the start of the visits still left
 * raw (rows of visits that start before it). The loader removes every listing that ends after
 * the earliest visit start a batch rebuilds (visits before it keep their rows and their
 * previous visits), in the batch's transaction; the engine builds days a report asked for
 * again on the writer (rollups.ts). Reports read the rows of the days listed and count the other
 * days, and the visits of a day in progress from its `day_end` on, from raw visits and views
 * (report-sql.ts).
 */

const DAY = 86_400_000;

/**
 * Sections a rollup day holds, stored as their index here (`sect`, UTINYINT): the total, the
 * dimensions every report shows, pages and custom events, then those shown only with `deep=1`
 * (report.ts DEEP_DIMENSIONS). So a report without `deep` reads a range, `sect <= 13`. Written
 * out rather than derived from VISIT_DIMENSIONS: the codes are stored, so reordering a list
 * elsewhere must not renumber them (rollups.test.ts checks the list against the dimensions).
 */
export const ROLLUP_SECTIONS: readonly string[] = [
  'total',
  'channel',
  'referrer',
  'entry_page',
  'campaign',
  'source',
  'medium',
  'country',
  'device',
  'browser',
  'os',
  'language',
  'pages',
  'events',
  'exit_page',
  'term',
  'content',
  'region',
  'city',
  'engagement',
];

/**
 * The `engagement` section holds, per (local day, page), what page-engagement.ts averages: of
 * the day's visits that sent engagement (`en` events) for the page, in the section's columns
 * `visits`: how many reported engaged time and `duration_ms` the sum of their engaged ms;
 * `hits`: how many reported a scroll and `pageviews` the sum of their deepest scroll (percent);
 * `p` NULL, `bounces` 0. The sums of any set of days give the exact means (schema version 10).
 */
export const ENGAGEMENT_SECTION = 'engagement';

/** The stored code of a rollup section. */
export function sectionCode(section: string): number {
  const code = ROLLUP_SECTIONS.indexOf(section);
  if (code < 0) throw new Error(`no rollup section ${section}`);
  return code;
}

/** SQL for the section name of code `sect` (the names are the builder's own words). */
export const sectionNameSql = (sect: string): string =>
  `[${ROLLUP_SECTIONS.map((x) => `'${x}'`).join(', ')}][${sect} + 1]`;

/**
 * The local day number of TIMESTAMPTZ `x` (NULL for NULL or -infinity, both "none"), exact for
 * every instant: from `exactFrom` on (where the plan's offsets are right) by the plan's offset
 * arithmetic, before it through ICU.
 */
function exactDaySql(x: string, plan: TimePlan, tz: string, exactFrom: string, p: Params): string {
  return `CASE WHEN ${x} IS NULL OR ${x} = '-infinity'::TIMESTAMPTZ THEN NULL
    WHEN ${x} < ${exactFrom} THEN (timezone(${tz}, ${x})::DATE - DATE '1970-01-01')
    ELSE ${localMsSql(x, plan, p)} // ${DAY} END::INTEGER`;
}

/**
 * The statements that (re)build the rollup of local days `firstDay..lastDay` of `site` in
 * `plan`'s zone (a plan of exactly those days), to run in one transaction on the writer. With
 * `through` (the day in progress, `firstDay` = `lastDay`), only the visits that start before it.
 */
export function buildRollupStatements(
  site: string,
  plan: TimePlan,
  firstDay: number,
  lastDay: number,
  through?: number,
): Query[] {
  const scope = (p: Params) =>
    `site = ${p.add(site)} AND tz = ${p.add(plan.timeZone)} AND day BETWEEN ${p.add(firstDay)} AND ${p.add(lastDay)}`;
  return [
    statement((p) => `DELETE FROM day_rollup WHERE ${scope(p)}`),
    statement((p) => `DELETE FROM rollup_days WHERE ${scope(p)}`),
    statement(
      (p) => `INSERT INTO day_rollup ${rollupRowsSql(site, plan, plan.startMs, through ?? plan.endMs, p)}`,
    ),
    statement((p) => {
      const ends: string[] = [];
      for (let d = firstDay; d <= lastDay; d++) {
        const end = through ?? localToInstant(plan, (d + 1) * DAY);
        ends.push(`(${p.add(d)}::INTEGER, ${p.add(instant(end))}::TIMESTAMPTZ)`);
      }
      return `INSERT INTO rollup_days SELECT ${p.add(site)}, ${p.add(plan.timeZone)}, d, e
        FROM (VALUES ${ends.join(', ')}) t(d, e)`;
    }),
  ];
}

/**
 * The statements that extend the rollup of the day in progress `day` (a plan of that day),
 * listed as holding the visits that start before `from`, to those that start before `through`:
 * the new visits' rows are added beside the old ones (a report sums rows of one key).
 */
export function extendRollupStatements(
  site: string,
  plan: TimePlan,
  day: number,
  from: number,
  through: number,
): Query[] {
  return [
    statement((p) => `INSERT INTO day_rollup ${rollupRowsSql(site, plan, from, through, p)}`),
    statement(
      (p) => `UPDATE rollup_days SET day_end = ${p.add(instant(through))}
        WHERE site = ${p.add(site)} AND tz = ${p.add(plan.timeZone)} AND day = ${p.add(day)}`,
    ),
  ];
}

const statement = (build: (p: Params) => string): Query => {
  const p = new Params();
  return p.query(build(p));
};

/**
 * The rollup rows of the visits of `plan`'s local days that start in [`start`, `end`) (see
 * above), with their site and zone, in order.
 */
function rollupRowsSql(site: string, plan: TimePlan, start: number, end: number, p: Params): string {
  const s = p.add(site);
  const tz = p.add(plan.timeZone);
  // the plan's offsets hold from two days before its start (time-plan.ts, MARGIN)
  const exactFrom = p.add(instant(plan.startMs - DAY));
  const rows = rawDayRowsSql(
    {
      site: s,
      plan,
      start: p.add(instant(start)),
      end: p.add(instant(end)),
      dimensions: VISIT_DIMENSIONS,
      views: true,
      engagement: true,
      dayOf: (x) => exactDaySql(x, plan, tz, exactFrom, p),
    },
    p,
  );
  // in day and section order: a day range or a section range skips whole row groups
  return `SELECT ${s}, ${tz}, day, sect, val, p, visits, pageviews, bounces, duration_ms, hits
    FROM (${rows}) ORDER BY day, sect`;
}

/**
 * Rollup rows computed from raw visits starting in [`start`, `end`) and the views of those
 * visits (`views`): `sect, day, val, p, visits, pageviews, bounces, duration_ms, hits`, for the
 * total and `dimensions`. `dayOf` gives the local day number of a TIMESTAMPTZ column, NULL for
 * none (NULL or -infinity); `keep`, when given, is a condition the rows must meet on `day` and
 * `vstart` (the start of the visit). What the builder stores, and what a report computes for the
 * days (and the part of a day) it does not read from rollups.
 */
export function rawDayRowsSql(
  o: {
    /** the site's placeholder */
    site: string;
    plan: TimePlan;
    start: string;
    end: string;
    dimensions: readonly VisitDimension[];
    views: boolean;
    /** also the engagement section (see ENGAGEMENT_SECTION): what the builder stores */
    engagement?: boolean;
    dayOf: (column: string) => string;
    keep?: string;
  },
  p: Params,
): string {
  const keep = o.keep === undefined ? '' : `WHERE ${o.keep}`;
  const at = (column: string) => (o.keep === undefined ? '' : `${column} AS vstart, `);
  const visits = `SELECT * FROM (
      SELECT ${at('started_at')}pageviews, (pageviews = 1 AND events = 0) AS bounce, duration_ms,
        ${localMsSql('started_at', o.plan, p)} // ${DAY} AS day, ${o.dayOf('prev_at')} AS p_total
        ${o.dimensions.map((d) => `, ${DIMENSION_COLUMNS[d]} AS ${d}, ${o.dayOf(prevSameValueSql(d))} AS p_${d}`).join('')}
      FROM sessions WHERE site = ${o.site} AND started_at >= ${o.start} AND started_at < ${o.end}) ${keep}`;
  const sums = 'count(*), sum(pageviews), count(*) FILTER (WHERE bounce), sum(duration_ms), 0';
  const parts = [
    `SELECT ${sectionCode('total')} AS sect, day, NULL::VARCHAR AS val, p_total AS p, count(*) AS visits,
       sum(pageviews) AS pageviews, count(*) FILTER (WHERE bounce) AS bounces, sum(duration_ms) AS duration_ms,
       0 AS hits
     FROM rs GROUP BY day, p_total`,
    ...o.dimensions.map(
      (d) => `SELECT ${sectionCode(d)}, day, ${d}, p_${d}, ${sums} FROM rs GROUP BY day, ${d}, p_${d}`,
    ),
  ];
  if (o.views) {
    parts.push(`SELECT CASE WHEN pv THEN ${sectionCode('pages')} ELSE ${sectionCode('events')} END, day, val, p,
        count(*) FILTER (WHERE visit_first), 0, 0, 0, count(*)
      FROM (
        SELECT ${at('visit_start')}kind = 'pv' AS pv, CASE WHEN kind = 'pv' THEN path ELSE name END AS val, visit_first,
          ${localMsSql('visit_start', o.plan, p)} // ${DAY} AS day,
          CASE WHEN visit_first THEN ${o.dayOf('prev_view_at')} END AS p
        FROM events
        WHERE site = ${o.site} AND ${activityKindSql()} AND visit_start >= ${o.start} AND visit_start < ${o.end}) ${keep}
      GROUP BY pv, val, day, p`);
  }
  if (o.engagement) {
    // a page whose visits sent only engaged time, or only a scroll, has a count of 0 and a sum of
    // nothing for the other: 0, as the columns are NOT NULL (the mean stays none)
    const rows = engagementDayRowsSql(
      { site: o.site, plan: o.plan, start: o.start, end: o.end, keep: o.keep },
      p,
    );
    parts.push(`SELECT ${sectionCode(ENGAGEMENT_SECTION)}, day, val, NULL::INTEGER, ms_n,
        coalesce(depth_sum, 0)::BIGINT, 0, coalesce(ms_sum, 0), depth_n
      FROM (${rows})`);
  }
  return `WITH rs AS MATERIALIZED (${visits}) ${parts.join('\nUNION ALL\n')}`;
}

/**
 * Per local day (of the visit's start) and page, from raw `en` events of the visits starting in
 * [`start`, `end`): `day, val, ms_n, ms_sum, depth_n, depth_sum`, where each visit counts once
 * per page with its summed engaged ms and its deepest scroll, and `_n` counts the visits that
 * reported each (the engagement section's sums, ENGAGEMENT_SECTION). `keep`, when given, is a
 * condition on `day` and `vstart` (the visit's start); `paths`, the pages asked about (all when
 * left out).
 */
export function engagementDayRowsSql(
  o: { site: string; plan: TimePlan; start: string; end: string; keep?: string | undefined; paths?: string },
  p: Params,
): string {
  return `SELECT day, val, count(ms) AS ms_n, sum(ms) AS ms_sum, count(depth) AS depth_n, sum(depth) AS depth_sum
    FROM (
      SELECT session_id, path AS val, day, max(scroll) AS depth, sum(engaged_ms) AS ms
      FROM (
        SELECT visit_start AS vstart, session_id, path, scroll, engaged_ms,
          ${localMsSql('visit_start', o.plan, p)} // ${DAY} AS day
        FROM events
        WHERE site = ${o.site} AND kind = 'en' AND visit_start >= ${o.start} AND visit_start < ${o.end}
          ${o.paths === undefined ? '' : `AND path IN (${o.paths})`})
      ${o.keep === undefined ? '' : `WHERE ${o.keep}`}
      GROUP BY session_id, path, day)
    GROUP BY day, val`;
}

/**
 * Removes from `rollup_days` every day of a site that ends after the earliest visit start the
 * batch rebuilds there (the `affected` table's `lo`): those days' rows may no longer be current.
 */
export const INVALIDATE_ROLLUP_DAYS_SQL = `
DELETE FROM rollup_days USING (SELECT site, min(lo) AS lo FROM affected GROUP BY site) a
WHERE rollup_days.site = a.site AND rollup_days.day_end > a.lo`;
