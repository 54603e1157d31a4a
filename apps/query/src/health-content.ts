import { statfs } from 'node:fs/promises';
import {
  emailReportHealth,
  getSite,
  instanceKeyMatches,
  type SiteScope,
  scopeAllows,
} from '@footfall/control';
import { footfallVersion } from '@footfall/instance';
import { allConnections } from '@footfall/payments';
import { backupHealth } from './backups.ts';
import type { QueryDeps } from './deps.ts';
import { dataUsage } from './disk.ts';
import { type GatewayHealth, gatewayHealth } from './ingest-status.ts';

/** What every ingest gateway counted since it started, summed. */
export interface EventCounts {
  accepted: number;
  dropped_as_bots: number;
  /** kept out by sites' shields */
  dropped_by_shields: number;
  /** the same, by the kind of shield that matched */
  shielded: ShieldKindCounts;
  rejected: number;
  declined: number;
}

/** Events kept out by each kind of shield (docs/ingest.md, "Shields"). */
export interface ShieldKindCounts {
  ip: number;
  country: number;
  page: number;
  hostname: number;
}

/** Sums what the gateways counted into `events`. */
function addCounters(events: EventCounts, counters: Record<string, unknown>): void {
  for (const key of ['accepted', 'dropped_as_bots', 'dropped_by_shields', 'rejected', 'declined'] as const)
    events[key] += Number(counters[key] ?? 0);
  const shielded = (counters.shielded ?? {}) as Partial<ShieldKindCounts>;
  for (const kind of Object.keys(events.shielded) as (keyof ShieldKindCounts)[])
    events.shielded[kind] += Number(shielded[kind] ?? 0);
}

/**
 * Who reads the Health content: the sites they may see, and whether they are an owner. Without
 * one (the operator's answer, alerts) it is read whole.
 */
export interface HealthReader {
  scope: SiteScope;
  owner: boolean;
}

/**
 * The spec's Health content, as the Health view (everyone signed in) and `GET /api/v1/health`
 * show it: version, uptime, events counted by the gateways since they started, the write-ahead
 * log's backlog and its problems, whether the analytics engine is open, the query process's memory, and the disk with how long it lasts
 * at the last seven days' rate. `status` is `degraded` when something needs a person: a gateway
 * refusing or not answering, a stream the tailer stopped at, records it could not read, batches
 * that keep failing, the last backup or off-site copy failed. Backups are null until one was tried;
 * payments are null until a site the reader may see has a payment connection.
 */
export async function healthContent(
  deps: QueryDeps,
  options: { gateways?: GatewayHealth[]; reader?: HealthReader } = {},
) {
  const ingest = options.gateways ?? (await gatewayHealth(deps.instance.paths.run));
  const tailer = deps.analytics.tailer;
  const events: EventCounts = {
    accepted: 0,
    dropped_as_bots: 0,
    dropped_by_shields: 0,
    shielded: { ip: 0, country: 0, page: 0, hostname: 0 },
    rejected: 0,
    declined: 0,
  };
  const streams = ingest.map((g) => {
    if (!g.reachable) return { stream: g.stream, reachable: false, state: null, reason: null };
    addCounters(events, (g.counters ?? {}) as Record<string, unknown>);
    const availability = (g.availability ?? {}) as { state?: string; reason?: string };
    return {
      stream: String(g.stream),
      reachable: true,
      state: availability.state === 'refusing' ? ('refusing' as const) : ('accepting' as const),
      reason: availability.reason ?? null,
    };
  });
  const writer = {
    lag_events: await tailer.liveLag(),
    stuck_streams: tailer.stuck,
    unreadable_records: tailer.unreadable,
    failing: tailer.failing ?? null,
  };
  const backups = deps.backups ? backupHealth(deps.backups.state, deps.config.backupS3 !== undefined) : null;
  const keyMatches = instanceKeyMatches(deps.control);
  const emailReports = emailReports_(deps, options.reader);
  const state = deps.analytics.engineState;
  const engine = {
    kind: deps.config.engine,
    ready: state.ready,
    waiting: state.waiting,
    since: state.since === null ? null : new Date(state.since).toISOString(),
  };
  const degraded =
    !keyMatches ||
    !state.ready ||
    backups?.failing === true ||
    backups?.offsite?.failing === true ||
    streams.some((s) => !s.reachable || s.state === 'refusing') ||
    writer.stuck_streams.length > 0 ||
    writer.unreadable_records > 0 ||
    writer.failing !== null ||
    emailReports?.failing === true;
  return {
    status: degraded ? ('degraded' as const) : ('ok' as const),
    version: footfallVersion(),
    uptime_seconds: Math.floor((deps.now() - deps.startedAt) / 1000),
    events,
    ingest: streams,
    writer,
    engine,
    key_matches: keyMatches,
    memory: { kind: 'rss' as const, bytes: process.memoryUsage().rss },
    disk: await disk(deps),
    backups,
    payments: payments(deps, options.reader),
    email_reports: emailReports,
  };
}

/**
 * E-mail reports once one was tried (docs/email-reports.md): the last 30 days' sent, retried and
 * given up, on the reader's sites, and the newest failure with the mail server's answer. `failing`
 * (the newest report tried did not go out) makes Health degraded: the mail server refuses now.
 */
function emailReports_(deps: QueryDeps, reader: HealthReader | undefined) {
  const h = emailReportHealth(
    deps.control,
    (site) => reader === undefined || scopeAllows(reader.scope, site),
  );
  if (h === null) return null;
  const f = h.lastFailure;
  return {
    sent: h.sent,
    retrying: h.retrying,
    given_up: h.givenUp,
    failing: h.failing,
    last_failure:
      f === null
        ? null
        : {
            site_id: f.siteId,
            domain: getSite(deps.control, f.siteId)?.domain ?? f.siteId,
            kind: f.kind,
            from: f.from,
            to: f.to,
            message: f.message,
            next_try_at: f.nextTryAt === null ? null : new Date(f.nextTryAt).toISOString(),
          },
  };
}

/**
 * Payments once a site has a connection: how many, the last webhook stored, how many deliveries
 * were answered "retry later" because a connection has no signing secret yet, the last
 * reconciliation with a provider (null before any), the exchange rates held, and each connection's
 * own health. A reader sees the connections of their own sites only, and a connection's id (the
 * path of its webhook address) only as an owner, as everywhere else.
 */
function payments(deps: QueryDeps, reader: HealthReader | undefined) {
  const all = allConnections(deps.control).filter(
    (x) => reader === undefined || scopeAllows(reader.scope, x.siteId),
  );
  if (all.length === 0) return null;
  const showIds = reader === undefined || reader.owner;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const lastWebhook = Math.max(...all.map((x) => x.lastEventAt ?? 0));
  const lastSync = all
    .filter((x) => x.syncAttemptedAt !== null)
    .sort((a, b) => (b.syncAttemptedAt ?? 0) - (a.syncAttemptedAt ?? 0))[0];
  return {
    connections: all.length,
    last_webhook_at: lastWebhook === 0 ? null : iso(lastWebhook),
    waiting: all.reduce((n, x) => n + x.waiting, 0),
    last_reconciliation:
      lastSync === undefined ? null : { at: iso(lastSync.syncAttemptedAt), error: lastSync.syncError },
    exchange_rates: deps.exchangeRates?.status ?? { newest_day: null, checked_at: null, error: null },
    sources: all.map((x) => ({
      ...(showIds ? { id: x.id } : {}),
      site_id: x.siteId,
      provider: x.provider,
      name: x.name,
      environment: x.environment,
      mode: x.setup,
      has_signing_secret: x.hasSecret,
      last_webhook_at: iso(x.lastEventAt),
      waiting: x.waiting,
      reconciliation: x.hasApiKey
        ? { attempted_at: iso(x.syncAttemptedAt), succeeded_at: iso(x.syncedAt), error: x.syncError }
        : null,
    })),
  };
}

/** The event counts per engine, read at most once a minute. */
const counted = new WeakMap<object, { at: number; events: number; lastSevenDays: number }>();

/**
 * Data directory size, free space, and days until it is full at the rate of the last seven days:
 * the events stored in those days, at the directory's bytes per stored event. The event counts
 * are read at most once a minute. `runway_days` is null while nothing was stored that week.
 */
export async function disk(deps: QueryDeps) {
  const fs = await statfs(deps.instance.paths.root);
  const dataBytes = (await dataUsage(deps.instance.paths.root)).total;
  const freeBytes = Number(fs.bavail) * Number(fs.bsize);
  const now = deps.now();
  let storage = counted.get(deps.analytics.engine);
  if (!deps.analytics.engineState.ready) storage = { at: now, events: 0, lastSevenDays: 0 };
  else if (storage === undefined || now - storage.at > 60_000) {
    storage = { at: now, ...(await deps.analytics.engine.storage()) };
    counted.set(deps.analytics.engine, storage);
  }
  const bytesPerDay = storage.events === 0 ? 0 : ((storage.lastSevenDays / 7) * dataBytes) / storage.events;
  return {
    data_bytes: dataBytes,
    free_bytes: freeBytes,
    runway_days: bytesPerDay > 0 ? Math.floor((freeBytes / bytesPerDay) * 10) / 10 : null,
    events_per_day: Math.round(storage.lastSevenDays / 7),
  };
}
