import type { EmailReportKind, ReportLanguage } from '@footfall/control';
import { escapeHtml } from '../alerts/message.ts';
import type { Metrics, Period } from '../engine/index.ts';
import { MAIL_WORDS, type MailWords } from './words.ts';

/** What one e-mail report says (docs/email-reports.md); the words are written by `reportMail`. */
export interface ReportMailInput {
  /** the person's language (words.ts) */
  language: ReportLanguage;
  /** the site's domain, or null for the report of all the person's sites */
  domain: string | null;
  /** how many sites the report is of (1 for a site's own) */
  sitesCount: number;
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
  /** the report of all sites: each site's visitors and theirs the period before, most first */
  sites: SiteLine[] | null;
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

export interface SiteLine {
  domain: string;
  visitors: number;
  before: number;
}

export interface ReportMail {
  subject: string;
  text: string;
  html: string;
}

/**
 * `16–22 Nov 2026`, `28 Dec 2026 – 3 Jan 2027`, or `November 2026`, in the locale's own way
 * (`16.–22. Nov. 2026`, `novembre 2026`): Intl's date ranges.
 */
export function periodWords(kind: EmailReportKind, p: Period, locale = 'en-GB'): string {
  const at = (d: string) => Date.parse(`${d}T00:00:00Z`);
  if (kind === 'monthly') {
    return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
      at(p.from),
    );
  }
  return new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatRange(at(p.from), at(p.to));
}

/** Seconds as `42s`, `3m 05s`, `1h 02m`. */
export function durationWords(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** An amount in minor units in a currency (`€1,234.50`, `1.234,50 €`). */
export function moneyWords(minor: number, currency: string, locale = 'en-GB'): string {
  const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(minor / 10 ** digits);
}

/**
 * The change on the period before in words: `+12%`, `−3%`, `new` (nothing before), `no change`;
 * a rate changes by points (`−2.5 pts`).
 */
function change(w: MailWords, now: number, before: number, points = false): string {
  const number = new Intl.NumberFormat(w.locale);
  if (points) {
    const d = Math.round((now - before) * 1000) / 10;
    return d === 0 ? w.noChange : `${d > 0 ? '+' : '−'}${number.format(Math.abs(d))} ${w.points}`;
  }
  if (before === 0) return now === 0 ? w.noChange : w.isNew;
  const pct = Math.round(((now - before) / before) * 100);
  return pct === 0
    ? w.noChange
    : `${pct > 0 ? '+' : '−'}${new Intl.NumberFormat(w.locale, { style: 'percent' }).format(Math.abs(pct) / 100)}`;
}

interface Line {
  label: string;
  value: string;
  change: string;
}

function kpiLines(m: ReportMailInput, w: MailWords): Line[] {
  const { kpis: k, before: b } = m;
  const number = new Intl.NumberFormat(w.locale);
  const percent = new Intl.NumberFormat(w.locale, { style: 'percent' });
  const lines: Line[] = [
    { label: w.visitors, value: number.format(k.visitors), change: change(w, k.visitors, b.visitors) },
    { label: w.visits, value: number.format(k.visits), change: change(w, k.visits, b.visits) },
    { label: w.pageviews, value: number.format(k.pageviews), change: change(w, k.pageviews, b.pageviews) },
    {
      label: w.bounceRate,
      value: percent.format(Math.round(k.bounce_rate * 100) / 100),
      change: change(w, k.bounce_rate, b.bounce_rate, true),
    },
    {
      label: w.visitDuration,
      value: durationWords(k.visit_duration),
      change: change(w, k.visit_duration, b.visit_duration),
    },
  ];
  if (m.currency !== null && k.revenue !== undefined) {
    lines.push({
      label: w.revenue,
      value: moneyWords(k.revenue, m.currency, w.locale),
      change: change(w, k.revenue, b.revenue ?? 0),
    });
  }
  return lines;
}

const tops = (m: ReportMailInput, w: MailWords): [string, string, TopRow[]][] => {
  const regionNames = new Intl.DisplayNames([w.locale], { type: 'region', fallback: 'code' });
  return [
    [w.topSources, w.direct, m.sources],
    [w.topPages, w.noPage, m.pages],
    [
      w.topCountries,
      w.unknown,
      m.countries.map((r) => ({ ...r, value: r.value && (regionNames.of(r.value) ?? r.value) })),
    ],
  ];
};

/** The report of all sites: each site's visitors with the change on the period before. */
const siteLines = (m: ReportMailInput, w: MailWords): Line[] =>
  (m.sites ?? []).map((s) => ({
    label: s.domain,
    value: new Intl.NumberFormat(w.locale).format(s.visitors),
    change: change(w, s.visitors, s.before),
  }));

/** The e-mail: its subject, a plain-text part and an HTML part (inline styles, one chart image). */
export function reportMail(m: ReportMailInput): ReportMail {
  const w = MAIL_WORDS[m.language];
  const number = new Intl.NumberFormat(w.locale);
  const when = periodWords(m.kind, m.period, w.locale);
  // what the report is of, in a sentence and as a title
  const of = m.domain ?? w.allSites(m.sitesCount);
  const title = m.domain ?? w.allSitesTitle(m.sitesCount);
  const subject = w.subject(title, number.format(m.kpis.visitors), when);
  const lines = kpiLines(m, w);
  const sites = siteLines(m, w);
  const stop = w.stop(m.kind, of);
  const siteWidth = Math.max(0, ...sites.map((l) => l.label.length));

  const width = Math.max(...lines.map((l) => l.label.length));
  const text = [
    w.heading(m.kind, of, when),
    '',
    ...lines.map((l) => `${l.label.padEnd(width)}  ${l.value.padStart(10)}  ${l.change}`),
    `(${w.changesOn(m.kind)})`,
    ...(sites.length === 0
      ? []
      : [
          '',
          w.sitesTitle,
          ...sites.map((l) => `  ${l.label.padEnd(siteWidth)}  ${l.value.padStart(10)}  ${l.change}`),
        ]),
    ...tops(m, w).flatMap(([title, none, rows]) => [
      '',
      title,
      ...(rows.length === 0
        ? [`  ${w.nothing}`]
        : rows.map((r, i) => `  ${i + 1}. ${r.value ?? none}  ${number.format(r.visitors)}`)),
    ]),
    '',
    ...(m.dashboardUrl ? [`${w.openReport}: ${m.dashboardUrl}`] : []),
    '--',
    m.unsubscribeUrl ? `${stop}: ${m.unsubscribeUrl}` : `${stop} ${w.stopInFootfall}`,
  ].join('\n');

  const cell = 'padding:4px 12px 4px 0';
  const muted = 'color:#6e6e73';
  const kpiTable = (
    rows: Line[],
  ) => `<table role="presentation" style="border-collapse:collapse;margin-bottom:8px">
${rows
  .map(
    (l) =>
      `<tr><td style="${cell};word-break:break-all">${escapeHtml(l.label)}</td><td style="${cell};text-align:right;font-weight:600">${escapeHtml(l.value)}</td><td style="${cell};${muted}">${escapeHtml(l.change)}</td></tr>`,
  )
  .join('\n')}
</table>`;
  const html = `<!doctype html><html lang="${m.language}"><body style="font-family:system-ui,-apple-system,sans-serif;line-height:1.5;color:#1d1d1f;margin:0;padding:16px">
<div style="max-width:600px;margin:0 auto">
<p style="${muted};margin:0">${escapeHtml(w.yourReport(m.kind))}</p>
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(title)}: ${escapeHtml(when)}</h1>
${m.chartCid ? `<img src="cid:${m.chartCid}" width="600" height="315" alt="${escapeHtml(w.chartAlt(when))}" style="width:100%;height:auto;border-radius:8px;margin-bottom:16px">` : ''}
${kpiTable(lines)}
<p style="${muted};font-size:12px;margin:0 0 16px">${escapeHtml(w.changesOn(m.kind))}</p>
${sites.length === 0 ? '' : `<h2 style="font-size:15px;margin:16px 0 4px">${escapeHtml(w.sitesTitle)}</h2>${kpiTable(sites)}`}
${tops(m, w)
  .map(
    ([title, none, rows]) =>
      `<h2 style="font-size:15px;margin:16px 0 4px">${escapeHtml(title)}</h2>${
        rows.length === 0
          ? `<p style="${muted};margin:0">${escapeHtml(w.nothing)}</p>`
          : `<table role="presentation" style="border-collapse:collapse;width:100%">${rows
              .map(
                (r) =>
                  `<tr><td style="${cell};word-break:break-all">${escapeHtml(r.value ?? none)}</td><td style="${cell};text-align:right;width:80px">${number.format(r.visitors)}</td></tr>`,
              )
              .join('')}</table>`
      }`,
  )
  .join('\n')}
${m.dashboardUrl ? `<p style="margin:24px 0 0"><a href="${escapeHtml(m.dashboardUrl)}" style="color:#2457c5">${escapeHtml(w.openReport)}</a></p>` : ''}
<p style="${muted};font-size:12px;margin-top:24px">${escapeHtml(w.sentBy)} ${
    m.unsubscribeUrl
      ? `<a href="${escapeHtml(m.unsubscribeUrl)}" style="color:#6e6e73">${escapeHtml(stop)}</a>.`
      : `${escapeHtml(stop)} ${escapeHtml(w.stopInFootfall)}`
  }</p>
</div></body></html>`;
  return { subject, text, html };
}
