import type { Row } from './duckdb.ts';
import { filterSql } from './filters.ts';
import type { Filter } from './report-params.ts';
import { Params } from './sql-params.ts';
import { instant, localMsSql, type TimePlan } from './time-plan.ts';

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
