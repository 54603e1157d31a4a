import { DIMENSION_COLUMNS, likePattern } from '../filters.ts';
import type { GoalMatch } from '../goals-sql.ts';
import type { Bucket, Filter } from '../report-params.ts';
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
    if (filter.dim === 'prop' || filter.dim === 'goal' || filter.dim === 'page' || filter.dim === 'event') {
      let match: string;
      if (filter.dim === 'prop') {
        const value = filter.value ?? '';
        const colon = value.indexOf(':');
        match = `kind = 'ev' AND ${propText(value.slice(0, colon), p)} = ${p.add(value.slice(colon + 1), 'String')}`;
      } else if (filter.dim === 'goal') {
        if (!filter.goal) throw new Error(`the goal filter ${filter.value} was not resolved to a goal`);
        match = goalMatchSql(filter.goal, p);
      } else {
        const kind = filter.dim === 'page' ? "kind = 'pv' AND path" : "kind = 'ev' AND name";
        match = filter.value === null ? `${kind} IS NULL` : `${kind} = ${p.add(filter.value, 'String')}`;
      }
      return `(visitor_key, started_at) IN (SELECT visitor_key, assumeNotNull(visit_start) FROM events FINAL
        WHERE site = ${p.add(site, 'String')} AND ${match}
          AND visit_start >= ${bounds.start} AND visit_start < ${bounds.end})`;
    }
    const column = DIMENSION_COLUMNS[filter.dim];
    return filter.value === null ? `${column} IS NULL` : `${column} = ${p.add(filter.value, 'String')}`;
  });
  return parts.length === 0 ? '1' : parts.join(' AND ');
}

const NULL_INT = 'CAST(NULL AS Nullable(Int64))';
const NULL_TEXT = 'CAST(NULL AS Nullable(String))';
/** The key columns of a row: section, day, chart bucket and value. */
const head = (section: string, day: string, bkt: string, val: string) =>
  `${section} AS section, ${day} AS day, ${bkt} AS bkt, ${val} AS val`;

const VISIT_SUMS = `toFloat64(uniqExact(visitor_key)) AS visitors, toFloat64(count()) AS visits,
  toFloat64(sum(pageviews)) AS pageviews, toFloat64(countIf(bounce)) AS bounces,
  toFloat64(sum(duration_ms)) AS duration_ms, toFloat64(0) AS hits`;

/** The report statement (report-sql.ts buildReportQuery's rows) and its parameters. */
export function buildReportQuery(input: ReportSqlInput): { query: string; params: Record<string, unknown> } {
  const p = new ChParams();
  const { plan } = input;
  const site = p.add(input.site, 'String');
  const start = p.time(plan.startMs);
  const end = p.time(plan.endMs);
  const where = filterSql(input.filters, input.site, { start, end }, p);
  const local = localMsSql('started_at', plan, p);
  const dims = input.dimensions;
  const dimCols = dims.map((d) => `, ${DIMENSION_COLUMNS[d]} AS ${d}`).join('');
  // a bounce is a visit of exactly one pageview and no custom event
  const visits = `SELECT visitor_key, started_at, pageviews, pageviews = 1 AND events = 0 AS bounce, duration_ms${dimCols},
      ${bucketKeySql(input.bucket, 'started_at', local)} AS bkt, intDiv(${local}, ${DAY}) AS day
    FROM sessions FINAL
    WHERE site = ${site} AND started_at >= ${start} AND started_at < ${end} AND ${where}`;
  const totals = [
    `SELECT ${head("'total'", NULL_INT, NULL_INT, NULL_TEXT)}, ${VISIT_SUMS} FROM s`,
    `SELECT ${head("'chart'", NULL_INT, 'toNullable(toInt64(bkt))', NULL_TEXT)}, ${VISIT_SUMS} FROM s GROUP BY bkt`,
  ];
  const rows: string[] = [];
  for (const d of dims) {
    const val = `CAST(${d} AS Nullable(String))`;
    rows.push(`SELECT ${head(`'${d}'`, NULL_INT, NULL_INT, val)}, ${VISIT_SUMS} FROM s GROUP BY ${d}`);
    if (input.daily) {
      rows.push(
        `SELECT ${head(`'${d}'`, 'toNullable(toInt64(day))', NULL_INT, val)}, ${VISIT_SUMS} FROM s GROUP BY day, ${d}`,
      );
    }
  }
  if (input.pagesAndEvents) {
    const eventLocal = localMsSql('assumeNotNull(visit_start)', plan, p);
    const filtered =
      input.filters.length > 0
        ? 'AND (visitor_key, assumeNotNull(visit_start)) IN (SELECT visitor_key, started_at FROM s)'
        : '';
    // a page's visits are its first views in a visit, its visitors theirs (visits/engine.ts)
    const views = `SELECT kind = 'pv' AS pv, CAST(if(kind = 'pv', path, name) AS Nullable(String)) AS val, visit_first,
        visitor_key, intDiv(${eventLocal}, ${DAY}) AS day
      FROM events FINAL
      WHERE site = ${site} AND kind IN ('pv', 'ev') AND visit_start >= ${start} AND visit_start < ${end} ${filtered}`;
    const sums = `toFloat64(uniqExactIf(visitor_key, visit_first)) AS visitors, toFloat64(countIf(visit_first)) AS visits,
      toFloat64(0) AS pageviews, toFloat64(0) AS bounces, toFloat64(0) AS duration_ms, toFloat64(count()) AS hits`;
    const section = "if(pv, 'pages', 'events')";
    rows.push(`SELECT ${head(section, NULL_INT, NULL_INT, 'val')}, ${sums} FROM (${views}) GROUP BY pv, val`);
    if (input.daily) {
      rows.push(
        `SELECT ${head(section, 'toNullable(toInt64(day))', NULL_INT, 'val')}, ${sums} FROM (${views}) GROUP BY pv, day, val`,
      );
    }
  }
  const search =
    input.search === undefined
      ? ''
      : `WHERE positionUTF8(lowerUTF8(val), lowerUTF8(${p.add(input.search, 'String')})) > 0`;
  const limited =
    rows.length === 0
      ? ''
      : `UNION ALL
    SELECT * FROM (SELECT * FROM (${rows.join('\nUNION ALL\n')}) ${search}
      ORDER BY section, day, visitors DESC, val ASC NULLS LAST LIMIT ${p.add(input.limit, 'UInt32')} BY section, day)`;
  const query = `WITH s AS (${visits})
    SELECT * FROM (${totals.join('\nUNION ALL\n')})
    ${limited}`;
  return { query, params: p.values };
}
