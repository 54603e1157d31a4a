import type { Bucket, Period, VisitDimension } from './report-params.ts';

/**
 * The report's JSON shape (documented for API users in README.md), served as it is: field names
 * are snake_case like the rest of the API. Rates are fractions 0..1, durations seconds; a period
 * without visits has zeros, never null.
 */
export interface Metrics {
  /** distinct visitors */
  visitors: number;
  visits: number;
  pageviews: number;
  /** pageviews / visits */
  views_per_visit: number;
  /** visits with exactly one pageview / visits */
  bounce_rate: number;
  /** mean visit duration, seconds */
  visit_duration: number;
}

export interface ChartPoint extends Metrics {
  /** `YYYY-MM-DD` (day, week's Monday, month's 1st) or `YYYY-MM-DDTHH:mm±hh:mm` (hour) */
  bucket: string;
  /** when the bucket begins, ISO 8601 UTC */
  start: string;
}

/** One value of a visit dimension; `value` null means visits without one (for example no referrer). */
export interface BreakdownRow {
  value: string | null;
  visitors: number;
  visits: number;
  pageviews: number;
  bounce_rate: number;
  visit_duration: number;
}

/**
 * One page: pageviews, visits that viewed it and their distinct visitors; the mean deepest
 * scroll (percent) and engaged seconds of the visits that reported engagement with it, null
 * when none did (page-engagement.ts).
 */
export interface PageRow {
  value: string;
  visitors: number;
  visits: number;
  pageviews: number;
  scroll_depth: number | null;
  time_on_page: number | null;
}

/** One custom event name: how often it happened, in how many visits, by how many visitors. */
export interface EventRow {
  value: string | null;
  visitors: number;
  visits: number;
  events: number;
}

export type Breakdowns = Partial<Record<VisitDimension, BreakdownRow[]>> & {
  pages: PageRow[];
  events: EventRow[];
};

/** Breakdowns of one local day. */
export interface DailyBreakdowns {
  day: string;
  breakdowns: Breakdowns;
}

export interface Report {
  time_zone: string;
  period: Period;
  bucket: Bucket;
  compare: Period | null;
  kpis: Metrics;
  compare_kpis: Metrics | null;
  chart: ChartPoint[];
  /** the compared period's chart, bucket by bucket from its own start */
  compare_chart: ChartPoint[] | null;
  breakdowns: Breakdowns;
  /** with `daily=1`: every day of the period in order, else null */
  daily: DailyBreakdowns[] | null;
}

/** What `report/breakdown` can break down: a visit dimension, `pages`, `events` or `hostname`. */
export type BreakdownName = VisitDimension | 'pages' | 'events' | 'hostname';

/** One host of the site's pages: pageviews there, the visits that had one and their visitors. */
export interface HostnameRow {
  value: string;
  visitors: number;
  visits: number;
  pageviews: number;
}

/** One breakdown in full, with the period's totals. */
export interface BreakdownAnswer {
  dimension: BreakdownName;
  period: Period;
  kpis: Metrics;
  rows: BreakdownRow[] | PageRow[] | EventRow[] | HostnameRow[];
}
