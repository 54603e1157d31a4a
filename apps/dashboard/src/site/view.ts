import { href } from '../href.ts';
import { DEFAULT_PERIOD, isDay, PERIODS, type PeriodKey } from './period.ts';

export type CompareKey = 'off' | 'previous' | 'year' | 'custom';
export type Metric =
  | 'visitors'
  | 'visits'
  | 'pageviews'
  | 'views_per_visit'
  | 'bounce_rate'
  | 'visit_duration'
  | 'revenue';
export type Bucket = 'hour' | 'day' | 'week' | 'month';

export const METRICS: readonly Metric[] = [
  'visitors',
  'visits',
  'pageviews',
  'views_per_visit',
  'bounce_rate',
  'visit_duration',
];
/** Shown beside METRICS when the site has a payment connection. */
export const REVENUE_METRIC: Metric = 'revenue';
const BUCKETS: readonly Bucket[] = ['hour', 'day', 'week', 'month'];
const COMPARES: readonly CompareKey[] = ['off', 'previous', 'year', 'custom'];

/**
 * What a site's report shows, all of it in the query string (docs/dashboard.md): the period, the
 * comparison, the filters (`f=dimension:value`, repeated), the chart's metric and bucket, and the
 * panel open in full with its search.
 */
export interface View {
  period: PeriodKey;
  from?: string;
  to?: string;
  compare: CompareKey;
  cfrom?: string;
  cto?: string;
  filters: string[];
  metric: Metric;
  bucket?: Bucket;
  panel?: string;
  search?: string;
  /**
   * a saved segment by its id: the report opens with its filters as they are now (a link to a
   * segment follows its later changes), then the URL names the filters (Report.tsx)
   */
  segment?: string;
}

const oneOf = <T extends string>(list: readonly T[], value: string | null, fallback: T): T =>
  list.includes(value as T) ? (value as T) : fallback;

/** A saved segment's id as the URL names it, or undefined for anything else. */
const segmentId = (v: string | null): string | undefined => (v && /^[\w-]{1,64}$/.test(v) ? v : undefined);

export function readView(params: URLSearchParams): View {
  const day = (name: string) => {
    const v = params.get(name);
    return isDay(v) ? v : undefined;
  };
  return {
    period: oneOf(
      PERIODS.map((p) => p.key),
      params.get('period'),
      DEFAULT_PERIOD,
    ),
    from: day('from'),
    to: day('to'),
    compare: oneOf(COMPARES, params.get('compare'), 'off'),
    cfrom: day('cfrom'),
    cto: day('cto'),
    filters: [...new Set(params.getAll('f').filter((f) => /^[a-z_]+:/.test(f)))].slice(0, 20),
    metric: oneOf([...METRICS, REVENUE_METRIC], params.get('metric'), 'visitors'),
    bucket: (BUCKETS as readonly string[]).includes(params.get('bucket') ?? '')
      ? (params.get('bucket') as Bucket)
      : undefined,
    panel: params.get('panel') || undefined,
    search: params.get('search') || undefined,
    segment: segmentId(params.get('segment')),
  };
}

/** The URL of `view` on `path`, writing only what differs from the defaults. */
export function viewHref(path: string, view: View): string {
  const custom = view.period === 'custom';
  const compareCustom = view.compare === 'custom';
  return href(path, {
    period: view.period === DEFAULT_PERIOD ? undefined : view.period,
    from: custom ? view.from : undefined,
    to: custom ? view.to : undefined,
    compare: view.compare === 'off' ? undefined : view.compare,
    cfrom: compareCustom ? view.cfrom : undefined,
    cto: compareCustom ? view.cto : undefined,
    f: view.filters,
    metric: view.metric === 'visitors' ? undefined : view.metric,
    bucket: view.bucket,
    panel: view.panel,
    search: view.panel ? view.search : undefined,
    segment: view.segment,
  });
}

/** The filter's dimension and value (`country:FR` → [country, FR]; the value may hold colons). */
export function splitFilter(filter: string): [string, string] {
  const i = filter.indexOf(':');
  return [filter.slice(0, i), filter.slice(i + 1)];
}

/**
 * `view` narrowed to visits whose `dimension` is `value` (null: visits without one). A filter on
 * the same dimension is replaced, since a visit has one value of each; the chart bucket is kept.
 */
export function withFilter(view: View, dimension: string, value: string | null): View {
  const kept = view.filters.filter((f) => splitFilter(f)[0] !== dimension);
  return { ...view, filters: [...kept, `${dimension}:${value ?? ''}`], panel: undefined, search: undefined };
}

export function withoutFilter(view: View, filter: string): View {
  return { ...view, filters: view.filters.filter((f) => f !== filter) };
}

/** The period changed; a custom range carries its days, and an unfit chart bucket is dropped. */
export function withPeriod(view: View, period: PeriodKey, range?: { from: string; to: string }): View {
  return { ...view, period, from: range?.from, to: range?.to, bucket: undefined };
}
