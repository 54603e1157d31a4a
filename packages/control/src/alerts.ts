import { AppError } from '@footfall/http';
import { type Kysely, sql } from 'kysely';
import { SealError } from './crypto.ts';
import { KEY_CHECK_TEXT, sealedWithOtherKey } from './key-check.ts';
import type { ControlDb } from './open.ts';
import type { AlertDeliveriesTable, AlertDestinationsTable, ControlSchema } from './schema.ts';
import { randomId, randomToken } from './tokens.ts';

/**
 * What an alert destination can receive (docs/alerts.md): a site's tracking stopped, a busy day,
 * someone paid, the disk filling, and the instance's health problems (each sent when it starts
 * and when it clears).
 */
export const ALERT_KINDS = [
  'tracking_stopped',
  'busy_day',
  'payment',
  'disk_filling',
  'health',
  'milestone',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The most destinations one site has. */
export const ALERT_DESTINATIONS_PER_SITE_MAX = 10;

/**
 * Retries of a delivery that failed: the wait before each next attempt. After the last one fails
 * the delivery is given up (`failed`). About 7 hours from the first attempt to the last.
 */
export const ALERT_RETRY_DELAYS_MS: readonly number[] = [
  30_000,
  2 * 60_000,
  10 * 60_000,
  60 * 60_000,
  6 * 60 * 60_000,
];

/** Deliveries done (sent or given up) are kept this long, for the list's "last sent" and tests. */
const DONE_KEPT_MS = 30 * 24 * 60 * 60_000;

export interface AlertDestination {
  id: string;
  siteId: string;
  channel: 'webhook' | 'email';
  /** the URL or the address; null when it was sealed with another instance key */
  target: string | null;
  /** the URL's host or the address's domain */
  host: string;
  kinds: AlertKind[];
  createdAt: number;
  lastSentAt: number | null;
  lastFailure: { at: number; message: string } | null;
}

export interface NewAlertDestination {
  channel: 'webhook' | 'email';
  /** a URL already checked (outbound.ts checkDestination), or an address already checked */
  target: string;
  host: string;
  kinds: readonly AlertKind[];
}

const kindsOf = (stored: string): AlertKind[] => {
  try {
    const list: unknown = JSON.parse(stored);
    return Array.isArray(list) ? ALERT_KINDS.filter((k) => list.includes(k)) : [];
  } catch {
    return [];
  }
};

function openTarget(ctl: ControlDb, sealed: string): string | null {
  try {
    return ctl.cipher.openText(sealed, 'alert-target');
  } catch (error) {
    if (error instanceof SealError) return null;
    throw error;
  }
}

const toDestination = (ctl: ControlDb, r: AlertDestinationsTable): AlertDestination => ({
  id: r.id,
  siteId: r.site_id,
  channel: r.channel,
  target: openTarget(ctl, r.target),
  host: r.host,
  kinds: kindsOf(r.kinds),
  createdAt: r.created_at,
  lastSentAt: r.last_sent_at,
  lastFailure:
    r.last_failed_at !== null && (r.last_sent_at === null || r.last_failed_at > r.last_sent_at)
      ? { at: r.last_failed_at, message: r.last_error ?? 'failed' }
      : null,
});

/** A site's alert destinations, oldest first. */
export async function listAlertDestinations(ctl: ControlDb, siteId: string): Promise<AlertDestination[]> {
  const rows = await ctl.db
    .selectFrom('alert_destinations')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy(sql`rowid`)
    .execute();
  return rows.map((r) => toDestination(ctl, r));
}

/** Every destination of every site that receives `kind`. */
export async function destinationsFor(
  ctl: ControlDb,
  kind: AlertKind,
  siteId?: string,
): Promise<AlertDestination[]> {
  let q = ctl.db.selectFrom('alert_destinations').selectAll().orderBy(sql`rowid`);
  if (siteId !== undefined) q = q.where('site_id', '=', siteId);
  const rows = await q.execute();
  return rows.map((r) => toDestination(ctl, r)).filter((d) => d.kinds.includes(kind));
}

export async function getAlertDestination(
  ctl: ControlDb,
  siteId: string,
  id: string,
): Promise<AlertDestination> {
  const row = await ctl.db
    .selectFrom('alert_destinations')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) throw new AppError('not_found', 'no such alert destination');
  return toDestination(ctl, row);
}

/**
 * Adds a destination. A webhook gets its own signing secret, answered here once (it is kept
 * sealed and never shown again); the same URL or address twice on one site is a 409.
 */
export async function createAlertDestination(
  ctl: ControlDb,
  siteId: string,
  input: NewAlertDestination,
): Promise<{ destination: AlertDestination; secret: string | null }> {
  const existing = await listAlertDestinations(ctl, siteId);
  if (existing.length >= ALERT_DESTINATIONS_PER_SITE_MAX) {
    throw new AppError(
      'conflict',
      `a site has at most ${ALERT_DESTINATIONS_PER_SITE_MAX} alert destinations: remove one first`,
    );
  }
  if (existing.some((d) => d.channel === input.channel && d.target === input.target)) {
    throw new AppError('conflict', 'this site already sends alerts there');
  }
  const id = randomId();
  const secret = input.channel === 'webhook' ? `ffal_${randomToken(24)}` : null;
  await ctl.db
    .insertInto('alert_destinations')
    .values({
      id,
      site_id: siteId,
      channel: input.channel,
      target: ctl.cipher.sealText(input.target, 'alert-target'),
      host: input.host,
      secret: secret === null ? null : ctl.cipher.sealText(secret, 'alert-secret'),
      kinds: JSON.stringify(ALERT_KINDS.filter((k) => input.kinds.includes(k))),
      created_at: ctl.now(),
      last_sent_at: null,
      last_failed_at: null,
      last_error: null,
    })
    .execute();
  return { destination: await getAlertDestination(ctl, siteId, id), secret };
}

/** Changes which kinds a destination receives. */
export async function updateAlertDestination(
  ctl: ControlDb,
  siteId: string,
  id: string,
  kinds: readonly AlertKind[],
): Promise<AlertDestination> {
  const r = await ctl.db
    .updateTable('alert_destinations')
    .set({ kinds: JSON.stringify(ALERT_KINDS.filter((k) => kinds.includes(k))) })
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw new AppError('not_found', 'no such alert destination');
  return getAlertDestination(ctl, siteId, id);
}

/** Removes a destination and whatever was still waiting to be sent to it. */
export async function deleteAlertDestination(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const r = await ctl.db
    .deleteFrom('alert_destinations')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new AppError('not_found', 'no such alert destination');
}

/** What sending needs: the target and the webhook's secret, opened (throws SealError on another key). */
export async function destinationSecrets(
  ctl: ControlDb,
  id: string,
): Promise<
  { channel: 'webhook' | 'email'; target: string; host: string; secret: string | null } | undefined
> {
  const row = await ctl.db
    .selectFrom('alert_destinations')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    channel: row.channel,
    target: ctl.cipher.openText(row.target, 'alert-target'),
    host: row.host,
    secret: row.secret === null ? null : ctl.cipher.openText(row.secret, 'alert-secret'),
  };
}

/**
 * Queues one alert for each destination given, to be sent at once. Synchronous (better-sqlite3),
 * so a rule can queue it in the same transaction that records what it has told: after a crash
 * either both are stored or neither (the alert pass, apps/query/src/alerts/alerts.ts).
 */
export function enqueueAlert(
  ctl: Pick<ControlDb, 'raw' | 'now'>,
  alert: { id: string; kind: string; payload: unknown },
  destinationIds: readonly string[],
): void {
  if (destinationIds.length === 0) return;
  const now = ctl.now();
  const payload = JSON.stringify(alert.payload);
  const insert = ctl.raw.prepare(
    `INSERT INTO alert_deliveries (destination_id, alert_id, kind, payload, created_at, next_at, state)
     VALUES (?, ?, ?, ?, ?, ?, 'pending')`,
  );
  // all of the alert's deliveries or none (a savepoint inside the caller's transaction)
  ctl.raw.transaction(() => {
    for (const id of destinationIds) insert.run(id, alert.id, alert.kind, payload, now, now);
  })();
}

export type AlertDelivery = Pick<
  AlertDeliveriesTable,
  'destination_id' | 'alert_id' | 'kind' | 'payload' | 'created_at' | 'next_at' | 'state' | 'last_error'
> & { id: number; attempts: number };

/** Deliveries whose time has come, oldest first. */
export async function dueDeliveries(ctl: ControlDb, limit = 50): Promise<AlertDelivery[]> {
  return (await ctl.db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('state', '=', 'pending')
    .where('next_at', '<=', ctl.now())
    .orderBy('id')
    .limit(limit)
    .execute()) as AlertDelivery[];
}

/** The deliveries of one alert (tests, and the answer of "send a test alert"). */
export async function deliveriesOf(ctl: ControlDb, alertId: string): Promise<AlertDelivery[]> {
  return (await ctl.db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('alert_id', '=', alertId)
    .orderBy('id')
    .execute()) as AlertDelivery[];
}

/**
 * Records an attempt: sent, or failed with the reason (never the URL). A failed attempt is tried
 * again after the next of ALERT_RETRY_DELAYS_MS, or given up after the last. Answers the state.
 */
export async function recordAttempt(
  ctl: ControlDb,
  delivery: AlertDelivery,
  error: string | null,
): Promise<'sent' | 'pending' | 'failed'> {
  const now = ctl.now();
  const attempts = delivery.attempts + 1;
  const delay = ALERT_RETRY_DELAYS_MS[attempts - 1];
  const state = error === null ? 'sent' : delay === undefined ? 'failed' : 'pending';
  await ctl.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('alert_deliveries')
      .set({
        attempts,
        state,
        last_error: error,
        next_at: state === 'pending' ? now + (delay ?? 0) : delivery.next_at,
        done_at: state === 'pending' ? null : now,
      })
      .where('id', '=', delivery.id)
      .execute();
    await noteResult(trx, delivery.destination_id, error, now);
    await trx
      .deleteFrom('alert_deliveries')
      .where('state', '!=', 'pending')
      .where('done_at', '<', now - DONE_KEPT_MS)
      .execute();
  });
  return state;
}

/** A destination's last outcome, for its line in the list: sent, or failed and why. */
export async function noteDestinationResult(ctl: ControlDb, id: string, error: string | null): Promise<void> {
  await noteResult(ctl.db, id, error, ctl.now());
}

function noteResult(db: Kysely<ControlSchema>, id: string, error: string | null, now: number) {
  return db
    .updateTable('alert_destinations')
    .set(error === null ? { last_sent_at: now } : { last_failed_at: now, last_error: error })
    .where('id', '=', id)
    .execute();
}

/** What a rule last saw (scope: a site id, or '*' for the instance); undefined before it saw anything. */
export function alertState(ctl: Pick<ControlDb, 'raw'>, scope: string, name: string): string | undefined {
  const row = ctl.raw
    .prepare('SELECT value FROM alert_state WHERE scope = ? AND name = ?')
    .get(scope, name) as { value: string } | undefined;
  return row?.value;
}

export function setAlertState(ctl: ControlDb, scope: string, name: string, value: string): void {
  ctl.raw
    .prepare(
      `INSERT INTO alert_state (scope, name, value, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, name) DO UPDATE SET value = excluded.value, at = excluded.at`,
    )
    .run(scope, name, value, ctl.now());
}

/**
 * Whether the instance key is the one the control database was sealed with: a known value, sealed
 * when the database is first opened (open.ts), is opened again. false when it was sealed with another key
 * (FOOTFALL_SECRET changed, or a data directory moved without its secret.key).
 */
export function instanceKeyMatches(ctl: ControlDb): boolean {
  const row = ctl.raw.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as
    | { value: string }
    | undefined;
  // no check value yet: what is already sealed tells (key-check.ts)
  if (row === undefined) return !sealedWithOtherKey(ctl.raw, ctl.cipher);
  try {
    return ctl.cipher.openText(row.value, 'key-check') === KEY_CHECK_TEXT;
  } catch (error) {
    if (error instanceof SealError) return false;
    throw error;
  }
}
