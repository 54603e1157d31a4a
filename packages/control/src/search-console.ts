import { AppError } from '@footfall/http';
import { SealError } from './crypto.ts';
import type { ControlDb } from './open.ts';
import type { ControlSchema } from './schema.ts';

/** What a service-account key holds that the server uses. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

/** A site's Search Console connection as owners see it (never the key). */
export interface SearchConsoleConnection {
  siteId: string;
  /** `sc-domain:example.com` or a URL-prefix property `https://example.com/` */
  property: string;
  clientEmail: string;
  connectedAt: number;
  syncedAt: number | null;
  lastError: { at: number; message: string } | null;
}

const bad = (field: string, message: string) =>
  new AppError('invalid_body', `${field}: ${message}`, { field });

/** A property as Search Console names it: a domain property or a URL prefix ending in `/`. */
export function checkProperty(property: string): string {
  const p = property.trim();
  if (/^sc-domain:[a-z0-9.-]+\.[a-z]{2,}$/i.test(p)) return p.toLowerCase();
  try {
    const url = new URL(p);
    if (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      p.endsWith('/') &&
      !url.search &&
      !url.hash
    )
      return url.toString();
  } catch {
    // not a URL
  }
  throw bad('property', 'sc-domain:example.com, or a URL prefix such as https://example.com/');
}

/** The parts of a service-account key (the JSON file Google gives) the server needs; 400 otherwise. */
export function checkServiceAccountKey(text: string): ServiceAccountKey {
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw bad('service_account_key', 'the JSON key file of a service account, as Google gives it');
  }
  if (key?.type !== 'service_account')
    throw bad('service_account_key', 'its "type" must be "service_account"');
  if (typeof key.client_email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(key.client_email))
    throw bad('service_account_key', 'it has no client_email');
  if (typeof key.private_key !== 'string' || !key.private_key.includes('PRIVATE KEY'))
    throw bad('service_account_key', 'it has no private_key');
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    ...(typeof key.private_key_id === 'string' ? { private_key_id: key.private_key_id } : {}),
  };
}

type Row = ControlSchema['search_console'];

const toConnection = (r: Row): SearchConsoleConnection => ({
  siteId: r.site_id,
  property: r.property,
  clientEmail: r.client_email,
  connectedAt: r.connected_at,
  syncedAt: r.synced_at,
  lastError: r.last_error === null ? null : { at: r.last_error_at ?? 0, message: r.last_error },
});

export function searchConsoleOf(ctl: ControlDb, siteId: string): SearchConsoleConnection | undefined {
  const row = ctl.raw.prepare('SELECT * FROM search_console WHERE site_id = ?').get(siteId) as
    | Row
    | undefined;
  return row === undefined ? undefined : toConnection(row);
}

/** Every connected site's connection (the sync looks at which are due). */
export function listSearchConsole(ctl: ControlDb): SearchConsoleConnection[] {
  return (ctl.raw.prepare('SELECT * FROM search_console ORDER BY site_id').all() as Row[]).map(toConnection);
}

/** A connection's key, opened for a pull; undefined when sealed with another instance key. */
export function searchConsoleKey(ctl: ControlDb, siteId: string): ServiceAccountKey | undefined {
  const row = ctl.raw.prepare('SELECT credentials FROM search_console WHERE site_id = ?').get(siteId) as
    | Pick<Row, 'credentials'>
    | undefined;
  if (row === undefined) return undefined;
  try {
    return JSON.parse(ctl.cipher.openText(row.credentials, 'search-console')) as ServiceAccountKey;
  } catch (error) {
    if (error instanceof SealError) return undefined;
    throw error;
  }
}

/** Connects (or reconnects) a site, with the clicks already pulled for it; the key is sealed. */
export function saveSearchConsole(
  ctl: ControlDb,
  siteId: string,
  property: string,
  key: ServiceAccountKey,
  clicks: readonly SearchClicks[],
): SearchConsoleConnection {
  const now = ctl.now();
  ctl.raw.transaction(() => {
    ctl.raw
      .prepare(
        `INSERT INTO search_console (site_id, property, client_email, credentials, connected_at, synced_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (site_id) DO UPDATE SET property = excluded.property, client_email = excluded.client_email,
           credentials = excluded.credentials, connected_at = excluded.connected_at, synced_at = excluded.synced_at,
           last_error = NULL, last_error_at = NULL`,
      )
      .run(
        siteId,
        property,
        key.client_email,
        ctl.cipher.sealText(JSON.stringify(key), 'search-console'),
        now,
        now,
      );
    ctl.raw.prepare('DELETE FROM search_clicks WHERE site_id = ?').run(siteId);
    writeClicks(ctl, siteId, clicks);
  })();
  return searchConsoleOf(ctl, siteId)!;
}

/** Disconnects a site: its key and the clicks pulled are deleted. */
export function deleteSearchConsole(ctl: ControlDb, siteId: string): void {
  const r = ctl.raw.prepare('DELETE FROM search_console WHERE site_id = ?').run(siteId);
  ctl.raw.prepare('DELETE FROM search_clicks WHERE site_id = ?').run(siteId);
  if (r.changes === 0) throw new AppError('not_found', 'this site is not connected to Search Console');
}

/** Clicks of one page on one day, as Search Console reports them. */
export interface SearchClicks {
  day: string;
  path: string;
  clicks: number;
  impressions: number;
}

function writeClicks(ctl: ControlDb, siteId: string, clicks: readonly SearchClicks[]): void {
  const put = ctl.raw.prepare(
    `INSERT INTO search_clicks (site_id, day, path, clicks, impressions) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (site_id, day, path) DO UPDATE SET clicks = excluded.clicks, impressions = excluded.impressions`,
  );
  for (const c of clicks) put.run(siteId, c.day, c.path, c.clicks, c.impressions);
}

/** A later pull: the days it covers are replaced by what it answered. */
export function recordSearchSync(
  ctl: ControlDb,
  siteId: string,
  days: { from: string; to: string },
  clicks: readonly SearchClicks[],
): void {
  ctl.raw.transaction(() => {
    ctl.raw
      .prepare('DELETE FROM search_clicks WHERE site_id = ? AND day >= ? AND day <= ?')
      .run(siteId, days.from, days.to);
    writeClicks(ctl, siteId, clicks);
    ctl.raw
      .prepare(
        'UPDATE search_console SET synced_at = ?, last_error = NULL, last_error_at = NULL WHERE site_id = ?',
      )
      .run(ctl.now(), siteId);
  })();
}

export function recordSearchError(ctl: ControlDb, siteId: string, message: string): void {
  ctl.raw
    .prepare('UPDATE search_console SET last_error = ?, last_error_at = ? WHERE site_id = ?')
    .run(message.slice(0, 300), ctl.now(), siteId);
}

/** Search-engine clicks per page over the days from..to (inclusive). */
export function searchClicksByPath(
  ctl: ControlDb,
  siteId: string,
  from: string,
  to: string,
): Map<string, number> {
  const rows = ctl.raw
    .prepare(
      `SELECT path, sum(clicks) AS clicks FROM search_clicks
       WHERE site_id = ? AND day >= ? AND day <= ? GROUP BY path`,
    )
    .all(siteId, from, to) as { path: string; clicks: number }[];
  return new Map(rows.map((r) => [r.path, r.clicks]));
}
