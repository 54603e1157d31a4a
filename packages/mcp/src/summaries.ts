/** The parts of the API's answers the tools read (docs/api.md, Reports). */
export interface Site {
  id: string;
  domain: string;
  timezone: string;
  currency: string;
}

export interface Kpis {
  visitors: number;
  visits: number;
  pageviews: number;
  views_per_visit?: number;
  bounce_rate?: number;
  visit_duration?: number;
  revenue?: number;
  customers?: number;
  revenue_per_visitor?: number;
}

export type Row = { value: string | null; visitors: number; revenue?: number; customers?: number } & Record<
  string,
  unknown
>;

export interface Report {
  period: { from: string; to: string };
  bucket: string;
  compare: { from: string; to: string } | null;
  kpis: Kpis;
  compare_kpis: Kpis | null;
  chart: (Record<string, unknown> & { bucket: string; visitors: number })[];
  compare_chart: Record<string, unknown>[] | null;
  breakdowns: Record<string, Row[] | undefined>;
  revenue: { currency: string; attribution: string; payments: string; unattributed: number } | null;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (f: number) => `${Math.round(f * 1000) / 10}%`;
const duration = (s: number) =>
  s >= 60 ? `${Math.floor(s / 60)}m ${Math.round(s % 60)}s` : `${Math.round(s)}s`;
const change = (now: number, before: number | undefined) => {
  if (before === undefined) return '';
  if (before === 0) return now === 0 ? ' (unchanged)' : ' (none before)';
  const d = ((now - before) / before) * 100;
  return ` (${d >= 0 ? '+' : ''}${Math.round(d)}% on the compared period)`;
};
/** An amount in minor units as money: 123456 EUR → "1,234.56 EUR". */
export const money = (minor: number, currency: string) => {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
    .maximumFractionDigits;
  const value = minor / 10 ** (digits ?? 2);
  return `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${currency}`;
};
const span = (p: { from: string; to: string }) => (p.from === p.to ? p.from : `${p.from} to ${p.to}`);

export function reportSummary(site: Site, r: Report, breakdowns: Record<string, Row[]>): string {
  const k = r.kpis;
  const c = r.compare_kpis ?? undefined;
  const parts = [
    `${site.domain}, ${span(r.period)}: ${int(k.visitors)} visitors${change(k.visitors, c?.visitors)}`,
    `${int(k.visits)} visits`,
    `${int(k.pageviews)} pageviews`,
  ];
  if (k.bounce_rate !== undefined) parts.push(`bounce rate ${pct(k.bounce_rate)}`);
  if (k.visit_duration !== undefined) parts.push(`average visit ${duration(k.visit_duration)}`);
  if (r.revenue && k.revenue !== undefined) parts.push(`revenue ${money(k.revenue, r.revenue.currency)}`);
  const tops = Object.entries(breakdowns)
    .map(([name, rows]) =>
      rows[0] ? `top ${name}: ${rows[0].value ?? '(none)'} (${int(rows[0].visitors)})` : '',
    )
    .filter(Boolean);
  return `${parts.join(', ')}.${tops.length ? ` ${tops.join('; ')}.` : ''}`;
}

export function rowsSummary(site: Site, dim: string, p: { from: string; to: string }, rows: Row[]): string {
  if (rows.length === 0) return `${site.domain}, ${span(p)}: no ${dim} rows.`;
  const shown = rows
    .slice(0, 5)
    .map((r) => `${r.value ?? '(none)'} ${int(r.visitors)}`)
    .join(', ');
  return `${site.domain}, ${span(p)}, ${rows.length} ${dim} rows by visitors: ${shown}${rows.length > 5 ? ', …' : ''}.`;
}

export function timeseriesSummary(site: Site, r: Report): string {
  const busiest = [...r.chart].sort((a, b) => b.visitors - a.visitors)[0];
  return `${site.domain}, ${span(r.period)}: ${r.chart.length} ${r.bucket} points, ${int(r.kpis.visitors)} visitors in all${busiest && busiest.visitors > 0 ? `; busiest ${busiest.bucket} (${int(busiest.visitors)})` : ''}.`;
}

export function revenueSummary(site: Site, r: Report, by: Record<string, Row[]>): string {
  const currency = r.revenue?.currency ?? site.currency;
  const k = r.kpis;
  const top = by.channel?.[0];
  return `${site.domain}, ${span(r.period)}: revenue ${money(k.revenue ?? 0, currency)}${change(k.revenue ?? 0, r.compare_kpis?.revenue)} from ${int(k.customers ?? 0)} customers${top ? `; top channel ${top.value ?? '(none)'} (${money(Number(top.revenue), currency)})` : ''}${r.revenue && r.revenue.unattributed > 0 ? `; ${money(r.revenue.unattributed, currency)} not credited to any visit` : ''}.`;
}

/** `GET /api/v1/report`: several sites' report merged (docs/api.md, All sites). */
export interface AllSitesReport {
  period: { from: string; to: string };
  compare: { from: string; to: string } | null;
  time_zones: string[];
  kpis: Kpis;
  compare_kpis: Kpis | null;
  sites: { id: string; domain: string; kpis: Kpis; compare_kpis: Kpis | null; share: number }[];
  breakdowns: Record<string, Row[]>;
}

export function allSitesSummary(r: AllSitesReport, breakdowns: Record<string, Row[]>): string {
  const k = r.kpis;
  const c = r.compare_kpis ?? undefined;
  const head = `${r.sites.length} site${r.sites.length === 1 ? '' : 's'}, ${span(r.period)}: ${int(k.visitors)} visitors${change(k.visitors, c?.visitors)}, ${int(k.visits)} visits, ${int(k.pageviews)} pageviews`;
  const each = r.sites
    .slice(0, 5)
    .map((s) => `${s.domain} ${pct(s.share)}${change(s.kpis.visitors, s.compare_kpis?.visitors)}`)
    .join(', ');
  const tops = Object.entries(breakdowns)
    .map(([name, rows]) =>
      rows[0] ? `top ${name}: ${rows[0].value ?? '(none)'} (${int(rows[0].visitors)})` : '',
    )
    .filter(Boolean);
  return `${head}. By site: ${each}${r.sites.length > 5 ? ', …' : ''}.${tops.length ? ` ${tops.join('; ')}.` : ''}`;
}
