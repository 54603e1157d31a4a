import { localToInstant } from './buckets.ts';
import type { Row } from './duckdb.ts';
import { filterSql } from './filters.ts';
import type { Filter } from './report-params.ts';
import { ENGAGEMENT_SECTION, engagementDayRowsSql, sectionCode } from './rollup-sql.ts';
import { Params } from './sql-params.ts';
import { instant, localDay, localMsSql, type TimePlan } from './time-plan.ts';

/**
 * Scroll depth and time on page: what the tracker's `en` events say of the pages a report lists.
 *
 * The tracker sends an `en` event when a page is left or hidden: the engaged milliseconds since
 * its previous one (`engaged_ms`) and the deepest scroll so far in percent (`scroll`). A visit's
 * engagement with a page is the sum of its events' milliseconds and their largest scroll. A page's
 * `scroll_depth` is the mean of that largest scroll over the visits that reported engagement with
 * it (0–100, rounded), its `time_on_page` the mean of their engaged seconds (rounded); both are
 * null for a page no visit reported engagement with. Visits are the report's: those that started
 * in the period, filters applied; a day's row counts the visits that started that local day.
 */
export interface PageEngagementInput {
  site: string;
  plan: TimePlan;
  filters: readonly Filter[];
  /** the pages asked about (the report's top rows) */
  paths: readonly string[];
  /** also per local day of the visits (the report's `daily` rows) */
  daily: boolean;
}

/**
 * The period's days whose day rollups are current (as ReportSqlInput's `rolled`, read just
 * before): the statement takes their engagement from the rollup's `engagement` section and only
 * the other days' (and a day in progress's visits from `through` on) from raw events. No filter:
 * rollups hold every visit.
 */
export interface RolledEngagement {
  timeZone: string;
  days: readonly number[];
  partial: readonly { day: number; through: number }[];
}

/** One page's engagement (see above). */
export interface PageEngagement {
  scroll_depth: number | null;
  time_on_page: number | null;
}

const DAY = 86_400_000;

/** `AND` the event's visit is one of the period's filtered visits (nothing without filters). */
function inFilteredVisits(
  input: { site: string; filters: readonly Filter[] },
  at: { site: string; start: string; end: string },
  p: Params,
): string {
  if (input.filters.length === 0) return '';
  return `AND session_id IN (SELECT session_id FROM sessions
    WHERE site = ${at.site} AND started_at >= ${at.start} AND started_at < ${at.end}
      AND ${filterSql(input.filters, input.site, { start: at.start, end: at.end }, p)})`;
}

/** DuckDB's statement: rows of val (path), day (NULL for the period's), scroll (mean %), ms (mean ms). */
export function buildPageEngagementQuery(input: PageEngagementInput) {
  const p = new Params();
  const site = p.add(input.site);
  const start = p.add(instant(input.plan.startMs));
  const end = p.add(instant(input.plan.endMs));
  const paths = input.paths.map((path) => p.add(path)).join(', ');
  const filtered = inFilteredVisits(input, { site, start, end }, p);
  // a visit's local day only when day rows are asked for: the period's rows need no time zone work
  const day = input.daily ? `${localMsSql('visit_start', input.plan, p)} // ${DAY}` : 'NULL::BIGINT';
  const sets = input.daily ? '(val), (day, val)' : '(val)';
  const dayCol = input.daily ? 'CASE WHEN GROUPING(day) = 0 THEN day END' : 'NULL';
  return p.query(`SELECT val, ${dayCol}::DOUBLE AS day,
      avg(depth)::DOUBLE AS scroll, avg(ms)::DOUBLE AS ms
    FROM (
      SELECT session_id, path AS val, ${input.daily ? 'day' : 'NULL::BIGINT AS day'}, max(scroll) AS depth,
        sum(engaged_ms) AS ms
      FROM (SELECT session_id, path, scroll, engaged_ms, ${day} AS day FROM events
        WHERE site = ${site} AND kind = 'en' AND visit_start >= ${start} AND visit_start < ${end}
          AND path IN (${paths}) ${filtered})
      GROUP BY session_id, path${input.daily ? ', day' : ''})
    GROUP BY GROUPING SETS (${sets})`);
}

/**
 * The same rows over the day rollups (`rolled`, unfiltered input), plus one row with `val` NULL
 * and `day` -1 whose `scroll` counts how many of the listed days the statement's own snapshot
 * still lists as given (the days in progress with the same `through`): fewer means a batch
 * changed one in between, and the caller asks again (report.ts).
 */
export function buildRolledEngagementQuery(input: PageEngagementInput, rolled: RolledEngagement) {
  const p = new Params();
  const { plan } = input;
  const site = p.add(input.site);
  const tz = p.add(rolled.timeZone);
  const firstDay = localDay(plan, plan.startMs);
  const lastDay = localDay(plan, plan.endMs - 1);
  const listed = new Set(rolled.days);
  const raw: number[] = [];
  for (let d = firstDay; d <= lastDay; d++) if (!listed.has(d)) raw.push(d);
  const partial = rolled.partial.filter((d) => d.day >= firstDay && d.day <= lastDay);
  const paths = input.paths.map((path) => p.add(path)).join(', ');
  const rawDays = raw.map((d) => p.add(d)).join(', ');
  const rolledRange = `site = ${site} AND tz = ${tz} AND day BETWEEN ${p.add(firstDay)} AND ${p.add(lastDay)}${
    raw.length === 0 ? '' : ` AND day NOT IN (${rawDays})`
  }`;
  const sources = [
    `SELECT val, day, visits AS ms_n, duration_ms AS ms_sum, hits AS depth_n, pageviews AS depth_sum
     FROM day_rollup WHERE ${rolledRange} AND sect = ${sectionCode(ENGAGEMENT_SECTION)} AND val IN (${paths})`,
  ];
  const rawStarts = [...raw.map((d) => localToInstant(plan, d * DAY)), ...partial.map((d) => d.through)];
  if (rawStarts.length > 0) {
    const rawEnds = [...raw, ...partial.map((d) => d.day)].map((d) => localToInstant(plan, (d + 1) * DAY));
    const keep = [
      ...(raw.length > 0 ? [`day IN (${rawDays})`] : []),
      ...partial.map(({ day, through }) => `(day = ${p.add(day)} AND vstart >= ${p.add(instant(through))})`),
    ].join(' OR ');
    const start = p.add(instant(Math.min(...rawStarts)));
    const end = p.add(instant(Math.max(...rawEnds)));
    sources.push(`SELECT val, day, ms_n, ms_sum, depth_n, depth_sum
      FROM (${engagementDayRowsSql({ site, plan, start, end, keep, paths }, p)})`);
  }
  const sets = input.daily ? '(val), (day, val)' : '(val)';
  const dayCol = input.daily ? 'CASE WHEN GROUPING(day) = 0 THEN day END' : 'NULL';
  const check = partial.length
    ? ` AND CASE ${partial.map(({ day, through }) => `WHEN day = ${p.add(day)} THEN day_end = ${p.add(instant(through))}`).join(' ')} ELSE true END`
    : '';
  return p.query(`WITH eng AS (${sources.join('\nUNION ALL\n')})
    SELECT val, ${dayCol}::DOUBLE AS day,
      CASE WHEN sum(depth_n) > 0 THEN sum(depth_sum)::DOUBLE / sum(depth_n) END AS scroll,
      CASE WHEN sum(ms_n) > 0 THEN sum(ms_sum)::DOUBLE / sum(ms_n) END AS ms
    FROM eng GROUP BY GROUPING SETS (${sets})
    UNION ALL
    SELECT NULL, -1, (SELECT count(*) FROM rollup_days WHERE ${rolledRange}${check})::DOUBLE, NULL`);
}

/** An engine's engagement rows, by `engagementKey` of their day and page. */
export function engagementByKey(rows: readonly Row[]): Map<string, PageEngagement> {
  const out = new Map<string, PageEngagement>();
  for (const row of rows) {
    const day = row['day'] === null || row['day'] === undefined ? null : Number(row['day']);
    const scroll = row['scroll'];
    const ms = row['ms'];
    out.set(engagementKey(day, String(row['val'])), {
      scroll_depth: scroll === null || scroll === undefined ? null : Math.round(Number(scroll)),
      time_on_page: ms === null || ms === undefined ? null : Math.round(Number(ms) / 1000),
    });
  }
  return out;
}

export const engagementKey = (day: number | null, path: string) => `${day ?? ''} ${path}`;

export const NO_ENGAGEMENT: PageEngagement = { scroll_depth: null, time_on_page: null };

/**
 * The `hostname` breakdown: pageviews by the host they were on (its host key: lower case, no
 * `www.`), with the visits that had one there and their distinct visitors, counted outright (a
 * site has few hosts). Visits are the report's, as above; `search` keeps hosts containing it.
 */
export interface HostnamesInput {
  site: string;
  plan: TimePlan;
  filters: readonly Filter[];
  limit: number;
  search?: string | undefined;
}

/** DuckDB's statement: rows of val (host), visitors, visits and pageviews, most visitors first. */
export function buildHostnamesQuery(input: HostnamesInput) {
  const p = new Params();
  const site = p.add(input.site);
  const start = p.add(instant(input.plan.startMs));
  const end = p.add(instant(input.plan.endMs));
  const filtered = inFilteredVisits(input, { site, start, end }, p);
  const search = input.search === undefined ? '' : `AND contains(lower(host), lower(${p.add(input.search)}))`;
  return p.query(`SELECT host AS val, count(DISTINCT visitor_key)::DOUBLE AS visitors,
      count(DISTINCT session_id)::DOUBLE AS visits, count(*)::DOUBLE AS pageviews
    FROM events
    WHERE site = ${site} AND kind = 'pv' AND visit_start >= ${start} AND visit_start < ${end} ${filtered} ${search}
    GROUP BY host ORDER BY visitors DESC, val ASC LIMIT ${p.add(input.limit)}`);
}
