import { type ControlDb, randomId, randomToken } from '@footfall/control';
import { AppError } from '@footfall/http';

/** Where payments come from. The custom webhook first; the providers join in the next release. */
export const PROVIDERS = ['custom'] as const;
export type Provider = (typeof PROVIDERS)[number];
export type ConnectionMode = 'live' | 'sandbox';

/** A payment connection as the API shows it: never its signing secret. */
export interface Connection {
  id: string;
  siteId: string;
  provider: Provider;
  name: string;
  mode: ConnectionMode;
  /** false while no signing secret is set: webhooks are then answered "retry later" */
  hasSecret: boolean;
  createdAt: number;
  lastEventAt: number | null;
}

/** What the webhook route needs to check a delivery, the secret opened. */
export interface WebhookTarget {
  id: string;
  siteId: string;
  provider: Provider;
  mode: ConnectionMode;
  secret: string | null;
}

interface ConnectionRow {
  id: string;
  site_id: string;
  provider: Provider;
  name: string;
  mode: ConnectionMode;
  signing_secret: string | null;
  created_at: number;
  last_event_at: number | null;
}

const PURPOSE = 'provider-secret';
const NAMES: Record<Provider, string> = { custom: 'Custom webhook' };

const toConnection = (row: ConnectionRow): Connection => ({
  id: row.id,
  siteId: row.site_id,
  provider: row.provider,
  name: row.name,
  mode: row.mode,
  hasSecret: row.signing_secret !== null,
  createdAt: row.created_at,
  lastEventAt: row.last_event_at,
});

/** A new signing secret: 256 random bits, with a prefix that says what it is when pasted. */
const newSecret = () => `ffwh_${randomToken(32)}`;

function row(ctl: ControlDb, siteId: string, id: string): ConnectionRow {
  const found = ctl.raw
    .prepare('SELECT * FROM payment_connections WHERE id = ? AND site_id = ?')
    .get(id, siteId) as ConnectionRow | undefined;
  if (!found) throw new AppError('not_found', 'no such payment connection');
  return found;
}

/**
 * Connects a source of payments to a site. A custom connection gets its signing secret at once;
 * the secret is answered here only and stored sealed with the instance key.
 */
export function createConnection(
  ctl: ControlDb,
  input: { siteId: string; provider: Provider; name?: string | undefined; mode?: ConnectionMode | undefined },
): { connection: Connection; signingSecret: string } {
  const signingSecret = newSecret();
  const r: ConnectionRow = {
    id: randomId(16),
    site_id: input.siteId,
    provider: input.provider,
    name: input.name?.trim() || NAMES[input.provider],
    mode: input.mode ?? 'live',
    signing_secret: ctl.cipher.sealText(signingSecret, PURPOSE),
    created_at: ctl.now(),
    last_event_at: null,
  };
  ctl.raw
    .prepare(
      `INSERT INTO payment_connections (id, site_id, provider, name, mode, signing_secret, created_at)
       VALUES (@id, @site_id, @provider, @name, @mode, @signing_secret, @created_at)`,
    )
    .run(r);
  return { connection: toConnection(r), signingSecret };
}

/** A site's connections, oldest first. */
export function listConnections(ctl: ControlDb, siteId: string): Connection[] {
  const rows = ctl.raw
    .prepare('SELECT * FROM payment_connections WHERE site_id = ? ORDER BY created_at, id')
    .all(siteId) as ConnectionRow[];
  return rows.map(toConnection);
}

/** Every site's connections together: how many, and when the last webhook was stored (unix ms). */
export function connectionsSummary(ctl: ControlDb): { count: number; lastEventAt: number | null } {
  const row = ctl.raw
    .prepare('SELECT count(*) AS n, max(last_event_at) AS last FROM payment_connections')
    .get() as { n: number; last: number | null };
  return { count: row.n, lastEventAt: row.last };
}

/** Whether a site has any connection: its reports and CSV then carry revenue. */
export function hasConnections(ctl: ControlDb, siteId: string): boolean {
  return (
    ctl.raw.prepare('SELECT 1 FROM payment_connections WHERE site_id = ? LIMIT 1').get(siteId) !== undefined
  );
}

export function renameConnection(ctl: ControlDb, siteId: string, id: string, name: string): Connection {
  const trimmed = name.trim();
  if (!trimmed) throw new AppError('invalid_body', 'name must not be blank', { field: 'name' });
  row(ctl, siteId, id);
  ctl.raw.prepare('UPDATE payment_connections SET name = ? WHERE id = ?').run(trimmed, id);
  return toConnection(row(ctl, siteId, id));
}

/** A new signing secret; the old one stops working at once. Answered here only. */
export function rotateSecret(
  ctl: ControlDb,
  siteId: string,
  id: string,
): { connection: Connection; signingSecret: string } {
  row(ctl, siteId, id);
  const signingSecret = newSecret();
  ctl.raw
    .prepare('UPDATE payment_connections SET signing_secret = ? WHERE id = ?')
    .run(ctl.cipher.sealText(signingSecret, PURPOSE), id);
  return { connection: toConnection(row(ctl, siteId, id)), signingSecret };
}

/** Removes a connection with its stored webhooks and its part of the ledger. */
export function deleteConnection(ctl: ControlDb, siteId: string, id: string): void {
  row(ctl, siteId, id);
  ctl.raw.prepare('DELETE FROM payment_connections WHERE id = ?').run(id);
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
    mode: r.mode,
    secret: r.signing_secret === null ? null : ctl.cipher.openText(r.signing_secret, PURPOSE),
  };
}
