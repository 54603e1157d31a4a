import { dateFormat } from '../i18n/format.ts';
import type { Bucket, Metric } from './view.ts';

export interface Point {
  bucket: string;
  start: string;
  visitors: number;
  visits: number;
  pageviews: number;
  views_per_visit: number;
  bounce_rate: number;
  visit_duration: number;
  /** with payments only */
  revenue?: number;
}

export interface ChartSeries {
  labels: string[];
  /** the period's values; null for buckets still to come */
  values: (number | null)[];
  /** the bucket that has not ended yet (drawn dashed), or -1 */
  partial: number;
  /** the compared period's values, bucket by bucket from its own start */
  compare: (number | null)[] | null;
  compareLabels: string[] | null;
}

const monthDay = dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthYear = dateFormat({ month: 'short', year: 'numeric', timeZone: 'UTC' });

/** A bucket as people read it: `14:00`, `5 Mar 14:00`, `5 Mar`, `Mar 2026`. */
export function bucketLabel(bucket: string, kind: Bucket, manyDays = false): string {
  const day = Date.parse(`${bucket.slice(0, 10)}T00:00:00Z`);
  if (kind === 'hour') {
    const hour = bucket.slice(11, 16);
    return manyDays ? `${monthDay.format(day)} ${hour}` : hour;
  }
  if (kind === 'month') return monthYear.format(day);
  return monthDay.format(day);
}

/**
 * The main chart's data: the chosen metric per bucket, the bucket in progress (when the period
 * reaches now) and buckets still to come (no value: the line stops at now), and the comparison.
 */
export function chartSeries(
  chart: Point[],
  compare: Point[] | null,
  metric: Metric,
  kind: Bucket,
  now = Date.now(),
): ChartSeries {
  const manyDays = kind === 'hour' && chart.length > 24;
  const starts = chart.map((p) => Date.parse(p.start));
  let partial = -1;
  const values = chart.map((p, i) => {
    if (starts[i]! > now) return null;
    const next = starts[i + 1];
    if (next === undefined ? isCurrent(starts[i]!, kind, now) : next > now) partial = i;
    return p[metric] ?? 0;
  });
  return {
    labels: chart.map((p) => bucketLabel(p.bucket, kind, manyDays)),
    values,
    partial,
    compare: compare ? chart.map((_, i) => compare[i]?.[metric] ?? null) : null,
    compareLabels: compare
      ? chart.map((_, i) => (compare[i] ? bucketLabel(compare[i].bucket, kind, manyDays) : ''))
      : null,
  };
}

const LENGTH_MS: Record<Bucket, number> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 31 * 86_400_000,
};

/** Whether the last bucket, starting at `start`, holds `now` (months are taken as 31 days at most). */
function isCurrent(start: number, kind: Bucket, now: number): boolean {
  return now >= start && now < start + LENGTH_MS[kind];
}

/** A note as the chart places it: its first day, and its words. */
export interface ChartNote {
  date: string;
  end_date: string | null;
  text: string;
}

/**
 * The bucket each note is flagged on, by bucket index: an hour chart flags the first hour of the
 * note's day, a day, week or month chart the bucket holding it. A span is flagged on its first day
 * in the period (a span that began before the period, on the period's first bucket).
 */
export function noteMarks(chart: Point[], kind: Bucket, notes: readonly ChartNote[]): Map<number, string[]> {
  const marks = new Map<number, string[]>();
  const days = chart.map((p) => p.bucket.slice(0, 10));
  if (days.length === 0) return marks;
  for (const note of notes) {
    const day = note.date.localeCompare(days[0]!) < 0 ? days[0]! : note.date;
    let index = -1;
    if (kind === 'hour') index = days.indexOf(day);
    else for (let i = 0; i < days.length && days[i]! <= day; i++) index = i;
    if (index < 0) continue;
    marks.set(index, [...(marks.get(index) ?? []), note.text]);
  }
  return marks;
}

/** Steps between the chart's x-axis labels, in buckets: always whole ones. */
export const AXIS_STEPS = [1, 2, 3, 4, 6, 7, 12, 14, 24, 30, 60, 90, 180, 365];

/** The label at a split of the x axis: its bucket's, none between buckets (never one twice). */
export function axisLabel(labels: readonly string[], split: number): string {
  return Number.isInteger(split) ? (labels[split] ?? '') : '';
}
