import type { BreakdownRow, ChartPoint, EventRow, Metrics, PageRow, Report } from './engine/report-types.ts';

/**
 * The report of several sites at once (`GET /api/v1/report`, docs/api.md#all-sites), merged from
 * each site's own report, so every site keeps its own days (its time zone), filters and cache:
 *
 * - KPIs and chart points add up: visitors, visits and pageviews are summed (a visitor id belongs
 *   to one site, so no one is counted twice), bounce rate and duration are weighted by visits;
 *   the chart's points are added bucket by bucket (the first day of each site's period with the
 *   first of every other's), an hour labelled by its local time without an offset.
 * - Pages stay one row per site and path (`site` says whose); the other breakdowns add up the rows
 *   of one value across sites, and `sites` says how many visitors each site gave it. A value
 *   counts what each site's own top rows (the report's `limit`) hold of it.
 * - `sites` lists each site's own KPIs, its share of the visitors and the compared KPIs.
 */

/** One site's report as merged: its id and domain beside what its report answered. */
export interface SiteReport {
  id: string;
  domain: string;
  report: Pick<
    Report,
    | 'time_zone'
    | 'period'
    | 'compare'
    | 'bucket'
    | 'kpis'
    | 'compare_kpis'
    | 'chart'
    | 'compare_chart'
    | 'breakdowns'
  >;
}

export interface MergedRow extends BreakdownRow {
  /** visitors each site gave this value, by site id */
  sites: Record<string, number>;
}
export interface MergedEventRow extends EventRow {
  sites: Record<string, number>;
}
export interface SitePageRow extends PageRow {
  site: string;
}

export interface AllSitesReport {
  period: Report['period'];
  compare: Report['compare'];
  bucket: Report['bucket'];
  /** the sites' time zones, each site's days being its own */
  time_zones: string[];
  kpis: Metrics;
  compare_kpis: Metrics | null;
  chart: ChartPoint[];
  compare_chart: ChartPoint[] | null;
  breakdowns: Record<string, MergedRow[] | SitePageRow[] | MergedEventRow[]>;
  sites: {
    id: string;
    domain: string;
    time_zone: string;
    kpis: Metrics;
    compare_kpis: Metrics | null;
    /** this site's visitors over all the sites' visitors, 0..1 */
    share: number;
  }[];
}

const ZERO: Metrics = {
  visitors: 0,
  visits: 0,
  pageviews: 0,
  views_per_visit: 0,
  bounce_rate: 0,
  visit_duration: 0,
};

/** Metrics of several sites as one: counts summed, rates and durations weighted by visits. */
export function addMetrics<T extends Metrics>(parts: readonly T[]): Metrics {
  const visits = parts.reduce((s, m) => s + m.visits, 0);
  const weighted = (f: (m: T) => number) =>
    visits === 0 ? 0 : parts.reduce((s, m) => s + f(m) * m.visits, 0) / visits;
  const pageviews = parts.reduce((s, m) => s + m.pageviews, 0);
  return {
    visitors: parts.reduce((s, m) => s + m.visitors, 0),
    visits,
    pageviews,
    views_per_visit: visits === 0 ? 0 : pageviews / visits,
    bounce_rate: weighted((m) => m.bounce_rate),
    visit_duration: weighted((m) => m.visit_duration),
  };
}

/** Charts added bucket by bucket (each from its own period's start). */
export function addCharts(charts: readonly ChartPoint[][]): ChartPoint[] {
  const length = Math.max(0, ...charts.map((c) => c.length));
  const out: ChartPoint[] = [];
  for (let i = 0; i < length; i++) {
    const points = charts.map((c) => c[i]).filter((p) => p !== undefined);
    const first = points[0]!;
    out.push({
      // an hour's label carries its site's offset; across zones it is the local hour alone
      bucket: first.bucket.replace(/[+-]\d\d:\d\d$/, ''),
      start: first.start,
      ...addMetrics(points),
    });
  }
  return out;
}

const byVisitors = <T extends { visitors: number; value: string | null }>(a: T, b: T) =>
  b.visitors - a.visitors || String(a.value).localeCompare(String(b.value));

/** One dimension's rows of every site, added by value; the `limit` largest. */
export function addRows(
  parts: readonly { site: string; rows: readonly BreakdownRow[] }[],
  limit: number,
): MergedRow[] {
  const byValue = new Map<string | null, { rows: BreakdownRow[]; sites: Record<string, number> }>();
  for (const { site, rows } of parts) {
    for (const row of rows) {
      const slot = byValue.get(row.value) ?? { rows: [], sites: {} };
      slot.rows.push(row);
      slot.sites[site] = (slot.sites[site] ?? 0) + row.visitors;
      byValue.set(row.value, slot);
    }
  }
  return [...byValue]
    .map(([value, { rows, sites }]) => {
      const m = addMetrics(rows.map((r) => ({ ...r, views_per_visit: 0 })));
      return {
        value,
        visitors: m.visitors,
        visits: m.visits,
        pageviews: m.pageviews,
        bounce_rate: m.bounce_rate,
        visit_duration: m.visit_duration,
        sites,
      };
    })
    .sort(byVisitors)
    .slice(0, limit);
}

/** Custom events of every site, added by name. */
function addEvents(parts: readonly { site: string; rows: readonly EventRow[] }[], limit: number) {
  const byValue = new Map<string | null, MergedEventRow>();
  for (const { site, rows } of parts) {
    for (const r of rows) {
      const slot = byValue.get(r.value) ?? { value: r.value, visitors: 0, visits: 0, events: 0, sites: {} };
      slot.visitors += r.visitors;
      slot.visits += r.visits;
      slot.events += r.events;
      slot.sites[site] = (slot.sites[site] ?? 0) + r.visitors;
      byValue.set(r.value, slot);
    }
  }
  return [...byValue.values()].sort(byVisitors).slice(0, limit);
}

/** Merges the reports of several sites (at least one), in the order given. */
export function mergeReports(parts: readonly SiteReport[], limit: number): AllSitesReport {
  const first = parts[0];
  if (!first) throw new Error('mergeReports needs at least one site');
  const kpis = addMetrics(parts.map((p) => p.report.kpis));
  const compared = first.report.compare !== null;
  const breakdowns: AllSitesReport['breakdowns'] = {};
  const names = new Set(parts.flatMap((p) => Object.keys(p.report.breakdowns)));
  for (const name of names) {
    const of = <T>(p: SiteReport) =>
      (p.report.breakdowns as unknown as Record<string, T[] | undefined>)[name] ?? [];
    if (name === 'pages') {
      breakdowns.pages = parts
        .flatMap((p) => of<PageRow>(p).map((r) => ({ ...r, site: p.id })))
        .sort(byVisitors)
        .slice(0, limit);
    } else if (name === 'events') {
      breakdowns.events = addEvents(
        parts.map((p) => ({ site: p.id, rows: of<EventRow>(p) })),
        limit,
      );
    } else {
      breakdowns[name] = addRows(
        parts.map((p) => ({ site: p.id, rows: of<BreakdownRow>(p) })),
        limit,
      );
    }
  }
  return {
    period: first.report.period,
    compare: first.report.compare,
    bucket: first.report.bucket,
    time_zones: [...new Set(parts.map((p) => p.report.time_zone))].sort(),
    kpis,
    compare_kpis: compared ? addMetrics(parts.map((p) => p.report.compare_kpis ?? ZERO)) : null,
    chart: addCharts(parts.map((p) => p.report.chart)),
    compare_chart: compared ? addCharts(parts.map((p) => p.report.compare_chart ?? [])) : null,
    breakdowns,
    sites: parts
      .map((p) => ({
        id: p.id,
        domain: p.domain,
        time_zone: p.report.time_zone,
        kpis: p.report.kpis,
        compare_kpis: p.report.compare_kpis,
        share: kpis.visitors === 0 ? 0 : p.report.kpis.visitors / kpis.visitors,
      }))
      .sort((a, b) => b.kpis.visitors - a.kpis.visitors || a.domain.localeCompare(b.domain)),
  };
}
