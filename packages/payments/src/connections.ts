import { type ControlDb, randomId, randomToken } from '@footfall/control';
import { AppError } from '@footfall/http';
import { PROVIDER_IDS, PROVIDER_NAMES, type ProviderId } from './providers/index.ts';

/** Where payments come from: the five providers, and the custom webhook ("Anything else"). */
export const PROVIDERS = [...PROVIDER_IDS, 'custom'] as const;
export type Provider = ProviderId | 'custom';
/** Live money, or the provider's sandbox / test mode (kept out of real numbers). */
export type ConnectionMode = 'live' | 'sandbox';
/** How it was connected: Footfall created the endpoint with an API key, or the owner did by hand. */
export type Setup = 'automatic' | 'manual';

/** A payment connection as the API shows it: never its signing secret or API key. */
export interface Connection {
  id: string;
  siteId: string;
  provider: Provider;
  name: string;
  setup: Setup;
  environment: ConnectionMode;
  /** false while no signing secret is set: webhooks are then answered "retry later" */
  hasSecret: boolean;
  /** whether an API key is kept, so reconciliation can read the provider's API */
  hasApiKey: boolean;
  createdAt: number;
  lastEventAt: number | null;
  /** deliveries answered "retry later" (no signing secret yet) since the secret was last set */
  waiting: number;
  lastWaitingAt: number | null;
  /** the last reconciliation attempt, the last that succeeded, and the error of the last attempt */
  syncAttemptedAt: number | null;
  syncedAt: number | null;
  syncError: string | null;
}

/** What the webhook route needs to check a delivery, the secret opened. */
export interface WebhookTarget {
  id: string;
  siteId: string;
  provider: Provider;
  environment: ConnectionMode;
  secret: string | null;
}

interface ConnectionRow {
  id: string;
  site_id: string;
  provider: Provider;
  name: string;
  mode: ConnectionMode;
  setup: Setup;
  signing_secret: string | null;
  api_key: string | null;
  endpoint_id: string | null;
  created_at: number;
  last_event_at: number | null;
  waiting: number;
  last_waiting_at: number | null;
  sync_attempted_at: number | null;
  synced_at: number | null;
  sync_error: string | null;
}

const SECRET = 'provider-secret';
const KEY = 'provider-key';

/** How each source of payments is named. */
export const SOURCE_NAMES: Record<Provider, string> = { ...PROVIDER_NAMES, custom: 'Custom webhook' };

const toConnection = (row: ConnectionRow): Connection => ({
  id: row.id,
  siteId: row.site_id,
  provider: row.provider,
  name: row.name,
  setup: row.setup,
  environment: row.mode,
  hasSecret: row.signing_secret !== null,
  hasApiKey: row.api_key !== null,
  createdAt: row.created_at,
  lastEventAt: row.last_event_at,
  waiting: row.waiting,
  lastWaitingAt: row.last_waiting_at,
  syncAttemptedAt: row.sync_attempted_at,
  syncedAt: row.synced_at,
  syncError: row.sync_error,
});

/** A new signing secret for the custom webhook: 256 random bits, with a prefix that says what it is. */
const newSecret = () => `ffwh_${randomToken(32)}`;

/** A signing secret as pasted: surrounding white space and quotes removed; never blank. */
export function cleanSecret(pasted: string): string {
  const secret = pasted.trim().replace(/^["'`]+|["'`]+$/g, '');
  if (secret === '' || /\s/.test(secret)) {
    throw new AppError('invalid_body', 'signing_secret: paste the whole secret, without spaces', {
      field: 'signing_secret',
    });
  }
  return secret;
}

function row(ctl: ControlDb, siteId: string, id: string): ConnectionRow {
  const found = ctl.raw
    .prepare('SELECT * FROM payment_connections WHERE id = ? AND site_id = ?')
    .get(id, siteId) as ConnectionRow | undefined;
  if (!found) throw new AppError('not_found', 'no such payment connection');
  return found;
}

export interface NewConnection {
  siteId: string;
  provider: Provider;
  name?: string | undefined;
  /** manual unless said (custom: always manual) */
  setup?: Setup | undefined;
  /** live unless said */
  environment?: ConnectionMode | undefined;
  /** a provider's signing secret as the owner or the provider gave it; custom: issued here */
  signingSecret?: string | undefined;
  /** the API key of an automatic connection (kept sealed for reconciliation) */
  apiKey?: string | undefined;
  endpointId?: string | undefined;
  /** a known id: an automatic connection's webhook URL is made before the row exists */
  id?: string | undefined;
}

/** A new connection id (16 random characters: the webhook URL cannot be guessed). */
export const newConnectionId = () => randomId(16);

/**
 * Stores a connection. A custom connection gets a signing secret issued here, answered once; a
 * provider's secret (and API key) is stored sealed with the instance key.
 */
export function createConnection(
  ctl: ControlDb,
  input: NewConnection & { provider: 'custom' },
): { connection: Connection; signingSecret: string };
export function createConnection(
  ctl: ControlDb,
  input: NewConnection,
): { connection: Connection; signingSecret: string | null };
export function createConnection(
  ctl: ControlDb,
  input: NewConnection,
): { connection: Connection; signingSecret: string | null } {
  const signingSecret = input.provider === 'custom' ? newSecret() : (input.signingSecret ?? null);
  const r: ConnectionRow = {
    id: input.id ?? newConnectionId(),
    site_id: input.siteId,
    provider: input.provider,
    name: input.name?.trim() || SOURCE_NAMES[input.provider],
    mode: input.environment ?? 'live',
    setup: input.provider === 'custom' ? 'manual' : (input.setup ?? 'manual'),
    signing_secret: signingSecret === null ? null : ctl.cipher.sealText(signingSecret, SECRET),
    api_key: input.apiKey ? ctl.cipher.sealText(input.apiKey, KEY) : null,
    endpoint_id: input.endpointId ?? null,
    created_at: ctl.now(),
    last_event_at: null,
    waiting: 0,
    last_waiting_at: null,
    sync_attempted_at: null,
    synced_at: null,
    sync_error: null,
  };
  ctl.raw
    .prepare(
      `INSERT INTO payment_connections (id, site_id, provider, name, mode, setup, signing_secret, api_key,
         endpoint_id, created_at)
       VALUES (@id, @site_id, @provider, @name, @mode, @setup, @signing_secret, @api_key, @endpoint_id,
         @created_at)`,
    )
    .run(r);
  return {
    connection: toConnection(r),
    signingSecret: input.provider === 'custom' ? signingSecret : null,
  };
}

/** A site's connections, oldest first. */
export function listConnections(ctl: ControlDb, siteId: string): Connection[] {
  const rows = ctl.raw
    .prepare('SELECT * FROM payment_connections WHERE site_id = ? ORDER BY created_at, id')
    .all(siteId) as ConnectionRow[];
  return rows.map(toConnection);
}

/** Every connection of the instance, by site then age (Health, the CLI and the sync job). */
export function allConnections(ctl: ControlDb): Connection[] {
  const rows = ctl.raw
    .prepare('SELECT * FROM payment_connections ORDER BY site_id, created_at, id')
    .all() as ConnectionRow[];
  return rows.map(toConnection);
}

/** One connection of a site (404 when it has none of that id). */
export function getConnection(ctl: ControlDb, siteId: string, id: string): Connection {
  return toConnection(row(ctl, siteId, id));
}

/** Every site's connections together: how many, and when the last webhook was stored (unix ms). */
export function connectionsSummary(ctl: ControlDb): { count: number; lastEventAt: number | null } {
  const found = ctl.raw
    .prepare('SELECT count(*) AS n, max(last_event_at) AS last FROM payment_connections')
    .get() as { n: number; last: number | null };
  return { count: found.n, lastEventAt: found.last };
}

/**
 * Whether a site has any connection (its reports and CSV then carry revenue), or one of `provider`
 * (a Paddle connection adds the Paddle.js add-on to its tracker).
 */
export function hasConnections(ctl: ControlDb, siteId: string, provider?: Provider): boolean {
  const sql =
    provider === undefined
      ? 'SELECT 1 FROM payment_connections WHERE site_id = ? LIMIT 1'
      : 'SELECT 1 FROM payment_connections WHERE site_id = ? AND provider = ? LIMIT 1';
  return ctl.raw.prepare(sql).get(...(provider === undefined ? [siteId] : [siteId, provider])) !== undefined;
}

export function renameConnection(ctl: ControlDb, siteId: string, id: string, name: string): Connection {
  const trimmed = name.trim();
  if (!trimmed) throw new AppError('invalid_body', 'name must not be blank', { field: 'name' });
  row(ctl, siteId, id);
  ctl.raw.prepare('UPDATE payment_connections SET name = ? WHERE id = ?').run(trimmed, id);
  return toConnection(row(ctl, siteId, id));
}

/**
 * Sets a provider connection's signing secret (manual set-up: the secret the owner copied from the
 * provider). Deliveries waiting for it are counted from zero again: the provider's next retry passes.
 */
export function setSigningSecret(ctl: ControlDb, siteId: string, id: string, secret: string): Connection {
  const found = row(ctl, siteId, id);
  if (found.provider === 'custom') {
    throw new AppError(
      'invalid_body',
      'a custom connection is issued its secret by Footfall: rotate it instead',
      {
        field: 'signing_secret',
      },
    );
  }
  ctl.raw
    .prepare('UPDATE payment_connections SET signing_secret = ?, waiting = 0 WHERE id = ?')
    .run(ctl.cipher.sealText(cleanSecret(secret), SECRET), id);
  return toConnection(row(ctl, siteId, id));
}

/** A connection's signing secret, opened (owners only, checked by the route); null when unset. */
export function readSigningSecret(ctl: ControlDb, siteId: string, id: string): string | null {
  const found = row(ctl, siteId, id);
  return found.signing_secret === null ? null : ctl.cipher.openText(found.signing_secret, SECRET);
}

/** A new signing secret for a custom connection; the old one stops working at once. Answered here only. */
export function rotateSecret(
  ctl: ControlDb,
  siteId: string,
  id: string,
): { connection: Connection; signingSecret: string } {
  const found = row(ctl, siteId, id);
  if (found.provider !== 'custom') {
    throw new AppError(
      'invalid_body',
      `${SOURCE_NAMES[found.provider]} issues the signing secret: roll it there and paste it here`,
    );
  }
  const signingSecret = newSecret();
  ctl.raw
    .prepare('UPDATE payment_connections SET signing_secret = ? WHERE id = ?')
    .run(ctl.cipher.sealText(signingSecret, SECRET), id);
  return { connection: toConnection(row(ctl, siteId, id)), signingSecret };
}

/**
 * Removes a connection with its stored webhooks and its part of the ledger. Answers what the
 * caller needs to remove the provider's endpoint too (automatic connections).
 */
export function deleteConnection(
  ctl: ControlDb,
  siteId: string,
  id: string,
): { provider: Provider; apiKey: string | null; endpointId: string | null; environment: ConnectionMode } {
  const found = row(ctl, siteId, id);
  ctl.raw.prepare('DELETE FROM payment_connections WHERE id = ?').run(id);
  return {
    provider: found.provider,
    apiKey: found.api_key === null ? null : ctl.cipher.openText(found.api_key, KEY),
    endpointId: found.endpoint_id,
    environment: found.mode,
  };
}

/** The connection a webhook names, with its secret opened; undefined when there is none. */
export function webhookTarget(ctl: ControlDb, id: string): WebhookTarget | undefined {
  const r = ctl.raw.prepare('SELECT * FROM payment_connections WHERE id = ?').get(id) as
    | ConnectionRow
    | undefined;
  if (!r) return undefined;
  return {
    id: r.id,
    siteId: r.site_id,
    provider: r.provider,
    environment: r.mode,
    secret: r.signing_secret === null ? null : ctl.cipher.openText(r.signing_secret, SECRET),
  };
}

/** Counts a delivery answered "retry later" because the connection has no signing secret yet. */
export function noteWaiting(ctl: ControlDb, id: string): void {
  ctl.raw
    .prepare('UPDATE payment_connections SET waiting = waiting + 1, last_waiting_at = ? WHERE id = ?')
    .run(ctl.now(), id);
}

/** What reconciliation needs of a connection: its API key opened (null: a manual connection). */
export function syncTarget(
  ctl: ControlDb,
  id: string,
): { connection: Connection; apiKey: string | null } | undefined {
  const r = ctl.raw.prepare('SELECT * FROM payment_connections WHERE id = ?').get(id) as
    | ConnectionRow
    | undefined;
  if (!r) return undefined;
  return {
    connection: toConnection(r),
    apiKey: r.api_key === null ? null : ctl.cipher.openText(r.api_key, KEY),
  };
}

/** Records the outcome of a reconciliation attempt (error null: it succeeded). */
export function noteSync(ctl: ControlDb, id: string, at: number, error: string | null): void {
  ctl.raw
    .prepare(
      `UPDATE payment_connections SET sync_attempted_at = @at, sync_error = @error,
         synced_at = CASE WHEN @error IS NULL THEN @at ELSE synced_at END
       WHERE id = @id`,
    )
    .run({ id, at, error });
}
