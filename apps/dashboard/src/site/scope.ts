import type { Schema } from '../api/client.ts';
import type { Range } from './period.ts';
import { type View, viewHref } from './view.ts';

/** What every part of a site's report reads: the site, the view from the URL and its days. */
export interface Scope {
  site: Schema<'Site'>;
  /** the report's path, `/sites/<id>` */
  path: string;
  view: View;
  range: Range;
  today: string;
  firstDay: string | null;
  /** grows when the data in view should be asked for again (use-refresh.ts); part of dataKey */
  refresh?: number;
}

/** The period and filters as the API's report parameters. */
export function periodQuery(scope: Scope) {
  return {
    from: scope.range.from,
    to: scope.range.to,
    f: scope.view.filters.length > 0 ? scope.view.filters : undefined,
  };
}

/**
 * The report's parameters: period, filters, comparison and chart bucket. A named period goes by
 * its name (resolved in the site's zone by the server), so the URL follows from the page's URL
 * alone and the page's `Link` header has already fetched it (apps/query/src/dashboard.ts,
 * reportPreload: keep the two in step); a custom range and All time go by their days.
 */
export function reportQuery(scope: Scope) {
  const { view } = scope;
  const custom = view.compare === 'custom' && view.cfrom && view.cto;
  const period = view.period === 'custom' || view.period === 'all' ? undefined : view.period;
  const named = period !== undefined;
  return {
    period,
    from: named ? undefined : scope.range.from,
    to: named ? undefined : scope.range.to,
    f: scope.view.filters.length > 0 ? scope.view.filters : undefined,
    compare: view.compare === 'off' || (view.compare === 'custom' && !custom) ? undefined : view.compare,
    cfrom: custom ? view.cfrom : undefined,
    cto: custom ? view.cto : undefined,
    bucket: view.bucket,
  };
}

/** A link to this report with the view changed. */
export function linkTo(
  scope: Pick<Scope, 'path' | 'view'>,
  change: Partial<View> | ((view: View) => View),
): string {
  const next = typeof change === 'function' ? change(scope.view) : { ...scope.view, ...change };
  return viewHref(scope.path, next);
}

/** A key that changes when the data asked for changes (for loads that depend on the view). */
export function dataKey(scope: Scope): string {
  return JSON.stringify([scope.site.id, scope.range, scope.view.filters, scope.refresh ?? 0]);
}

/** Rows of a breakdown whatever their kind, as the Breakdown table takes them. */
export type AnyRows =
  | Schema<'Breakdown'>
  | Schema<'PageRow'>[]
  | Schema<'EventRow'>[]
  | Schema<'HostnameRow'>[];
