import { DIMENSION_COLUMNS, EVENT_FILTER_COLUMNS, isEventFilter, likePattern } from '../filters.ts';
import type { GoalMatch } from '../goals-sql.ts';
import type { HostnamesInput, PageEngagementInput } from '../page-engagement.ts';
import type { Bucket, Filter, VisitDimension } from '../report-params.ts';
import type { ReportSqlInput } from '../report-sql.ts';
import type { TimePlan } from '../time-plan.ts';
import { chTime } from './rows.ts';

/**
 * The report statement on ClickHouse: the same rows as DuckDB's (report-sql.ts: section, day,
 * bkt, val, visitors, visits, pageviews, bounces, duration_ms, hits; the top rows of each
 * section and day), counted exactly on collapsed rows (`FINAL`, the read rule of DESIGN.md,
 * section 3): visitors are `uniqExact` of visitor keys, never an estimate.
 */

/** Collects a statement's values as typed query parameters (`{p0:Type}`): no value is pasted into SQL. */
export class ChParams {
  readonly values: Record<string, unknown> = {};
  #n = 0;

  add(value: unknown, type: string): string {
    const name = `p${this.#n++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }

  time(ms: number): string {
    return this.add(chTime(ms), "DateTime64(3, 'UTC')");
  }
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Local wall-clock ms of a time column, from the plan's offsets (as time-plan.ts's localMsSql). */
export function localMsSql(column: string, plan: TimePlan, p: ChParams): string {
  const [first, ...rest] = plan.segments;
  if (!first) throw new Error('time plan has no offset segment');
  const ms = `toUnixTimestamp64Milli(${column})`;
  if (rest.length === 0) return `(${ms} + ${p.add(first.offsetMs, 'Int64')})`;
  const arms = [...rest]
    .reverse()
    .map((s) => `${column} >= ${p.time(s.fromMs)}, ${p.add(s.offsetMs, 'Int64')}`)
    .join(', ');
  return `(${ms} + multiIf(${arms}, ${p.add(first.offsetMs, 'Int64')}))`;
}

/** A chart bucket's key, as report-sql.ts's bucketKeySql computes it. */
export function bucketKeySql(bucket: Bucket, column: string, local: string): string {
  switch (bucket) {
    case 'hour':
      return `(toUnixTimestamp64Milli(${column}) - ${local} % ${HOUR})`;
    case 'day':
      return `intDiv(${local}, ${DAY})`;
    case 'week':
      return `intDiv(intDiv(${local}, ${DAY}) + 3, 7)`;
    case 'month': {
      const d = `addDays(toDate('1970-01-01'), intDiv(${local}, ${DAY}))`;
      return `toInt64((toYear(${d}) - 1970) * 12 + toMonth(${d}) - 1)`;
    }
  }
}

/** A custom event property's value as text (a string as itself, anything else as its JSON). */
const propText = (key: string, p: ChParams, alias = '') => {
  const k = p.add(key, 'String');
  return `if(JSONType(${alias}props, ${k}) = 'String', JSONExtractString(${alias}props, ${k}), JSONExtractRaw(${alias}props, ${k}))`;
};

/** The events that reach a goal, as conditions on `events` (filters.ts goalMatchSql). */
export function goalMatchSql(goal: GoalMatch, p: ChParams, alias = ''): string {
  const c = (column: string) => `${alias}${column}`;
  if (goal.kind === 'page')
    return `${c('kind')} = 'pv' AND ${c('path')} LIKE ${p.add(likePattern(goal.match), 'String')}`;
  const prop = goal.prop
    ? ` AND ${propText(goal.prop.key, p, alias)} = ${p.add(goal.prop.value, 'String')}`
    : '';
  return `${c('kind')} = 'ev' AND ${c('name')} = ${p.add(goal.match, 'String')}${prop}`;
}

/**
 * Conditions on `sessions` rows for a report's filters (filters.ts filterSql): a visit's own
 * values, or visits (by visitor key and start) with such an event, among those of the period.
 */
export function filterSql(
  filters: readonly Filter[],
  site: string,
  bounds: { start: string; end: string },
  p: ChParams,
): string {
  const parts = filters.map((filter) => {
    if (filter.dim === 'prop' || filter.dim === 'goal' || isEventFilter(filter.dim)) {
      let match: string;
      if (filter.dim === 'prop') {
        const value = filter.value ?? '';
        const colon = value.indexOf(':');
        match = `kind = 'ev' AND ${propText(value.slice(0, colon), p)} = ${p.add(value.slice(colon + 1), 'String')}`;
      } else if (filter.dim === 'goal') {
        if (!filter.goal) throw new Error(`the goal filter ${filter.value} was not resolved to a goal`);
        match = goalMatchSql(filter.goal, p);
      } else {
        const kind = EVENT_FILTER_COLUMNS[filter.dim];
        match = filter.value === null ? `${kind} IS NULL` : `${kind} = ${p.add(filter.value, 'String')}`;
      }
      // the visits with a live matching event: its rows' signs sum to more than 0 (a rewritten
      // event's -1 is an exact copy of its old +1, so the pair adds nothing), with no FINAL
      return `(visitor_key, started_at) IN (SELECT visitor_key, assumeNotNull(visit_start) FROM events
        WHERE site = ${p.add(site, 'String')} AND ${match}
          AND visit_start >= ${bounds.start} AND visit_start < ${bounds.end}
        GROUP BY visitor_key, visit_start HAVING sum(sign) > 0)`;
    }
    const column = DIMENSION_COLUMNS[filter.dim as VisitDimension];
    return filter.value === null ? `${column} IS NULL` : `${column} = ${p.add(filter.value, 'String')}`;
  });
  return parts.length === 0 ? '1' : parts.join(' AND ');
}

const NULL_INT = 'CAST(NULL AS Nullable(Int64))';

const VISIT_SUMS = `toFloat64(uniqExact(visitor_key)) AS visitors, toFloat64(count()) AS visits,
  toFloat64(sum(pageviews)) AS pageviews, toFloat64(countIf(bounce)) AS bounces,
  toFloat64(sum(duration_ms)) AS duration_ms, toFloat64(0) AS hits`;

/** A grouping set's column, or NULL in the rows of the sets without it. */
const ifGrouped = (column: string, value: string) => `if(grouping(${column}) = 0, ${value}, NULL)`;

/**
 * The report statement (report-sql.ts buildReportQuery's rows) and its parameters: one pass over
 * the period's visits (`GROUPING SETS`: the total, the chart, and each breakdown, per day too)
 * and one over its pages and custom events, each row's section told by which columns it is
 * grouped by (`grouping()`, standard: 0 for a column of the row's set).
 */
export function buildReportQuery(input: ReportSqlInput): { query: string; params: Record<string, unknown> } {
  const p = new ChParams();
  const { plan } = input;
  const site = p.add(input.site, 'String');
  const start = p.time(plan.startMs);
  const end = p.time(plan.endMs);
  const where = filterSql(input.filters, input.site, { start, end }, p);
  const local = localMsSql('started_at', plan, p);
  const dims = input.dimensions;
  const dimCol = (d: string) => `x_${d}`;
  const dimCols = dims.map((d) => `, ${DIMENSION_COLUMNS[d]} AS ${dimCol(d)}`).join('');
  // a bounce is a visit of exactly one pageview and no custom event
  const visits = `SELECT visitor_key, started_at, pageviews, pageviews = 1 AND events = 0 AS bounce, duration_ms${dimCols},
      ${bucketKeySql(input.bucket, 'started_at', local)} AS s_bkt, intDiv(${local}, ${DAY}) AS s_day
    FROM sessions FINAL
    WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end} AND ${where}`;
  const sets = ['()', '(s_bkt)', ...dims.map((d) => `(${dimCol(d)})`)];
  if (input.daily) sets.push(...dims.map((d) => `(s_day, ${dimCol(d)})`));
  const section = `multiIf(grouping(s_bkt) = 0, 'chart', ${dims.map((d) => `grouping(${dimCol(d)}) = 0, '${d}', `).join('')}'total')`;
  const val =
    dims.length === 0
      ? 'CAST(NULL AS Nullable(String))'
      : `multiIf(${dims.map((d) => `grouping(${dimCol(d)}) = 0, CAST(${dimCol(d)} AS Nullable(String)), `).join('')}NULL)`;
  const branches = [
    `SELECT ${section} AS section, ${input.daily ? ifGrouped('s_day', 'toInt64(s_day)') : NULL_INT} AS day,
      ${ifGrouped('s_bkt', 'toInt64(s_bkt)')} AS bkt, ${val} AS val, ${VISIT_SUMS}
    FROM s GROUP BY GROUPING SETS (${sets.join(', ')})`,
  ];
  if (input.pagesAndEvents) {
    const eventLocal = localMsSql('assumeNotNull(visit_start)', plan, p);
    const filtered =
      input.filters.length > 0
        ? 'AND (visitor_key, assumeNotNull(visit_start)) IN (SELECT visitor_key, started_at FROM s)'
        : '';
    // A page's visits are its first views in a visit, its visitors theirs (visits/engine.ts).
    // Summed by sign per visitor, with no FINAL: a rewritten event's -1 cancels its old +1.
    const views = `SELECT kind = 'pv' AS pv, CAST(if(kind = 'pv', path, name) AS Nullable(String)) AS e_val,
        intDiv(${eventLocal}, ${DAY}) AS e_day, visitor_key, sum(sign) AS h, sumIf(sign, visit_first) AS vf
      FROM events
      WHERE site = ${site} AND kind IN ('pv', 'ev') AND visit_start >= ${start} AND visit_start < ${end} ${filtered}
      GROUP BY pv, e_val, e_day, visitor_key`;
    const eventSets = ['(pv, e_val)', ...(input.daily ? ['(pv, e_day, e_val)'] : [])];
    branches.push(`SELECT if(pv, 'pages', 'events') AS section,
        ${input.daily ? ifGrouped('e_day', 'toInt64(e_day)') : NULL_INT} AS day, ${NULL_INT} AS bkt, e_val AS val,
        toFloat64(uniqExactIf(visitor_key, vf > 0)) AS visitors, toFloat64(sum(vf)) AS visits,
        toFloat64(0) AS pageviews, toFloat64(0) AS bounces, toFloat64(0) AS duration_ms, toFloat64(sum(h)) AS hits
      FROM (${views}) GROUP BY GROUPING SETS (${eventSets.join(', ')}) HAVING hits > 0`);
  }
  // the total and each chart bucket are rows of their own; breakdowns keep their top rows per day
  const whole = "section IN ('total', 'chart')";
  const search =
    input.search === undefined
      ? ''
      : `WHERE ${whole} OR positionUTF8(lowerUTF8(val), lowerUTF8(${p.add(input.search, 'String')})) > 0`;
  const query = `WITH s AS (${visits})
    SELECT * FROM (${branches.join('\nUNION ALL\n')}) ${search}
    ORDER BY section, day, visitors DESC, val ASC NULLS LAST
    LIMIT ${p.add(input.limit, 'UInt32')} BY section, day, if(${whole}, bkt, NULL)`;
  return { query, params: p.values };
}

/** `AND` the event's visit is one of the period's filtered visits (nothing without filters). */
function inFilteredVisits(
  input: { site: string; filters: readonly Filter[] },
  at: { site: string; start: string; end: string },
  p: ChParams,
): string {
  if (input.filters.length === 0) return '';
  return `AND (visitor_key, assumeNotNull(visit_start)) IN (SELECT visitor_key, started_at FROM sessions FINAL
    WHERE site = ${at.site} AND started_at >= ${at.start} AND started_at < ${at.end}
      AND ${filterSql(input.filters, input.site, { start: at.start, end: at.end }, p)})`;
}

/**
 * Scroll depth and time on page on ClickHouse (page-engagement.ts: the same rows). Summed by sign
 * with no FINAL, as the pages above: a visit's engaged time is its `en` rows' ms times their
 * signs, its deepest scroll the largest scroll some live row holds.
 */
export function buildPageEngagementQuery(input: PageEngagementInput): {
  query: string;
  params: Record<string, unknown>;
} {
  const p = new ChParams();
  const site = p.add(input.site, 'String');
  const start = p.time(input.plan.startMs);
  const end = p.time(input.plan.endMs);
  const filtered = inFilteredVisits(input, { site, start, end }, p);
  const local = localMsSql('assumeNotNull(visit_start)', input.plan, p);
  const sets = input.daily ? '(val), (e_day, val)' : '(val)';
  const day = input.daily ? ifGrouped('e_day', 'toFloat64(e_day)') : 'CAST(NULL AS Nullable(Float64))';
  const query = `SELECT val, ${day} AS day,
      avg(depth) AS scroll, avg(ms) AS ms
    FROM (
      SELECT visitor_key, vs, val, any(d) AS e_day, maxIf(scroll, n > 0) AS depth, sum(e) AS ms
      FROM (
        SELECT visitor_key, assumeNotNull(visit_start) AS vs, path AS val, intDiv(${local}, ${DAY}) AS d, scroll,
          sum(sign) AS n, sum(engaged_ms * sign) AS e
        FROM events
        WHERE site = ${site} AND kind = 'en' AND visit_start >= ${start} AND visit_start < ${end}
          AND path IN ${p.add(input.paths, 'Array(String)')} ${filtered}
        GROUP BY visitor_key, vs, val, d, scroll)
      GROUP BY visitor_key, vs, val HAVING sum(n) > 0)
    GROUP BY GROUPING SETS (${sets})`;
  return { query, params: p.values };
}

/** The `hostname` breakdown on ClickHouse (page-engagement.ts: the same rows), live rows by sign. */
export function buildHostnamesQuery(input: HostnamesInput): {
  query: string;
  params: Record<string, unknown>;
} {
  const p = new ChParams();
  const site = p.add(input.site, 'String');
  const start = p.time(input.plan.startMs);
  const end = p.time(input.plan.endMs);
  const filtered = inFilteredVisits(input, { site, start, end }, p);
  const search =
    input.search === undefined
      ? ''
      : `AND positionUTF8(lowerUTF8(host), lowerUTF8(${p.add(input.search, 'String')})) > 0`;
  const query = `SELECT val, toFloat64(uniqExact(visitor_key)) AS visitors, toFloat64(uniqExact(visitor_key, vs)) AS visits,
      toFloat64(sum(n)) AS pageviews
    FROM (
      SELECT CAST(host AS String) AS val, visitor_key, assumeNotNull(visit_start) AS vs, sum(sign) AS n
      FROM events
      WHERE site = ${site} AND kind = 'pv' AND visit_start >= ${start} AND visit_start < ${end} ${filtered} ${search}
      GROUP BY val, visitor_key, vs HAVING n > 0)
    GROUP BY val ORDER BY visitors DESC, val ASC LIMIT ${p.add(input.limit, 'UInt32')}`;
  return { query, params: p.values };
}
