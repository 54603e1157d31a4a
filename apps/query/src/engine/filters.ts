import type { GoalMatch } from './goals-sql.ts';
import type { Filter, VisitDimension } from './report-params.ts';
import type { Params } from './sql-params.ts';

/** The `sessions` column behind each visit dimension. */
export const DIMENSION_COLUMNS: Record<VisitDimension, string> = {
  channel: 'channel',
  referrer: 'referrer',
  entry_page: 'entry_page',
  exit_page: 'exit_page',
  campaign: 'utm_campaign',
  source: 'utm_source',
  medium: 'utm_medium',
  term: 'utm_term',
  content: 'utm_content',
  country: 'country',
  region: 'region',
  city: 'city',
  device: 'device',
  browser: 'browser',
  os: 'os',
  language: 'language',
};

/** The events a `page`, `event` or `hostname` filter looks for, and the column it compares. */
export const EVENT_FILTER_COLUMNS = {
  page: "kind = 'pv' AND path",
  event: "kind = 'ev' AND name",
  hostname: "kind = 'pv' AND host",
} as const;

export const isEventFilter = (dim: string): dim is keyof typeof EVENT_FILTER_COLUMNS =>
  Object.hasOwn(EVENT_FILTER_COLUMNS, dim);

/**
 * SQL conditions on `sessions` rows for a report's filters, joined with AND.
 *
 * Every filter selects visits, so visitors, visits, pageviews, the chart and every breakdown
 * describe the same set of visits. Visit dimensions compare the visit's own value (from its
 * first pageview; the visitor's place, device, browser, OS and language come from there too).
 * `page` keeps visits with a pageview of that path, `event` visits with that custom event,
 * `hostname` visits with a pageview on that host.
 * An empty value (`f=referrer:`) matches visits without one.
 *
 * `bounds` are the placeholders of the period's start and end instants: a `page`/`event`
 * filter only looks at events of visits that started in the period.
 */
export function filterSql(
  filters: readonly Filter[],
  site: string,
  bounds: { start: string; end: string },
  p: Params,
): string {
  const parts = filters.map((filter) => {
    if (filter.dim === 'prop' || filter.dim === 'goal') {
      const match = filter.dim === 'prop' ? propCondition(filter.value ?? '', p) : goalCondition(filter, p);
      return `session_id IN (SELECT session_id FROM events WHERE site = ${p.add(site)} AND ${match}
        AND visit_start >= ${bounds.start} AND visit_start < ${bounds.end})`;
    }
    if (isEventFilter(filter.dim)) {
      const kind = EVENT_FILTER_COLUMNS[filter.dim];
      const match = filter.value === null ? `${kind} IS NULL` : `${kind} = ${p.add(filter.value)}`;
      return `session_id IN (SELECT session_id FROM events WHERE site = ${p.add(site)} AND ${match}
        AND visit_start >= ${bounds.start} AND visit_start < ${bounds.end})`;
    }
    const column = DIMENSION_COLUMNS[filter.dim];
    return filter.value === null ? `${column} IS NULL` : `${column} = ${p.add(filter.value)}`;
  });
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

/** A JSON path naming one top-level key, whatever characters it holds. */
export const keyPath = (key: string) => `$."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** `key:value` of a `prop` filter: a custom event whose property `key` is `value` (as text). */
function propCondition(value: string, p: Params): string {
  const colon = value.indexOf(':');
  const key = value.slice(0, colon);
  return `kind = 'ev' AND json_extract_string(props, ${p.add(keyPath(key))}) = ${p.add(value.slice(colon + 1))}`;
}

/** The events that reach a goal (packages/control/src/goals.ts), as conditions on `events`. */
export function goalMatchSql(goal: GoalMatch, p: Params, alias = ''): string {
  const c = (column: string) => `${alias}${column}`;
  if (goal.kind === 'page')
    return `${c('kind')} = 'pv' AND ${c('path')} LIKE ${p.add(likePattern(goal.match))} ESCAPE '\\'`;
  const prop = goal.prop
    ? ` AND json_extract_string(${c('props')}, ${p.add(keyPath(goal.prop.key))}) = ${p.add(goal.prop.value)}`
    : '';
  return `${c('kind')} = 'ev' AND ${c('name')} = ${p.add(goal.match)}${prop}`;
}

function goalCondition(filter: Filter, p: Params): string {
  if (!filter.goal) throw new Error(`the goal filter ${filter.value} was not resolved to a goal`);
  return goalMatchSql(filter.goal, p);
}

/** A path pattern as SQL LIKE: `*` is any run of characters; `%`, `_` and `\` are themselves. */
export const likePattern = (pattern: string) =>
  pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
