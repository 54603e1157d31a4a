import { ALERT_RETRY_DELAYS_MS } from './alerts.ts';
import type { ControlDb } from './open.ts';
import { safeEqual } from './tokens.ts';

/**
 * E-mail reports (docs/email-reports.md): each person chooses, per site, a weekly report (sent on
 * Mondays for the week before) and a monthly one (the 1st, for the month before). The query
 * service queues a row per report due (`queueEmailReport`): the row's key is the person, the site,
 * the kind and the period's first day, so a period's report is queued once, ever, and sent at most
 * once; a failed attempt is tried again on the alerts' schedule (ALERT_RETRY_DELAYS_MS).
 */
export const EMAIL_REPORT_KINDS = ['weekly', 'monthly'] as const;

/**
 * The scope of the report of every site the person may read, in one e-mail: it stands where a site
 * id does (no site id is `all`), and is kept as a row of `email_reports_all` and as sends with no
 * site.
 */
export const ALL_SITES = 'all';
/** A send's site as stored: no site for the report of all sites. */
const storedSite = (siteId: string): string | null => (siteId === ALL_SITES ? null : siteId);
export type EmailReportKind = (typeof EMAIL_REPORT_KINDS)[number];

export interface EmailReportChoice {
  weekly: boolean;
  monthly: boolean;
}

/** The languages a report is written in (the dashboard's); English unless the person chose another. */
export const REPORT_LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];
const languageOf = (value: string): ReportLanguage =>
  (REPORT_LANGUAGES as readonly string[]).includes(value) ? (value as ReportLanguage) : 'en';

/** Sent and given-up rows are kept this long after they are done (their keys keep a period from going twice). */
const DONE_KEPT_MS = 400 * 24 * 60 * 60_000;

/** One person's choices by site id, and ALL_SITES (sites without a row receive nothing). */
export function emailReportChoices(
  ctl: Pick<ControlDb, 'raw'>,
  personId: string,
): Map<string, EmailReportChoice & { language: ReportLanguage }> {
  const rows = ctl.raw
    .prepare(
      `SELECT site_id, weekly, monthly, language FROM email_reports WHERE person_id = ?
       UNION ALL SELECT '${ALL_SITES}', weekly, monthly, language FROM email_reports_all WHERE person_id = ?`,
    )
    .all(personId, personId) as { site_id: string; weekly: number; monthly: number; language: string }[];
  return new Map(
    rows.map((r) => [
      r.site_id,
      { weekly: r.weekly === 1, monthly: r.monthly === 1, language: languageOf(r.language) },
    ]),
  );
}

/**
 * Stores one person's choice for one site, or ALL_SITES (a row with both off is removed); `origin`
 * is the address they chose it at (the e-mail's links when FOOTFALL_BASE_URL is not set),
 * `language` the one its e-mails are written in (kept when not given).
 */
export function setEmailReportChoice(
  ctl: Pick<ControlDb, 'raw' | 'now'>,
  personId: string,
  siteId: string,
  choice: EmailReportChoice,
  origin?: string,
  language?: ReportLanguage,
): void {
  // the report of all sites is a row of its own table, keyed by the person alone
  const all = siteId === ALL_SITES;
  const table = all ? 'email_reports_all' : 'email_reports';
  const key = all ? 'person_id' : 'person_id, site_id';
  const keyValues = all ? [personId] : [personId, siteId];
  if (!choice.weekly && !choice.monthly) {
    const where = all ? 'person_id = ?' : 'person_id = ? AND site_id = ?';
    ctl.raw.prepare(`DELETE FROM ${table} WHERE ${where}`).run(...keyValues);
    return;
  }
  ctl.raw
    .prepare(
      `INSERT INTO ${table} (${key}, weekly, monthly, origin, language, updated_at)
       VALUES (${keyValues.map(() => '?').join(', ')}, ?, ?, ?, ?, ?)
       ON CONFLICT (${key}) DO UPDATE SET weekly = excluded.weekly, monthly = excluded.monthly,
         origin = CASE WHEN ? IS NULL THEN origin ELSE excluded.origin END,
         language = CASE WHEN ? IS NULL THEN language ELSE excluded.language END, updated_at = excluded.updated_at`,
    )
    .run(
      ...keyValues,
      Number(choice.weekly),
      Number(choice.monthly),
      origin ?? '',
      language ?? 'en',
      ctl.now(),
      origin ?? null,
      language ?? null,
    );
}

/** Every choice of every person that receives something (the report of all sites as ALL_SITES). */
export function emailReportSubscriptions(ctl: Pick<ControlDb, 'raw'>): {
  personId: string;
  siteId: string;
  weekly: boolean;
  monthly: boolean;
  origin: string;
  language: ReportLanguage;
}[] {
  const rows = ctl.raw
    .prepare(
      `SELECT person_id, site_id, weekly, monthly, origin, language FROM email_reports
       UNION ALL SELECT person_id, '${ALL_SITES}', weekly, monthly, origin, language FROM email_reports_all
       ORDER BY person_id, site_id`,
    )
    .all() as {
    person_id: string;
    site_id: string;
    weekly: number;
    monthly: number;
    origin: string;
    language: string;
  }[];
  return rows.map((r) => ({
    personId: r.person_id,
    siteId: r.site_id,
    weekly: r.weekly === 1,
    monthly: r.monthly === 1,
    origin: r.origin,
    language: languageOf(r.language),
  }));
}

export interface QueuedEmailReport {
  personId: string;
  siteId: string;
  kind: EmailReportKind;
  /** the period's first and last day, in the site's time zone */
  from: string;
  to: string;
}

/** Queues a period's report, once: answers false when that period's report was queued before. */
export function queueEmailReport(ctl: Pick<ControlDb, 'raw' | 'now'>, r: QueuedEmailReport): boolean {
  const now = ctl.now();
  const result = ctl.raw
    .prepare(
      `INSERT INTO email_report_sends (person_id, site_id, kind, period_from, period_to, state, next_at, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING`,
    )
    .run(r.personId, storedSite(r.siteId), r.kind, r.from, r.to, now, now);
  return result.changes === 1;
}

export interface EmailReportSend extends QueuedEmailReport {
  id: number;
  attempts: number;
}

/** Reports whose time has come, oldest first. */
export function dueEmailReports(ctl: Pick<ControlDb, 'raw' | 'now'>, limit = 20): EmailReportSend[] {
  const rows = ctl.raw
    .prepare(
      `SELECT id, person_id, site_id, kind, period_from, period_to, attempts FROM email_report_sends
       WHERE state = 'pending' AND next_at <= ? ORDER BY id LIMIT ?`,
    )
    .all(ctl.now(), limit) as {
    id: number;
    person_id: string;
    site_id: string | null;
    kind: EmailReportKind;
    period_from: string;
    period_to: string;
    attempts: number;
  }[];
  return rows.map((r) => ({
    id: r.id,
    personId: r.person_id,
    siteId: r.site_id ?? ALL_SITES,
    kind: r.kind,
    from: r.period_from,
    to: r.period_to,
    attempts: r.attempts,
  }));
}

/**
 * Records an attempt: sent, or failed with the reason (retried after the next of
 * ALERT_RETRY_DELAYS_MS, given up after the last); `null` error with `dropped` marks a report no
 * longer wanted (unsubscribed, or the person lost the site) as done without sending it.
 */
export function recordEmailReportAttempt(
  ctl: Pick<ControlDb, 'raw' | 'now'>,
  send: EmailReportSend,
  error: string | null,
  dropped = false,
): 'sent' | 'pending' | 'failed' | 'dropped' {
  const now = ctl.now();
  const attempts = send.attempts + (dropped ? 0 : 1);
  const delay = ALERT_RETRY_DELAYS_MS[attempts - 1];
  const state = dropped ? 'dropped' : error === null ? 'sent' : delay === undefined ? 'failed' : 'pending';
  ctl.raw.transaction(() => {
    ctl.raw
      .prepare(
        `UPDATE email_report_sends SET attempts = ?, state = ?, last_error = ?, next_at = ?, done_at = ?
         WHERE id = ?`,
      )
      .run(
        attempts,
        state,
        error,
        state === 'pending' ? now + (delay ?? 0) : now,
        state === 'pending' ? null : now,
        send.id,
      );
    ctl.raw
      .prepare("DELETE FROM email_report_sends WHERE state != 'pending' AND done_at < ?")
      .run(now - DONE_KEPT_MS);
  })();
  return state;
}

/** Why the newest report of a site to a person was not delivered, while it is the newest. */
export interface EmailReportFailure {
  kind: EmailReportKind;
  from: string;
  to: string;
  /** what the mail server (or the connection to it) answered */
  message: string;
  /** when it is tried again; null once given up (ALERT_RETRY_DELAYS_MS) */
  nextTryAt: number | null;
}

/**
 * The newest report of a site to a person, when it failed: null when it was sent (or none was
 * tried yet), so a report that went through after a failure clears it.
 */
export function emailReportFailure(
  ctl: Pick<ControlDb, 'raw'>,
  personId: string,
  siteId: string,
): EmailReportFailure | null {
  const row = ctl.raw
    .prepare(
      `SELECT kind, period_from, period_to, state, last_error, next_at FROM email_report_sends
       WHERE person_id = ? AND site_id IS ? AND attempts > 0 AND state != 'dropped' ORDER BY id DESC LIMIT 1`,
    )
    .get(personId, storedSite(siteId)) as
    | {
        kind: EmailReportKind;
        period_from: string;
        period_to: string;
        state: string;
        last_error: string | null;
        next_at: number;
      }
    | undefined;
  if (row === undefined || row.state === 'sent' || row.last_error === null) return null;
  return {
    kind: row.kind,
    from: row.period_from,
    to: row.period_to,
    message: row.last_error,
    nextTryAt: row.state === 'pending' ? row.next_at : null,
  };
}

/** How Health sees e-mail reports: the last 30 days' sends, and the newest that failed. */
export interface EmailReportHealth {
  sent: number;
  /** failed and waiting for their next try */
  retrying: number;
  /** failed every try (ALERT_RETRY_DELAYS_MS) */
  givenUp: number;
  /** the newest report tried was not delivered: the mail server is refusing now */
  failing: boolean;
  lastFailure: (EmailReportFailure & { siteId: string }) | null;
}

const HEALTH_WINDOW_MS = 30 * 24 * 60 * 60_000;

/**
 * E-mail reports tried in the last 30 days on the sites `readable` allows: how many went out, are
 * being retried or were given up, and the newest failure (site, period, the mail server's answer).
 * Null when none was tried. Whose report it was is not said: Health is read by every person.
 */
export function emailReportHealth(
  ctl: Pick<ControlDb, 'raw' | 'now'>,
  readable: (siteId: string) => boolean,
): EmailReportHealth | null {
  const rows = (
    ctl.raw
      .prepare(
        `SELECT site_id, kind, period_from, period_to, state, last_error, next_at
         FROM email_report_sends WHERE attempts > 0 AND state != 'dropped' AND created_at >= ? ORDER BY id DESC`,
      )
      .all(ctl.now() - HEALTH_WINDOW_MS) as {
      site_id: string | null;
      kind: EmailReportKind;
      period_from: string;
      period_to: string;
      state: string;
      last_error: string | null;
      next_at: number;
    }[]
  )
    // the report of all sites names none: every reader sees it
    .filter((r) => r.site_id === null || readable(r.site_id));
  if (rows.length === 0) return null;
  const failed = rows.find((r) => r.state !== 'sent' && r.last_error !== null);
  return {
    sent: rows.filter((r) => r.state === 'sent').length,
    retrying: rows.filter((r) => r.state === 'pending').length,
    givenUp: rows.filter((r) => r.state === 'failed').length,
    failing: rows[0]!.state !== 'sent',
    lastFailure:
      failed === undefined
        ? null
        : {
            siteId: failed.site_id ?? ALL_SITES,
            kind: failed.kind,
            from: failed.period_from,
            to: failed.period_to,
            message: failed.last_error!,
            nextTryAt: failed.state === 'pending' ? failed.next_at : null,
          },
  };
}

/** A period's queued report as stored (tests, and Health's count of failures). */
export function emailReportSends(
  ctl: Pick<ControlDb, 'raw'>,
): { personId: string; siteId: string; kind: string; from: string; state: string; attempts: number }[] {
  return (
    ctl.raw
      .prepare(
        'SELECT person_id, site_id, kind, period_from, state, attempts FROM email_report_sends ORDER BY id',
      )
      .all() as {
      person_id: string;
      site_id: string | null;
      kind: string;
      period_from: string;
      state: string;
      attempts: number;
    }[]
  ).map((r) => ({
    personId: r.person_id,
    siteId: r.site_id ?? ALL_SITES,
    kind: r.kind,
    from: r.period_from,
    state: r.state,
    attempts: r.attempts,
  }));
}

/**
 * The token of an unsubscribe link: which report of whose (`<person>.<site>.<kind>`) and a keyed
 * hash of that, so only this instance can make one and no one can change what it names. It never
 * expires: an old e-mail's link still works.
 */
export function unsubscribeToken(
  ctl: Pick<ControlDb, 'cipher'>,
  personId: string,
  siteId: string,
  kind: EmailReportKind,
): string {
  const what = `${personId}.${siteId}.${kind}`;
  return `${what}.${ctl.cipher.keyedHash(what, 'unsubscribe').slice(0, 32)}`;
}

/** What a token names, or undefined when it was not made here (or was changed). */
export function readUnsubscribeToken(
  ctl: Pick<ControlDb, 'cipher'>,
  token: string,
): { personId: string; siteId: string; kind: EmailReportKind } | undefined {
  const parts = token.split('.');
  if (parts.length !== 4) return undefined;
  const [personId, siteId, kind, mac] = parts as [string, string, string, string];
  if (!(EMAIL_REPORT_KINDS as readonly string[]).includes(kind)) return undefined;
  const expected = ctl.cipher.keyedHash(`${personId}.${siteId}.${kind}`, 'unsubscribe').slice(0, 32);
  if (!safeEqual(mac, expected)) return undefined;
  return { personId, siteId, kind: kind as EmailReportKind };
}

/** Stops one report (the unsubscribe link): the other kind stays as chosen. */
export function stopEmailReport(
  ctl: Pick<ControlDb, 'raw' | 'now'>,
  personId: string,
  siteId: string,
  kind: EmailReportKind,
): void {
  const choice = emailReportChoices(ctl, personId).get(siteId);
  if (choice === undefined) return;
  setEmailReportChoice(ctl, personId, siteId, { ...choice, [kind]: false });
}
