import type { BreakdownRow, EventRow, Metrics, PageRow, Report } from './engine/index.ts';
import type { GoalAnswer } from './goals.ts';
import type { RevenueSummary } from './revenue.ts';

/** Columns of `export.csv` (the spec's CSV table); REVENUE_COLUMNS join once a site has payments. */
export const CSV_COLUMNS = [
  'dimension',
  'value',
  'visitors',
  'sessions',
  'pageviews',
  'bounce_rate',
] as const;

export const REVENUE_COLUMNS = ['revenue', 'currency', 'customers'] as const;

/** Columns after those: a page's scroll depth (percent) and time on page (seconds), else empty. */
export const ENGAGEMENT_COLUMNS = ['scroll_depth', 'time_on_page'] as const;

/** Most rows of one breakdown in the export. */
export const CSV_BREAKDOWN_ROWS = 1000;

/**
 * A spreadsheet would run a cell that starts with `=`, `+`, `-` or `@` as a formula: such text
 * values get a leading apostrophe. Fields with commas, quotes or line breaks are quoted (RFC 4180).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const percent = (fraction: number) => Math.round(fraction * 1000) / 10;

type CsvMetrics = {
  visitors: number;
  visits: number;
  pageviews: number;
  bounce_rate?: number;
  revenue?: number;
  customers?: number;
  scroll_depth?: number | null;
  time_on_page?: number | null;
};

/** An amount in minor units as a decimal in major units (`4900` EUR is `49.00`). */
function major(minor: number, currency: string): string {
  const digits =
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

function line(
  dimension: string,
  value: string | null,
  m: CsvMetrics,
  revenue: RevenueSummary | null,
  day: string | null | undefined,
) {
  const cells: (string | number | null)[] = [
    dimension,
    value,
    m.visitors,
    m.visits,
    m.pageviews,
    m.bounce_rate === undefined ? null : percent(m.bounce_rate),
  ];
  if (revenue) {
    const has = m.revenue !== undefined;
    cells.push(
      has ? major(m.revenue!, revenue.currency) : null,
      has ? revenue.currency : null,
      m.customers ?? null,
    );
  }
  cells.push(m.scroll_depth ?? null, m.time_on_page ?? null);
  // with daily=1 the table has a last column, `day`: set on the rows of one day's breakdowns
  if (day !== undefined) cells.push(day);
  return cells.map(csvField).join(',');
}

/**
 * The report as one long table: the total first (and the compared period's total when comparing),
 * then the chart one bucket at a time, then every breakdown with at most 1000 rows each, then
 * the goals (their conversions in the `pageviews` column, as events' counts are; with revenue, what
 * the people who reached each paid). With `daily=1`,
 * every day's breakdowns follow the period's, and a last column `day` names their day.
 * `bounce_rate` is a percentage with one decimal. With revenue (a site with a payment connection),
 * `revenue` is in the site's currency in major units (`49.00`), `currency` names it, and rows
 * that have no revenue (pages, events) leave the three empty. `scroll_depth` and `time_on_page`
 * follow, set on page rows with engagement (page-engagement.ts) and empty on every other row.
 */
export function reportCsv(
  report: Report & { revenue?: RevenueSummary | null; goals?: GoalAnswer[] | null },
): string {
  const revenue = report.revenue ?? null;
  const daily = report.daily ?? null;
  const rows: string[] = [
    [
      ...CSV_COLUMNS,
      ...(revenue ? REVENUE_COLUMNS : []),
      ...ENGAGEMENT_COLUMNS,
      ...(daily ? ['day'] : []),
    ].join(','),
  ];
  let day: string | null | undefined = daily ? null : undefined;
  const line_ = (dimension: string, value: string | null, m: CsvMetrics) =>
    line(dimension, value, m, revenue, day);
  const total = (name: string, m: Metrics, p: { from: string; to: string }) =>
    rows.push(line_(name, `${p.from}..${p.to}`, m));
  total('total', report.kpis, report.period);
  if (report.compare && report.compare_kpis) total('compare_total', report.compare_kpis, report.compare);
  for (const point of report.chart) rows.push(line_(`chart_${report.bucket}`, point.bucket, point));
  const breakdowns = (b: Report['breakdowns']) => {
    const { pages, events, ...dims } = b;
    for (const [dim, list] of Object.entries(dims) as [string, BreakdownRow[]][]) {
      for (const row of list.slice(0, CSV_BREAKDOWN_ROWS)) rows.push(line_(dim, row.value, row));
    }
    for (const row of pages.slice(0, CSV_BREAKDOWN_ROWS) as PageRow[])
      rows.push(line_('page', row.value, row));
    for (const row of events.slice(0, CSV_BREAKDOWN_ROWS) as EventRow[]) {
      rows.push(
        line_('event', row.value, { visitors: row.visitors, visits: row.visits, pageviews: row.events }),
      );
    }
  };
  breakdowns(report.breakdowns);
  // daily=1: every day's breakdowns, the day in the last column
  for (const d of daily ?? []) {
    day = d.day;
    breakdowns(d.breakdowns);
  }
  day = daily ? null : undefined;
  // goals last (spec, CSV export table): the pageviews column holds the conversions
  for (const g of report.goals ?? []) {
    rows.push(
      line_('goal', g.name, {
        visitors: g.visitors,
        visits: g.visits,
        pageviews: g.conversions,
        ...(g.revenue === undefined ? {} : { revenue: g.revenue }),
      }),
    );
  }
  return `${rows.join('\r\n')}\r\n`;
}
