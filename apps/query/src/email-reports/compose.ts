import type { EmailReportKind } from '@footfall/control';
import { escapeHtml } from '../alerts/message.ts';
import type { Metrics, Period } from '../engine/index.ts';

/** What one e-mail report says (docs/email-reports.md); the words are written by `reportMail`. */
export interface ReportMailInput {
  domain: string;
  kind: EmailReportKind;
  period: Period;
  kpis: Metrics & { revenue?: number };
  /** the same numbers for the period before (the week or month before it) */
  before: Metrics & { revenue?: number };
  /** the site's currency when it has a payment connection (the KPIs then carry revenue) */
  currency: string | null;
  sources: TopRow[];
  pages: TopRow[];
  countries: TopRow[];
  /** the report in the dashboard, when the address is known */
  dashboardUrl: string | null;
  /** the signed link that stops this report, when the address is known */
  unsubscribeUrl: string | null;
  /** the `cid:` of the chart image attached inline, or null without one */
  chartCid: string | null;
}

export interface TopRow {
  value: string | null;
  visitors: number;
}

export interface ReportMail {
  subject: string;
  text: string;
  html: string;
}

const number = new Intl.NumberFormat('en');
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** `16–22 Nov 2026`, `28 Dec 2026 – 3 Jan 2027`, or `November 2026`. */
export function periodWords(kind: EmailReportKind, p: Period): string {
  const date = (d: string, o: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat('en-GB', { ...o, timeZone: 'UTC' }).format(Date.parse(`${d}T00:00:00Z`));
  if (kind === 'monthly') return date(p.from, { month: 'long', year: 'numeric' });
  const sameYear = p.from.slice(0, 4) === p.to.slice(0, 4);
  const sameMonth = sameYear && p.from.slice(0, 7) === p.to.slice(0, 7);
  const to = date(p.to, { day: 'numeric', month: 'short', year: 'numeric' });
  if (sameMonth) return `${Number(p.from.slice(8))}–${to}`;
  return `${date(p.from, { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) })} – ${to}`;
}

/** Seconds as `42s`, `3m 05s`, `1h 02m`. */
export function durationWords(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** An amount in minor units in a currency (`€1,234.50`). */
export function moneyWords(minor: number, currency: string): string {
  const f = new Intl.NumberFormat('en', { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/**
 * The change on the period before in words: `+12%`, `−3%`, `new` (nothing before), `no change`;
 * a rate changes by points (`−2.5 pts`).
 */
function change(now: number, before: number, points = false): string {
  if (points) {
    const d = Math.round((now - before) * 1000) / 10;
    return d === 0 ? 'no change' : `${d > 0 ? '+' : '−'}${Math.abs(d)} pts`;
  }
  if (before === 0) return now === 0 ? 'no change' : 'new';
  const pct = Math.round(((now - before) / before) * 100);
  return pct === 0 ? 'no change' : `${pct > 0 ? '+' : '−'}${Math.abs(pct)}%`;
}

interface Line {
  label: string;
  value: string;
  change: string;
}

function kpiLines(m: ReportMailInput): Line[] {
  const { kpis: k, before: b } = m;
  const lines: Line[] = [
    { label: 'Visitors', value: number.format(k.visitors), change: change(k.visitors, b.visitors) },
    { label: 'Visits', value: number.format(k.visits), change: change(k.visits, b.visits) },
    { label: 'Pageviews', value: number.format(k.pageviews), change: change(k.pageviews, b.pageviews) },
    {
      label: 'Bounce rate',
      value: `${Math.round(k.bounce_rate * 100)}%`,
      change: change(k.bounce_rate, b.bounce_rate, true),
    },
    {
      label: 'Visit duration',
      value: durationWords(k.visit_duration),
      change: change(k.visit_duration, b.visit_duration),
    },
  ];
  if (m.currency !== null && k.revenue !== undefined) {
    lines.push({
      label: 'Revenue',
      value: moneyWords(k.revenue, m.currency),
      change: change(k.revenue, b.revenue ?? 0),
    });
  }
  return lines;
}

const tops = (m: ReportMailInput): [string, string, TopRow[]][] => [
  ['Top sources', 'Direct / none', m.sources],
  ['Top pages', '(none)', m.pages],
  [
    'Top countries',
    'Unknown',
    m.countries.map((r) => ({ ...r, value: r.value && (regionNames.of(r.value) ?? r.value) })),
  ],
];

/** The e-mail: its subject, a plain-text part and an HTML part (inline styles, one chart image). */
export function reportMail(m: ReportMailInput): ReportMail {
  const when = periodWords(m.kind, m.period);
  const name = m.kind === 'weekly' ? 'weekly' : 'monthly';
  const before = m.kind === 'weekly' ? 'the week before' : 'the month before';
  const subject = `${m.domain}: ${number.format(m.kpis.visitors)} visitors, ${when}`;
  const lines = kpiLines(m);
  const stop = `Stop these ${name} reports of ${m.domain}`;

  const width = Math.max(...lines.map((l) => l.label.length));
  const text = [
    `Your ${name} report of ${m.domain}: ${when}`,
    '',
    ...lines.map((l) => `${l.label.padEnd(width)}  ${l.value.padStart(10)}  ${l.change}`),
    `(changes on ${before})`,
    ...tops(m).flatMap(([title, none, rows]) => [
      '',
      title,
      ...(rows.length === 0
        ? ['  nothing in this period']
        : rows.map((r, i) => `  ${i + 1}. ${r.value ?? none}  ${number.format(r.visitors)}`)),
    ]),
    '',
    ...(m.dashboardUrl ? [`Open the report: ${m.dashboardUrl}`] : []),
    '--',
    m.unsubscribeUrl ? `${stop}: ${m.unsubscribeUrl}` : `${stop} in Footfall, under Account, E-mail reports.`,
  ].join('\n');

  const cell = 'padding:4px 12px 4px 0';
  const muted = 'color:#6e6e73';
  const html = `<!doctype html><html><body style="font-family:system-ui,-apple-system,sans-serif;line-height:1.5;color:#1d1d1f;margin:0;padding:16px">
<div style="max-width:600px;margin:0 auto">
<p style="${muted};margin:0">Your ${name} report</p>
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(m.domain)}: ${escapeHtml(when)}</h1>
${m.chartCid ? `<img src="cid:${m.chartCid}" width="600" height="315" alt="Visitors per day, ${escapeHtml(when)}" style="width:100%;height:auto;border-radius:8px;margin-bottom:16px">` : ''}
<table role="presentation" style="border-collapse:collapse;margin-bottom:8px">
${lines
  .map(
    (l) =>
      `<tr><td style="${cell}">${l.label}</td><td style="${cell};text-align:right;font-weight:600">${escapeHtml(l.value)}</td><td style="${cell};${muted}">${escapeHtml(l.change)}</td></tr>`,
  )
  .join('\n')}
</table>
<p style="${muted};font-size:12px;margin:0 0 16px">Changes on ${before}.</p>
${tops(m)
  .map(
    ([title, none, rows]) =>
      `<h2 style="font-size:15px;margin:16px 0 4px">${title}</h2>${
        rows.length === 0
          ? `<p style="${muted};margin:0">Nothing in this period.</p>`
          : `<table role="presentation" style="border-collapse:collapse;width:100%">${rows
              .map(
                (r) =>
                  `<tr><td style="${cell};word-break:break-all">${escapeHtml(r.value ?? none)}</td><td style="${cell};text-align:right;width:80px">${number.format(r.visitors)}</td></tr>`,
              )
              .join('')}</table>`
      }`,
  )
  .join('\n')}
${m.dashboardUrl ? `<p style="margin:24px 0 0"><a href="${escapeHtml(m.dashboardUrl)}" style="color:#2457c5">Open the report in Footfall</a></p>` : ''}
<p style="${muted};font-size:12px;margin-top:24px">Sent by Footfall. ${
    m.unsubscribeUrl
      ? `<a href="${escapeHtml(m.unsubscribeUrl)}" style="color:#6e6e73">${escapeHtml(stop)}</a>.`
      : `${escapeHtml(stop)} in Footfall, under Account, E-mail reports.`
  }</p>
</div></body></html>`;
  return { subject, text, html };
}
