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

/**
 * SQL conditions on `sessions` rows for a report's filters, joined with AND.
 *
 * Every filter selects visits, so visitors, visits, pageviews, the chart and every breakdown
 * describe the same set of visits. Visit dimensions compare the visit's own value (from its
 * first pageview; the visitor's place, device, browser, OS and language come from there too).
 * `page` keeps visits with a pageview of that path, `event` visits with that custom event.
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
    if (filter.dim === 'page' || filter.dim === 'event') {
      const kind = filter.dim === 'page' ? "kind = 'pv' AND path" : "kind = 'ev' AND name";
      const match = filter.value === null ? `${kind} IS NULL` : `${kind} = ${p.add(filter.value)}`;
      return `session_id IN (SELECT session_id FROM events WHERE site = ${p.add(site)} AND ${match}
        AND visit_start >= ${bounds.start} AND visit_start < ${bounds.end})`;
    }
    const column = DIMENSION_COLUMNS[filter.dim];
    return filter.value === null ? `${column} IS NULL` : `${column} = ${p.add(filter.value)}`;
  });
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}
