import {
  canonicalTimeZone,
  dueEmailReports,
  EMAIL_REPORT_KINDS,
  type EmailReportKind,
  emailReportChoices,
  emailReportSubscriptions,
  getPerson,
  getSite,
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
import type { QueryDeps } from '../deps.ts';
import { type Period, parseReportParams, todayIn } from '../engine/report-params.ts';
import { revenueOptions, withRevenue } from '../revenue.ts';
import { periodWords, reportMail } from './compose.ts';
import { duePeriod, lastFinished } from './periods.ts';
import { MAIL_WORDS } from './words.ts';

const CHART_CID = 'chart@footfall';

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
    this.queueDue();
    await this.drain();
  }

  queueDue(): void {
    const { control } = this.deps;
    const now = this.deps.now();
    for (const s of emailReportSubscriptions(control)) {
      const site = getSite(control, s.siteId);
      if (site === undefined) continue;
      for (const kind of EMAIL_REPORT_KINDS) {
        if (!s[kind]) continue;
        const period = duePeriod(kind, site.timezone, now);
        if (period !== null)
          queueEmailReport(control, { personId: s.personId, siteId: site.id, kind, ...period });
      }
    }
  }

  async drain(): Promise<void> {
    const { control } = this.deps;
    const subscriptions = new Map(
      emailReportSubscriptions(control).map((s) => [`${s.personId} ${s.siteId}`, s]),
    );
    for (const due of dueEmailReports(control)) {
      const person = await getPerson(control, due.personId);
      const site = getSite(control, due.siteId);
      const wanted =
        person !== undefined &&
        site !== undefined &&
        emailReportChoices(control, person.id).get(site.id)?.[due.kind] === true &&
        scopeAllows(await siteScopeOf(control, person), site.id);
      if (!wanted) {
        recordEmailReportAttempt(control, due, null, true);
        continue;
      }
      const { origin = '', language = 'en' } = subscriptions.get(`${person.id} ${site.id}`) ?? {};
      const error = await this.send(person, site, due.kind, { from: due.from, to: due.to }, origin, language);
      const state = recordEmailReportAttempt(control, due, error);
      if (state === 'sent') this.counts.sent++;
      else {
        this.counts.attemptsFailed++;
        if (state === 'failed') this.counts.givenUp++;
        this.deps.logger.warn(
          { site: site.id, kind: due.kind, attempt: due.attempts + 1, reason: error, state },
          'e-mail report not delivered',
        );
      }
    }
  }

  /**
   * "Send me one now": the last finished week or month of a site to the person, at once (not
   * counted as that period's scheduled report). Throws `mail_not_configured` or `mail_failed`.
   */
  async sendNow(
    person: { id: string; email: string },
    site: Site,
    kind: EmailReportKind,
    origin: string,
    language: ReportLanguage,
  ): Promise<{ to: string; period: Period }> {
    if (!this.sender.mailReady) {
      throw new AppError('mail_not_configured', 'e-mail reports need FOOTFALL_SMTP_URL on the server');
    }
    const period = lastFinished(kind, todayIn(site.timezone, this.deps.now()));
    const error = await this.send(person, site, kind, period, origin, language);
    if (error !== null) throw new AppError('mail_failed', `the report was not sent: ${error}`);
    return { to: person.email, period };
  }

  /** Writes and sends one report; null once the mail server took it, else why not. */
  async send(
    person: { id: string; email: string },
    site: Site,
    kind: EmailReportKind,
    period: Period,
    origin: string,
    language: ReportLanguage = 'en',
  ): Promise<string | null> {
    return this.sender.mail(await this.compose(person, site, kind, period, origin, language));
  }

  async compose(
    person: { id: string; email: string },
    site: Site,
    kind: EmailReportKind,
    period: Period,
    origin: string,
    language: ReportLanguage = 'en',
  ): Promise<Mail> {
    const { deps } = this;
    const engine = deps.analytics.engine;
    const raw = { from: period.from, to: period.to, compare: 'previous', bucket: 'day', limit: '5' };
    const params = parseReportParams(raw, site.timezone, deps.now());
    let report = await engine.report({ site: site.id, timeZone: canonicalTimeZone(site.timezone), params });
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
    const base = (deps.config.baseUrl ?? origin).replace(/\/+$/, '');
    const w = MAIL_WORDS[language];
    const when = periodWords(kind, period, w.locale);
    const visitors = report.kpis.visitors;
    const was = report.compare_kpis?.visitors ?? 0;
    const chart = await deps.cards
      ?.draw({
        domain: site.domain,
        kicker: w.chartKicker(kind, when),
        value: new Intl.NumberFormat(w.locale).format(visitors),
        label: w.visitorWord(visitors),
        detail:
          was > 0
            ? w.chartChange(kind, visitors >= was, Math.round((Math.abs(visitors - was) / was) * 100))
            : w.perDay,
        series: report.chart.map((p) => p.visitors),
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
      ? `${base}/unsubscribe/${unsubscribeToken(deps.control, person.id, site.id, kind)}`
      : null;
    const top = (rows: { value: string | null; visitors: number }[] | undefined) =>
      (rows ?? []).slice(0, 5).map((r) => ({ value: r.value, visitors: r.visitors }));
    const mail = reportMail({
      language,
      domain: site.domain,
      kind,
      period,
      kpis: report.kpis,
      before: report.compare_kpis ?? report.kpis,
      currency,
      sources: top(report.breakdowns.referrer),
      pages: top(report.breakdowns.pages),
      countries: top(report.breakdowns.country),
      dashboardUrl: base
        ? `${base}/sites/${site.id}?period=custom&from=${period.from}&to=${period.to}`
        : null,
      unsubscribeUrl,
      chartCid: chart ? CHART_CID : null,
    });
    return {
      to: person.email,
      ...mail,
      headers: {
        'X-Footfall-Report': `${kind} ${site.id} ${period.from}`,
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
