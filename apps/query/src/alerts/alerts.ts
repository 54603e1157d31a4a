import {
  type AlertDestination,
  type AlertKind,
  alertState,
  canonicalTimeZone,
  clearStopped,
  destinationSecrets,
  destinationsFor,
  dueDeliveries,
  enqueueAlert,
  getAlertDestination,
  type InstallOutcome,
  installChecks,
  listSites,
  noteDestinationResult,
  recordAttempt,
  recordInstallCheck,
  SealError,
  type Site,
  setAlertState,
} from '@footfall/control';
import type { GuardOptions } from '@footfall/http';
import type { QueryDeps } from '../deps.ts';
import { EmailReports } from '../email-reports/run.ts';
import { todayIn } from '../engine/report-params.ts';
import { disk } from '../health-content.ts';
import { milestonesAndAlerts } from '../milestones/alert.ts';
import { googleApi, syncSearchConsole } from '../search-console.ts';
import { diskWords, healthConditions, healthWords } from './health-conditions.ts';
import {
  checkInstall,
  INSTALL_CHECK_AT_ONCE,
  INSTALL_CHECK_SITES_PER_DAY,
  refreshFavicons,
  trackingStoppedWords,
} from './install-check.ts';
import { type AlertMessage, alertId } from './message.ts';
import { busyDay, hasPaymentsSince, lastPaymentSeq, paymentsSince, paymentWords } from './rules.ts';
import { AlertSender } from './send.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** A site that was sending visits and has sent none for this long has stopped. */
export const STOPPED_AFTER_MS = 2 * DAY_MS;
/** How often a site's visitors are compared with its usual ones. */
const BUSY_EVERY_MS = 15 * 60_000;
/** The disk alert clears once the runway is this many times the threshold again (no flapping). */
const DISK_CLEAR_FACTOR = 1.5;
/** How often a site's favicon is fetched again. */
/** The first look after start: a start is never slowed by alerts. */
const FIRST_LOOK_MS = 20_000;

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** Counts for /metrics: per kind and channel. */
export interface AlertCounts {
  sent: Map<string, number>;
  attemptsFailed: Map<string, number>;
  givenUp: Map<string, number>;
}

/**
 * Alerts (docs/alerts.md), run by the query service: every minute it looks at each rule, queues
 * an alert for each destination that receives its kind, and sends what is due, retrying failures
 * with backoff (ALERT_RETRY_DELAYS_MS). Rules: someone paid (live payments since the last alert),
 * a busy day (every 15 minutes), a milestone reached (the daily milestone check, which runs here
 * whether or not anyone receives it), tracking stopped (the daily install check) and resumed, the disk
 * filling, and the instance's health problems (a failed backup or off-site copy, the write-ahead
 * log refusing events, an instance key that does not match), each sent when it starts and when it
 * clears, and only while someone receives them.
 */
export class Alerts {
  readonly #deps: QueryDeps;
  readonly #sender: AlertSender;
  readonly #guard: GuardOptions;
  readonly #everyMs: number;
  /** the e-mail reports, sent by this pass through the same mail server */
  readonly emailReports: EmailReports;
  readonly counts: AlertCounts = { sent: new Map(), attemptsFailed: new Map(), givenUp: new Map() };
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<void> | undefined;
  #draining: Promise<void> | undefined;
  #stopped = false;
  readonly #busyLookedAt = new Map<string, number>();
  readonly #abort = new AbortController();
  readonly #noVisitsUntil = new Map<string, number>();

  constructor(deps: QueryDeps) {
    this.#deps = deps;
    const { config } = deps;
    this.#guard = { allow: config.unsafe.outboundAllow };
    this.#sender = new AlertSender({ smtp: config.smtp, mailFrom: config.mailFrom, guard: this.#guard });
    this.emailReports = new EmailReports(deps, this.#sender);
    this.#everyMs = config.unsafe.alertSeconds * 1000;
  }

  /** Whether e-mail destinations can be used (FOOTFALL_SMTP_URL set; FOOTFALL_MAIL_FROM has a default). */
  get mailReady(): boolean {
    return this.#sender.mailReady;
  }

  get guard(): GuardOptions {
    return this.#guard;
  }

  start(): void {
    const tick = (delay: number) => {
      this.#timer = setTimeout(() => {
        this.#pass = this.tick()
          .catch((error: Error) =>
            this.#deps.logger.warn({ err: { message: error.message } }, 'alert pass failed'),
          )
          .finally(() => {
            this.#pass = undefined;
            if (!this.#stopped) tick(this.#everyMs);
          });
      }, delay);
      this.#timer.unref();
    };
    tick(Math.min(FIRST_LOOK_MS, this.#everyMs));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    // homepages and icons being read are given up
    this.#abort.abort();
    await this.#pass;
    await this.#draining;
    this.#sender.close();
  }

  /** One look at every rule, then sends what is due. A rule that fails is logged; the others go on. */
  async tick(): Promise<void> {
    await this.#safely('health', () => this.#health());
    await this.#safely('disk', () => this.#disk());
    await this.#safely('sites', async () => {
      for (const site of listSites(this.#deps.control)) {
        await this.#safely('payment', () => this.#payments(site));
        await this.#safely('busy day', () => this.#busy(site));
        await this.#safely('milestones', () =>
          milestonesAndAlerts(this.#deps, site, this.#abort.signal, (words, to) =>
            this.#raise(to, () => this.#message('milestone', site, null, words)),
          ),
        );
      }
    });
    // what is due goes out before the slow reads of other sites' homepages
    await this.#safely('deliveries', () => this.drain());
    await this.#safely('e-mail reports', () => this.emailReports.tick());
    await this.#safely('install check', () => this.#installChecks());
    await this.#safely('favicons', () =>
      refreshFavicons({
        control: this.#deps.control,
        guard: this.#guard,
        siteOrigin: this.#deps.config.unsafe.siteOrigin,
        now: this.#deps.now(),
        signal: this.#abort.signal,
        stopped: () => this.#stopped,
      }),
    );
    await this.#safely('search console', () =>
      syncSearchConsole({ ...this.#deps, api: googleApi(this.#deps.config.unsafe.googleApi) }),
    );
    await this.#safely('deliveries', () => this.drain());
  }

  async #safely(rule: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.#deps.logger.warn({ rule, err: { message: (error as Error).message } }, 'alert rule failed');
    }
  }

  /** Sends every delivery that is due (one pass at a time; a second call joins the first). */
  drain(): Promise<void> {
    this.#draining ??= this.#drainAll().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  async #drainAll(): Promise<void> {
    const ctl = this.#deps.control;
    for (;;) {
      const due = await dueDeliveries(ctl, INSTALL_CHECK_AT_ONCE);
      if (due.length === 0 || this.#stopped) return;
      await Promise.all(
        due.map(async (delivery) => {
          let error: string | null;
          let channel = 'unknown';
          let host = 'unknown';
          try {
            const destination = await destinationSecrets(ctl, delivery.destination_id);
            if (destination === undefined) return;
            channel = destination.channel;
            host = destination.host;
            error = await this.#sender.send(destination, JSON.parse(delivery.payload) as AlertMessage);
          } catch (e) {
            error = e instanceof SealError ? 'sealed with another instance key' : (e as Error).message;
          }
          const state = await recordAttempt(ctl, delivery, error);
          const key = `${delivery.kind}|${channel}`;
          if (state === 'sent') bump(this.counts.sent, key);
          else {
            bump(this.counts.attemptsFailed, key);
            if (state === 'failed') bump(this.counts.givenUp, key);
            this.#deps.logger.warn(
              {
                destination: host,
                kind: delivery.kind,
                attempt: delivery.attempts + 1,
                reason: error,
                gaveUp: state === 'failed',
              },
              'alert not delivered',
            );
          }
        }),
      );
    }
  }

  /** "Send a test alert": sent at once to one destination, not retried; answers why it failed, or null. */
  async test(site: Site, destinationId: string): Promise<string | null> {
    const ctl = this.#deps.control;
    const destination = await getAlertDestination(ctl, site.id, destinationId);
    const message = this.#message('test', site, null, {
      title: `Footfall: a test alert for ${site.domain}`,
      text: `This is a test. Alerts of ${site.domain} reach this ${destination.channel === 'email' ? 'address' : 'webhook'}.`,
      data: { kinds: destination.kinds },
    });
    let error: string | null;
    try {
      const opened = await destinationSecrets(ctl, destinationId);
      error = opened === undefined ? 'the destination was removed' : await this.#sender.send(opened, message);
    } catch (e) {
      error = e instanceof SealError ? 'sealed with another instance key' : (e as Error).message;
    }
    await noteDestinationResult(ctl, destinationId, error);
    bump(error === null ? this.counts.sent : this.counts.attemptsFailed, `test|${destination.channel}`);
    return error;
  }

  #message(
    kind: AlertKind | 'test',
    site: Site | null,
    state: AlertMessage['state'],
    body: { title: string; text: string; data: Record<string, unknown>; path?: string },
  ): AlertMessage {
    const base = this.#deps.config.baseUrl?.replace(/\/+$/, '');
    const path = body.path ?? (site ? `/sites/${site.id}` : '/health');
    return {
      id: alertId(),
      kind,
      state,
      at: new Date(this.#deps.now()).toISOString(),
      site: site ? { id: site.id, domain: site.domain } : null,
      title: body.title,
      text: body.text,
      url: base ? `${base}${path}` : null,
      data: body.data,
    };
  }

  /**
   * Queues an alert for destinations (one per URL or address, however many sites list it).
   * `record` writes what the rule has now told of (its state, its cursor) and answers the alert,
   * or undefined when there is none; both are one transaction, so after a crash or a failed insert
   * either both are stored or neither, and the next pass raises it again: alerts are delivered at
   * least once (docs/alerts.md). Synchronous: whatever needs awaiting (the destinations) is read before.
   */
  #raise(destinations: readonly AlertDestination[], record: () => AlertMessage | undefined): void {
    const seen = new Set<string>();
    const ids: string[] = [];
    for (const d of destinations) {
      const key = `${d.channel}|${d.target ?? d.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      ids.push(d.id);
    }
    const ctl = this.#deps.control;
    // IMMEDIATE: the write lock is taken first, so a read inside is never outdated by another process
    const message = ctl.raw
      .transaction(() => {
        const m = record();
        if (m !== undefined) enqueueAlert(ctl, { id: m.id, kind: m.kind, payload: m }, ids);
        return m;
      })
      .immediate();
    if (message === undefined || ids.length === 0) return;
    this.#deps.logger.info(
      { kind: message.kind, state: message.state, destinations: ids.length },
      'alert raised',
    );
  }

  /**
   * A condition's state changed: queues `started` or `cleared`. Before anyone receives the kind,
   * nothing is remembered, so a destination added during a problem hears that it started.
   * `alongside` is the caller's own record of the change (the install check's), written in the
   * same transaction as the state and the alert.
   */
  async #condition(
    kind: AlertKind,
    name: string,
    active: boolean,
    site: Site | null,
    words: () => { title: string; text: string; data: Record<string, unknown>; path?: string },
    alongside: () => void = () => {},
  ): Promise<void> {
    const ctl = this.#deps.control;
    const destinations = await destinationsFor(ctl, kind, site?.id);
    const scope = site?.id ?? '*';
    const stored = alertState(ctl, scope, name);
    // nobody receives the kind, or nothing changed: only the caller's record is written
    if (destinations.length === 0 || (stored !== undefined && (stored === '1') === active)) {
      alongside();
      return;
    }
    this.#raise(destinations, () => {
      alongside();
      setAlertState(ctl, scope, name, active ? '1' : '0');
      // a condition first seen inactive is no news
      if (stored === undefined && !active) return undefined;
      return this.#message(kind, site, active ? 'started' : 'cleared', words());
    });
  }

  async #health(): Promise<void> {
    const deps = this.#deps;
    if ((await destinationsFor(deps.control, 'health')).length === 0) return;
    for (const [name, c] of await healthConditions(deps)) {
      await this.#condition('health', `health:${name}`, c.active, null, () => healthWords(name, c));
    }
  }

  async #disk(): Promise<void> {
    const deps = this.#deps;
    if ((await destinationsFor(deps.control, 'disk_filling')).length === 0) return;
    const d = await disk(deps);
    const threshold = deps.config.diskAlertDays;
    const was = alertState(deps.control, '*', 'disk_filling') === '1';
    const limit = was ? threshold * DISK_CLEAR_FACTOR : threshold;
    const active = d.runway_days !== null && d.runway_days < limit;
    await this.#condition('disk_filling', 'disk_filling', active, null, () =>
      diskWords(d, active, threshold),
    );
  }

  async #payments(site: Site): Promise<void> {
    const ctl = this.#deps.control;
    const stored = alertState(ctl, site.id, 'payment_seq');
    if (stored === undefined) {
      // the first look: payments before it are not news (marked told with the cursor, at once)
      ctl.raw.transaction(() =>
        setAlertState(ctl, site.id, 'payment_seq', String(lastPaymentSeq(ctl, site.id))),
      )();
      return;
    }
    const cursor = Number(stored);
    // a look that marks nothing: the destinations are read only when there is news
    if (!hasPaymentsSince(ctl, site.id, cursor)) return;
    const destinations = await destinationsFor(ctl, 'payment', site.id);
    // the payments are marked told and the cursor moved in the transaction that queues their alert
    this.#raise(destinations, () => {
      const found = paymentsSince(ctl, site, cursor, this.#deps.exchangeRates?.table);
      if (found.count === 0) return undefined;
      setAlertState(ctl, site.id, 'payment_seq', String(found.cursor));
      return destinations.length === 0
        ? undefined
        : this.#message('payment', site, null, paymentWords(site, found));
    });
  }

  async #busy(site: Site): Promise<void> {
    const deps = this.#deps;
    const now = deps.now();
    if (now - (this.#busyLookedAt.get(site.id) ?? 0) < BUSY_EVERY_MS) return;
    this.#busyLookedAt.set(site.id, now);
    const destinations = await destinationsFor(deps.control, 'busy_day', site.id);
    if (destinations.length === 0) return;
    const today = todayIn(site.timezone, now);
    if (alertState(deps.control, site.id, 'busy_day') === today) return;
    const engine = deps.analytics.engine;
    const status = await engine.status({ site: site.id });
    if (status.firstVisit === null) return;
    const from = dayString(dayNumber(today) - 28);
    const days = await engine.dailyVisitors({
      site: site.id,
      timeZone: canonicalTimeZone(site.timezone),
      period: { from, to: today },
    });
    const firstDay = dayNumber(todayIn(site.timezone, status.firstVisit)) - dayNumber(from);
    const busy = busyDay(days, firstDay);
    if (busy === null) return;
    const weekday = new Intl.DateTimeFormat('en', { weekday: 'long', timeZone: 'UTC' }).format(
      Date.parse(today),
    );
    // the day is marked told in the transaction that queues its alert
    this.#raise(destinations, () => {
      setAlertState(deps.control, site.id, 'busy_day', today);
      return this.#message('busy_day', site, null, {
        title: `${site.domain} is having a busy day: ${busy.today} visitors so far`,
        text: `${site.domain} has had ${busy.today} visitors today so far; a usual ${weekday} has about ${busy.usual}.`,
        data: { day: today, visitors: busy.today, usual: busy.usual },
      });
    });
  }

  /**
   * The install check (daily per site that was sending visits, at most 50 a day, 4 at once) and the
   * stopped state: a site with no visit for two days is stopped; one with visits again is not.
   * Resuming is looked at on every pass, so it is known within a minute of the first new visit.
   */
  async #installChecks(): Promise<void> {
    const deps = this.#deps;
    const ctl = deps.control;
    const now = deps.now();
    // a backlog in the WAL (after a restart, a catch-up) holds newer visits: judge no site until loaded
    if (deps.analytics.tailer.lag > 0) return;
    const checks = new Map(installChecks(ctl).map((c) => [c.siteId, c]));
    const checkedToday = [...checks.values()].filter((c) => now - c.checkedAt < DAY_MS).length;
    let budget = Math.max(0, INSTALL_CHECK_SITES_PER_DAY - checkedToday);
    const due: { site: Site; lastSeen: number }[] = [];
    for (const site of listSites(ctl)) {
      const check = checks.get(site.id);
      const stopped = check?.stoppedAt != null;
      const dueNow = budget > 0 && (check === undefined || now - check.checkedAt >= DAY_MS);
      // the engine is asked only about stopped sites (have visits come back?) and sites due a
      // check, and about a site without visits once an hour: passes stay off the live reads' lane
      if (!stopped && !dueNow) continue;
      if ((this.#noVisitsUntil.get(site.id) ?? 0) > now) continue;
      const status = await deps.analytics.engine.status({ site: site.id });
      if (status.lastSeen === null) {
        this.#noVisitsUntil.set(site.id, now + HOUR_MS);
        continue;
      }
      // visits again: a visit within the last two days, whenever the check that stopped it ran
      if (check?.stoppedAt != null && now - status.lastSeen < STOPPED_AFTER_MS) {
        // cleared with its alert, in one transaction: a crash between would lose the alert
        await this.#trackingStopped(site, false, check.outcome, () => clearStopped(ctl, site.id));
      }
      if (check !== undefined && now - check.checkedAt < DAY_MS) continue;
      if (budget === 0) continue;
      budget -= 1;
      due.push({ site, lastSeen: status.lastSeen });
    }
    for (let i = 0; i < due.length; i += INSTALL_CHECK_AT_ONCE) {
      await Promise.all(
        due.slice(i, i + INSTALL_CHECK_AT_ONCE).map(async ({ site, lastSeen }) => {
          if (this.#stopped) return;
          const outcome = await checkInstall(
            site,
            this.#guard,
            deps.config.unsafe.siteOrigin,
            this.#abort.signal,
          );
          if (this.#stopped) return;
          const before = checks.get(site.id)?.stoppedAt ?? null;
          const quiet = deps.now() - lastSeen >= STOPPED_AFTER_MS;
          const stoppedAt = quiet ? (before ?? deps.now()) : null;
          const record = () => recordInstallCheck(ctl, site.id, outcome, stoppedAt);
          // a stop, or its end, is recorded with its alert, in one transaction
          if (quiet && before === null) await this.#trackingStopped(site, true, outcome, record);
          else if (!quiet && before !== null) await this.#trackingStopped(site, false, outcome, record);
          else record();
          deps.logger.info({ site: site.id, tracker: outcome.tracker, stopped: quiet }, 'install checked');
        }),
      );
    }
  }

  async #trackingStopped(
    site: Site,
    active: boolean,
    outcome: InstallOutcome,
    alongside: () => void,
  ): Promise<void> {
    await this.#condition(
      'tracking_stopped',
      'tracking_stopped',
      active,
      site,
      () => trackingStoppedWords(site, active, outcome),
      alongside,
    );
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
