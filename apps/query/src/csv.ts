import type { BreakdownRow, EventRow, Metrics, PageRow, Report } from './engine/index.ts';

/** Columns of `export.csv` (the spec's CSV table; revenue columns join once payments exist). */
export const CSV_COLUMNS = [
  'dimension',
  'value',
  'visitors',
  'sessions',
  'pageviews',
  'bounce_rate',
] as const;

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

function line(
  dimension: string,
  value: string | null,
  m: { visitors: number; visits: number; pageviews: number; bounce_rate?: number },
) {
  return [
    dimension,
    value,
    m.visitors,
    m.visits,
    m.pageviews,
    m.bounce_rate === undefined ? null : percent(m.bounce_rate),
  ]
    .map(csvField)
    .join(',');
}

/**
 * The report as one long table: the total first (and the compared period's total when comparing),
 * then the chart one bucket at a time, then every breakdown with at most 1000 rows each.
 * `bounce_rate` is a percentage with one decimal.
 */
export function reportCsv(report: Report): string {
  const rows: string[] = [CSV_COLUMNS.join(',')];
  const total = (name: string, m: Metrics, p: { from: string; to: string }) =>
    rows.push(line(name, `${p.from}..${p.to}`, m));
  total('total', report.kpis, report.period);
  if (report.compare && report.compare_kpis) total('compare_total', report.compare_kpis, report.compare);
  for (const point of report.chart) rows.push(line(`chart_${report.bucket}`, point.bucket, point));
  const { pages, events, ...dims } = report.breakdowns;
  for (const [dim, list] of Object.entries(dims) as [string, BreakdownRow[]][]) {
    for (const row of list.slice(0, CSV_BREAKDOWN_ROWS)) rows.push(line(dim, row.value, row));
  }
  for (const row of pages.slice(0, CSV_BREAKDOWN_ROWS) as PageRow[]) rows.push(line('page', row.value, row));
  for (const row of events.slice(0, CSV_BREAKDOWN_ROWS) as EventRow[]) {
    rows.push(
      line('event', row.value, { visitors: row.visitors, visits: row.visits, pageviews: row.events }),
    );
  }
  return `${rows.join('\r\n')}\r\n`;
}
