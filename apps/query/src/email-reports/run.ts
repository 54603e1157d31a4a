import {
  ALL_SITES,
  canonicalTimeZone,
  dueEmailReports,
  EMAIL_REPORT_KINDS,
  type EmailReportKind,
  emailReportChoices,
  emailReportSubscriptions,
  getPerson,
  getSite,
  listSites,
  type PersonRow,
  queueEmailReport,
  type ReportLanguage,
  recordEmailReportAttempt,
  type Site,
  scopeAllows,
  siteScopeOf,
  unsubscribeToken,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { hasConnections } from '@footfall/payments';
import type { AlertSender, Mail } from '../alerts/send.ts';
import { mergeReports } from '../all-sites.ts';
import type { QueryDeps } from '../deps.ts';
import type { Metrics, Report } from '../engine/index.ts';
import { type Period, parseReportParams, todayIn } from '../engine/report-params.ts';
import { revenueOptions, withRevenue } from '../revenue.ts';
import { ALL_SITES_AT_ONCE, inBatches, MAX_REPORT_SITES } from '../routes/all-sites-request.ts';
import { periodWords, reportMail, type SiteLine, type TopRow } from './compose.ts';
import { behindmost, duePeriod, lastFinished } from './periods.ts';
import { MAIL_WORDS } from './words.ts';

const CHART_CID = 'chart@footfall';

/** What a report is of: one site, or every site the person may read (ALL_SITES). */
export type ReportTarget = Site | { all: Site[] };
/** A target's id where a site id goes: the site's, or ALL_SITES. */
export const scopeOf = (target: ReportTarget): string => ('all' in target ? ALL_SITES : target.id);

/** The numbers one e-mail says, of one site or of several. */
interface Numbers {
  kpis: Metrics & { revenue?: number };
  before: Metrics & { revenue?: number };
  currency: string | null;
  series: number[];
  sources: TopRow[];
  pages: TopRow[];
  countries: TopRow[];
  sites: SiteLine[] | null;
}

/**
 * The sites a person's report of all sites covers: every site they may read (listSites' order), at
 * most as many as one report of several sites reads (MAX_REPORT_SITES).
 */
export async function sitesOf(deps: Pick<QueryDeps, 'control'>, person: PersonRow): Promise<Site[]> {
  const scope = await siteScopeOf(deps.control, person);
  return listSites(deps.control)
    .filter((s) => scopeAllows(scope, s.id))
    .slice(0, MAX_REPORT_SITES);
}

/** Counts for /metrics and Health. */
export interface EmailReportCounts {
  sent: number;
  attemptsFailed: number;
  givenUp: number;
}

/**
 * E-mail reports (docs/email-reports.md), run in the alert pass: queues each subscription's
 * report when its period is due (once per period, kept in app.db), then sends what is queued:
 * the period's numbers with the change on the period before, the top five sources, pages and
 * countries, revenue with a payment connection, and the visitors chart drawn in the card pool,
 * attached inline. A report no longer wanted (unsubscribed, the person gone or without the site)
 * is dropped unsent; a failed send is retried as alerts are.
 */
export class EmailReports {
  readonly counts: EmailReportCounts = { sent: 0, attemptsFailed: 0, givenUp: 0 };

  constructor(
    private readonly deps: QueryDeps,
    private readonly sender: Pick<AlertSender, 'mailReady' | 'mail'>,
  ) {}

  /** Queues what is due, then sends what is queued. Nothing is queued while e-mail is not set up. */
  async tick(): Promise<void> {
    if (!this.sender.mailReady) return;
    await this.queueDue();
    await this.drain();
  }

  /**
   * Queues each subscription's report once its period is due in its site's zone; the report of all
   * sites once it is due in the zone furthest behind, so every site's period is over.
   */
  async queueDue(): Promise<void> {
    const { control } = this.deps;
    const now = this.deps.now();
    for (const s of emailReportSubscriptions(control)) {
      let zones: string[];
      if (s.siteId === ALL_SITES) {
        const person = await getPerson(control, s.personId);
        zones = person === undefined ? [] : (await sitesOf(this.deps, person)).map((x) => x.timezone);
      } else {
        const site = getSite(control, s.siteId);
        zones = site === undefined ? [] : [site.timezone];
      }
      if (zones.length === 0) continue;
      const zone = behindmost(zones, now);
      for (const kind of EMAIL_REPORT_KINDS) {
        if (!s[kind]) continue;
        const period = duePeriod(kind, zone, now);
        if (period !== null)
          queueEmailReport(control, { personId: s.personId, siteId: s.siteId, kind, ...period });
      }
    }
  }

  /** What a queued report is of, while the person still wants it and may read it; else undefined. */
  async #targetOf(person: PersonRow | undefined, siteId: string, kind: EmailReportKind) {
    const { control } = this.deps;
    if (person === undefined || emailReportChoices(control, person.id).get(siteId)?.[kind] !== true) return;
    if (siteId === ALL_SITES) {
      const all = await sitesOf(this.deps, person);
      return all.length === 0 ? undefined : { all };
    }
    const site = getSite(control, siteId);
    return site !== undefined && scopeAllows(await siteScopeOf(control, person), site.id) ? site : undefined;
  }

  async drain(): Promise<void> {
    const { control } = this.deps;
    const subscriptions = new Map(
      emailReportSubscriptions(control).map((s) => [`${s.personId} ${s.siteId}`, s]),
    );
    for (const due of dueEmailReports(control)) {
      const person = await getPerson(control, due.personId);
      const target = await this.#targetOf(person, due.siteId, due.kind);
      if (person === undefined || target === undefined) {
        recordEmailReportAttempt(control, due, null, true);
        continue;
      }
      const { origin = '', language = 'en' } = subscriptions.get(`${person.id} ${due.siteId}`) ?? {};
      const period = { from: due.from, to: due.to };
      const error = await this.send(person, target, due.kind, period, origin, language);
      const state = recordEmailReportAttempt(control, due, error);
      if (state === 'sent') this.counts.sent++;
      else {
        this.counts.attemptsFailed++;
        if (state === 'failed') this.counts.givenUp++;
        this.deps.logger.warn(
          { site: due.siteId, kind: due.kind, attempt: due.attempts + 1, reason: error, state },
          'e-mail report not delivered',
        );
      }
    }
  }

  /**
   * "Send me one now": the last finished week or month of a site (or of all the person's sites, in
   * the zone furthest behind) to the person, at once (not counted as that period's scheduled
   * report). Throws `mail_not_configured` or `mail_failed`.
   */
  async sendNow(
    person: { id: string; email: string },
    target: ReportTarget,
    kind: EmailReportKind,
    origin: string,
    language: ReportLanguage,
  ): Promise<{ to: string; period: Period }> {
    if (!this.sender.mailReady) {
      throw new AppError('mail_not_configured', 'e-mail reports need FOOTFALL_SMTP_URL on the server');
    }
    const now = this.deps.now();
    const zone =
      'all' in target
        ? behindmost(
            target.all.map((s) => s.timezone),
            now,
          )
        : target.timezone;
    const period = lastFinished(kind, todayIn(zone, now));
    const error = await this.send(person, target, kind, period, origin, language);
    if (error !== null) throw new AppError('mail_failed', `the report was not sent: ${error}`);
    return { to: person.email, period };
  }

  /** Writes and sends one report; null once the mail server took it, else why not. */
  async send(
    person: { id: string; email: string },
    target: ReportTarget,
    kind: EmailReportKind,
    period: Period,
    origin: string,
    language: ReportLanguage = 'en',
  ): Promise<string | null> {
    return this.sender.mail(await this.compose(person, target, kind, period, origin, language));
  }

  /** The report's query: the period, compared with the one before, by day. */
  #params(site: Site, period: Period, limit: number) {
    const raw = {
      from: period.from,
      to: period.to,
      compare: 'previous',
      bucket: 'day',
      limit: String(limit),
    };
    return parseReportParams(raw, site.timezone, this.deps.now());
  }

  /** One site's numbers, with revenue when it has a payment connection. */
  async #siteNumbers(site: Site, period: Period): Promise<Numbers> {
    const { deps } = this;
    const engine = deps.analytics.engine;
    const params = this.#params(site, period, 5);
    let report: Report & { kpis: Metrics & { revenue?: number } } = await engine.report({
      site: site.id,
      timeZone: canonicalTimeZone(site.timezone),
      params,
    });
    let currency: string | null = null;
    if (site.modules.revenue && hasConnections(deps.control, site.id)) {
      const options = revenueOptions({});
      const priced = await withRevenue({
        control: deps.control,
        rates: deps.exchangeRates?.table,
        site,
        report,
        params,
        options,
        attribute: (anchors) =>
          engine.attribute({ site: site.id, anchors, model: options.model, filters: [] }),
      });
      report = priced;
      currency = priced.revenue.currency;
    }
    return {
      kpis: report.kpis,
      before: report.compare_kpis ?? report.kpis,
      currency,
      series: report.chart.map((p) => p.visitors),
      sources: top(report.breakdowns.referrer),
      pages: top(report.breakdowns.pages),
      countries: top(report.breakdowns.country),
      sites: null,
    };
  }

  /**
   * The numbers of several sites as one (all-sites.ts, as `GET /api/v1/report` merges them): each
   * site's own days, counts summed; pages by site and path; each site's visitors and change. No
   * revenue: each site's own report carries it, in its own currency.
   */
  async #allNumbers(sites: Site[], period: Period): Promise<Numbers> {
    const engine = this.deps.analytics.engine;
    // each site's ten largest rows, so a value just outside one site's five still adds up
    const parts = await inBatches(sites, ALL_SITES_AT_ONCE, async (site) => ({
      id: site.id,
      domain: site.domain,
      report: await engine.report({
        site: site.id,
        timeZone: canonicalTimeZone(site.timezone),
        params: this.#params(site, period, 10),
      }),
    }));
    const merged = mergeReports(parts, 5);
    const domains = new Map(sites.map((s) => [s.id, s.domain]));
    const pages = (merged.breakdowns.pages ?? []) as {
      site: string;
      value: string | null;
      visitors: number;
    }[];
    return {
      kpis: merged.kpis,
      before: merged.compare_kpis ?? merged.kpis,
      currency: null,
      series: merged.chart.map((p) => p.visitors),
      sources: top(merged.breakdowns.referrer as TopRow[]),
      pages: pages.map((r) => ({
        value: `${domains.get(r.site) ?? r.site}${r.value ?? ''}`,
        visitors: r.visitors,
      })),
      countries: top(merged.breakdowns.country as TopRow[]),
      sites: merged.sites.map((x) => ({
        domain: x.domain,
        visitors: x.kpis.visitors,
        before: x.compare_kpis?.visitors ?? 0,
      })),
    };
  }

  async compose(
    person: { id: string; email: string },
    target: ReportTarget,
    kind: EmailReportKind,
    period: Period,
    origin: string,
    language: ReportLanguage = 'en',
  ): Promise<Mail> {
    const { deps } = this;
    const site = 'all' in target ? null : target;
    const all = 'all' in target ? target.all : [];
    const n = site ? await this.#siteNumbers(site, period) : await this.#allNumbers(all, period);
    const scope = scopeOf(target);
    const base = (deps.config.baseUrl ?? origin).replace(/\/+$/, '');
    const w = MAIL_WORDS[language];
    const when = periodWords(kind, period, w.locale);
    const visitors = n.kpis.visitors;
    const was = n.before.visitors;
    const chart = await deps.cards
      ?.draw({
        domain: site ? site.domain : w.allSitesTitle(all.length),
        kicker: w.chartKicker(kind, when),
        value: new Intl.NumberFormat(w.locale).format(visitors),
        label: w.visitorWord(visitors),
        detail:
          was > 0
            ? w.chartChange(kind, visitors >= was, Math.round((Math.abs(visitors - was) / was) * 100))
            : w.perDay,
        series: n.series,
        theme: 'light',
        accent: '#2457c5',
        width: 1200,
        height: 630,
      })
      // a report without its picture is still a report
      .catch((error: Error) => {
        deps.logger.warn({ err: { message: error.message } }, 'e-mail report chart not drawn');
        return undefined;
      });
    const unsubscribeUrl = base
      ? `${base}/unsubscribe/${unsubscribeToken(deps.control, person.id, scope, kind)}`
      : null;
    const range = `period=custom&from=${period.from}&to=${period.to}`;
    const mail = reportMail({
      language,
      domain: site ? site.domain : null,
      sitesCount: site ? 1 : all.length,
      kind,
      period,
      kpis: n.kpis,
      before: n.before,
      currency: n.currency,
      sources: n.sources,
      pages: n.pages,
      countries: n.countries,
      sites: n.sites,
      dashboardUrl: base ? `${base}${site ? `/sites/${scope}` : '/all'}?${range}` : null,
      unsubscribeUrl,
      chartCid: chart ? CHART_CID : null,
    });
    return {
      to: person.email,
      ...mail,
      headers: {
        'X-Footfall-Report': `${kind} ${scope} ${period.from}`,
        ...(unsubscribeUrl
          ? {
              'List-Unsubscribe': `<${unsubscribeUrl}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            }
          : {}),
      },
      attachments: chart
        ? [{ filename: 'visitors.png', content: chart, cid: CHART_CID, contentType: 'image/png' }]
        : [],
    };
  }
}

/** A breakdown's five largest rows, as an e-mail lists them. */
const top = (rows: readonly { value: string | null; visitors: number }[] | undefined): TopRow[] =>
  (rows ?? []).slice(0, 5).map((r) => ({ value: r.value, visitors: r.visitors }));
