import {
  type ControlDb,
  IMPORTED_DIMENSIONS,
  type ImportedDay,
  type ImportedDimension,
  type ImportedTotals,
  importedBreakdown,
  importedDays,
  importedRanges,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Bucket, Period, ReportParams } from '../engine/report-params.ts';
import type {
  BreakdownAnswer,
  BreakdownName,
  BreakdownRow,
  Breakdowns,
  ChartPoint,
  EventRow,
  Metrics,
  PageRow,
  Report,
} from '../engine/report-types.ts';

/**
 * Imported data in reports (docs/imports.md): an import's days are added to the native numbers of
 * the same period, as Plausible adds its imported tables. Visitors over several days are summed
 * from daily uniques; a filtered report, hourly buckets, day-by-day breakdowns, goals and revenue
 * read native data only. The answer's `imported` says which days came from an import.
 */
export interface ImportedPart {
  /** the tool the days were imported from (two sources: both, comma-separated) */
  source: string;
  from: string;
  to: string;
}

const isImported = (name: string): name is ImportedDimension =>
  (IMPORTED_DIMENSIONS as readonly string[]).includes(name);

/** The `imported` parameter: `0` leaves imported days out; 400 for anything but 0 or 1. */
export function importedParam(query: Record<string, string | string[] | undefined>): boolean {
  const raw = query['imported'];
  const value = Array.isArray(raw) ? raw.at(-1) : raw;
  if (value === undefined || value === '1') return true;
  if (value === '0') return false;
  throw new AppError('invalid_parameter', 'imported: must be 0 or 1', { field: 'imported' });
}

/** Whether a report of these parameters reads imported days: not with filters, nor `imported=0`. */
export function readsImported(p: { filters: readonly unknown[] }, asked: boolean): boolean {
  return asked && p.filters.length === 0;
}

/** Native metrics back to sums (a rate times its visits), to add imported ones. */
function sumsOf(m: Omit<Metrics, 'views_per_visit'> & { pageviews: number }) {
  return {
    visitors: m.visitors,
    visits: m.visits,
    pageviews: m.pageviews,
    bounces: Math.round(m.bounce_rate * m.visits),
    duration: m.visit_duration * m.visits,
  };
}

function metricsOf(s: {
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  duration: number;
}): Metrics {
  return {
    visitors: s.visitors,
    visits: s.visits,
    pageviews: s.pageviews,
    views_per_visit: s.visits === 0 ? 0 : s.pageviews / s.visits,
    bounce_rate: s.visits === 0 ? 0 : s.bounces / s.visits,
    visit_duration: s.visits === 0 ? 0 : s.duration / s.visits,
  };
}

function addMetrics(native: Metrics, days: readonly ImportedDay[]): Metrics {
  const s = sumsOf(native);
  for (const d of days) {
    s.visitors += d.visitors;
    s.visits += d.visits;
    s.pageviews += d.pageviews;
    s.bounces += d.bounces;
    s.duration += d.duration;
  }
  return metricsOf(s);
}

/** The chart bucket label a local day falls in. */
function bucketOf(day: string, bucket: Bucket): string | null {
  if (bucket === 'day') return day;
  if (bucket === 'month') return `${day.slice(0, 8)}01`;
  if (bucket === 'week') {
    const d = new Date(`${day}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
    return d.toISOString().slice(0, 10);
  }
  return null;
}

function addChart(chart: readonly ChartPoint[], days: readonly ImportedDay[], bucket: Bucket): ChartPoint[] {
  const byBucket = new Map<string, ImportedDay[]>();
  for (const d of days) {
    const label = bucketOf(d.day, bucket);
    if (label !== null) byBucket.set(label, [...(byBucket.get(label) ?? []), d]);
  }
  return chart.map((point) => {
    const add = byBucket.get(point.bucket);
    return add ? { ...point, ...addMetrics(point, add) } : point;
  });
}

const byVisitorsThenValue = (a: { visitors: number; value: string | null }, b: typeof a) =>
  b.visitors - a.visitors ||
  (a.value === b.value ? 0 : a.value === null ? 1 : b.value === null ? -1 : a.value < b.value ? -1 : 1);

/** Native rows of a breakdown and imported totals of the same values, added, reordered, cut to `limit`. */
function addRows(
  name: BreakdownName,
  native: readonly (BreakdownRow | PageRow | EventRow)[],
  imported: readonly ImportedTotals[],
  limit: number,
): (BreakdownRow | PageRow | EventRow)[] {
  const merged = new Map<string | null, BreakdownRow | PageRow | EventRow>();
  for (const row of native) merged.set(row.value, row);
  for (const i of imported) {
    const value = name === 'pages' ? (i.value ?? '') : i.value;
    const row = merged.get(value);
    if (name === 'pages') {
      const p = row as PageRow | undefined;
      merged.set(value, {
        ...p,
        value: value as string,
        visitors: (p?.visitors ?? 0) + i.visitors,
        visits: (p?.visits ?? 0) + i.visits,
        pageviews: (p?.pageviews ?? 0) + i.pageviews,
        // engagement comes from native `en` events only (docs/imports.md)
        scroll_depth: p?.scroll_depth ?? null,
        time_on_page: p?.time_on_page ?? null,
      });
    } else if (name === 'events') {
      const e = row as EventRow | undefined;
      merged.set(value, {
        ...e,
        value,
        visitors: (e?.visitors ?? 0) + i.visitors,
        visits: (e?.visits ?? 0) + i.visits,
        events: (e?.events ?? 0) + i.events,
      });
    } else {
      const b = row as BreakdownRow | undefined;
      const s = b ? sumsOf({ ...b }) : { visitors: 0, visits: 0, pageviews: 0, bounces: 0, duration: 0 };
      const { views_per_visit: _, ...m } = metricsOf({
        visitors: s.visitors + i.visitors,
        visits: s.visits + i.visits,
        pageviews: s.pageviews + i.pageviews,
        bounces: s.bounces + i.bounces,
        duration: s.duration + i.duration,
      });
      merged.set(value, { ...b, value, ...m });
    }
  }
  return [...merged.values()].sort(byVisitorsThenValue).slice(0, limit);
}

/** The imported days of a period, and what the answer says of them (null: none). */
function daysOf(control: ControlDb, site: string, period: Period) {
  const days = importedDays(control, site, period.from, period.to);
  if (days.length === 0) return { days, part: null };
  const from = (days[0] as ImportedDay).day;
  const to = (days.at(-1) as ImportedDay).day;
  // the tools whose imports hold days of this period
  const ranges = importedRanges(control, site).filter((r) => r.from <= to && r.to >= from);
  const part: ImportedPart = {
    source: [...new Set(ranges.map((r) => r.source))].sort().join(', '),
    from,
    to,
  };
  return { days, part };
}

/** A report with the imported days of its period (and of its compared period) added. */
export function withImported(
  control: ControlDb,
  site: string,
  p: ReportParams,
  report: Report,
): Report & { imported: ImportedPart | null } {
  const { days, part } = daysOf(control, site, p.period);
  const compare = p.compare ? importedDays(control, site, p.compare.from, p.compare.to) : [];
  if (part === null && compare.length === 0) return { ...report, imported: null };
  const breakdowns = { ...report.breakdowns } as Breakdowns;
  if (part !== null) {
    for (const [name, rows] of Object.entries(report.breakdowns)) {
      if (!isImported(name) || rows === undefined) continue;
      const imported = importedBreakdown(control, {
        siteId: site,
        dimension: name,
        ...p.period,
        limit: p.limit,
      });
      (breakdowns as Record<string, unknown>)[name] = addRows(name, rows, imported, p.limit);
    }
  }
  return {
    ...report,
    kpis: addMetrics(report.kpis, days),
    chart: addChart(report.chart, days, p.bucket),
    compare_kpis: report.compare_kpis && addMetrics(report.compare_kpis, compare),
    compare_chart: report.compare_chart && addChart(report.compare_chart, compare, p.bucket),
    breakdowns,
    imported: part,
  };
}

/** One breakdown in full with the imported days of its period added. */
export function breakdownWithImported(
  control: ControlDb,
  site: string,
  period: Period,
  limit: number,
  answer: BreakdownAnswer,
  search?: string,
): BreakdownAnswer & { imported: ImportedPart | null } {
  const { days, part } = daysOf(control, site, period);
  if (part === null) return { ...answer, imported: null };
  const dimension = answer.dimension;
  // a breakdown no import holds (hostnames) keeps its native rows; the totals still add up
  const rows = !isImported(dimension)
    ? answer.rows
    : (addRows(
        dimension,
        answer.rows as (BreakdownRow | PageRow | EventRow)[],
        importedBreakdown(control, { siteId: site, dimension, ...period, limit, search }),
        limit,
      ) as BreakdownAnswer['rows']);
  return { ...answer, kpis: addMetrics(answer.kpis, days), rows, imported: part };
}
