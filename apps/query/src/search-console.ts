import { createSign } from 'node:crypto';
import {
  type ControlDb,
  getSite,
  listSearchConsole,
  recordSearchError,
  recordSearchSync,
  type SearchClicks,
  type ServiceAccountKey,
  searchConsoleKey,
} from '@footfall/control';
import { AppError, type Logger } from '@footfall/http';

/** Google's endpoints; FOOTFALL_UNSAFE_GOOGLE_API replaces both with one local base in tests. */
const TOKEN_URL = 'https://oauth2.googleapis.com/token';
const API_URL = 'https://www.googleapis.com/webmasters/v3';
const SCOPE = 'https://www.googleapis.com/auth/webmasters.readonly';
/** Days pulled: the last 30 finished days (Search Console's own data lags by two or three). */
export const SEARCH_DAYS = 30;
/** How often a connected site is pulled again. */
export const SEARCH_SYNC_MS = 12 * 3_600_000;
/** How soon a failed pull is tried again. */
const SEARCH_RETRY_MS = 3_600_000;
/** Rows per request, Search Console's maximum; at most this many requests per pull. */
const ROW_LIMIT = 25_000;
const MAX_PAGES = 8;

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface GoogleApi {
  tokenUrl: string;
  apiUrl: string;
  /** the Google Analytics Data API (imports/ga4.ts) */
  analyticsUrl: string;
}

const ANALYTICS_URL = 'https://analyticsdata.googleapis.com/v1beta';

export const googleApi = (unsafeBase: string | undefined): GoogleApi =>
  unsafeBase
    ? {
        tokenUrl: `${unsafeBase}/token`,
        apiUrl: `${unsafeBase}/webmasters/v3`,
        analyticsUrl: `${unsafeBase}/analyticsdata/v1beta`,
      }
    : { tokenUrl: TOKEN_URL, apiUrl: API_URL, analyticsUrl: ANALYTICS_URL };

/** Why Google refused, in its own words when it gave some. */
export async function googleError(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; error_description?: string };
    const message =
      body.error_description ?? (typeof body.error === 'string' ? body.error : body.error?.message) ?? text;
    return `${res.status}: ${message}`.slice(0, 300);
  } catch {
    return `${res.status}: ${text}`.slice(0, 300);
  }
}

export async function call(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(15_000), redirect: 'error' });
  } catch (error) {
    throw new AppError('provider_unreachable', `Google could not be reached (${(error as Error).message})`, {
      retryAfter: 60,
    });
  }
}

/** An access token for the service account: a JWT signed with its key, exchanged at Google's token endpoint. */
export async function accessToken(
  api: GoogleApi,
  key: ServiceAccountKey,
  now: number,
  scope = SCOPE,
): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header = b64url(
    JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) }),
  );
  const claims = b64url(
    JSON.stringify({ iss: key.client_email, scope, aud: api.tokenUrl, iat, exp: iat + 3600 }),
  );
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key, 'base64url');
  } catch {
    throw new AppError('invalid_body', 'service_account_key: its private_key cannot sign', {
      field: 'service_account_key',
    });
  }
  const res = await call(api.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: `${header}.${claims}.${signature}`,
    }),
  });
  if (res.status >= 500)
    throw new AppError('provider_unreachable', `Google answered ${await googleError(res)}`);
  if (!res.ok) {
    throw new AppError('provider_key_rejected', `Google did not accept the key: ${await googleError(res)}`, {
      field: 'service_account_key',
    });
  }
  const body = (await res.json()) as { access_token?: unknown };
  if (typeof body.access_token !== 'string')
    throw new AppError('provider_unreachable', 'Google answered no access token');
  return body.access_token;
}

/** A page URL of Search Console as the site's path (`/pricing/` is `/pricing`), or null for another host. */
function pathOf(page: string, domain: string): string | null {
  try {
    const url = new URL(page);
    const host = url.hostname.toLowerCase().replace(/^www\./, '');
    if (host !== domain) return null;
    const path = decodeURI(url.pathname);
    return path.length > 1 ? path.replace(/\/+$/, '') : '/';
  } catch {
    return null;
  }
}

/**
 * Clicks per page per day of a property over `days`, from Search Console's Search Analytics API,
 * as paths of the site's domain (the same page with and without `www.` or a trailing slash is one).
 */
export async function pullSearchClicks(
  api: GoogleApi,
  key: ServiceAccountKey,
  property: string,
  domain: string,
  days: { from: string; to: string },
  now: number,
): Promise<SearchClicks[]> {
  const token = await accessToken(api, key, now);
  const sums = new Map<string, SearchClicks>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await call(`${api.apiUrl}/sites/${encodeURIComponent(property)}/searchAnalytics/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        startDate: days.from,
        endDate: days.to,
        dimensions: ['date', 'page'],
        rowLimit: ROW_LIMIT,
        startRow: page * ROW_LIMIT,
      }),
    });
    if (res.status === 403 || res.status === 404) {
      throw new AppError(
        'provider_permission_missing',
        `Search Console refused ${property} (${await googleError(res)}): add ${key.client_email} as a user of the property`,
        { field: 'property', permission: `Search Console access to ${property}` },
      );
    }
    if (!res.ok)
      throw new AppError('provider_unreachable', `Search Console answered ${await googleError(res)}`);
    const body = (await res.json()) as {
      rows?: { keys?: unknown[]; clicks?: unknown; impressions?: unknown }[];
    };
    const rows = Array.isArray(body.rows) ? body.rows : [];
    for (const r of rows) {
      const [day, url] = r.keys ?? [];
      const path = typeof url === 'string' ? pathOf(url, domain) : null;
      if (typeof day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(day) || path === null) continue;
      const k = `${day}|${path}`;
      const sum = sums.get(k) ?? { day, path, clicks: 0, impressions: 0 };
      sum.clicks += Number(r.clicks) || 0;
      sum.impressions += Number(r.impressions) || 0;
      sums.set(k, sum);
    }
    if (rows.length < ROW_LIMIT) break;
  }
  return [...sums.values()];
}

/** Search Console's days are Pacific time's (Google's documentation of the Search Analytics API). */
const GOOGLE_DAYS = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' });

/**
 * The days a pull covers: the SEARCH_DAYS days before today in Pacific time, the days Search
 * Console counts clicks by. Reports take a Search Console day's clicks in the period with the same
 * dates (as Search Console itself shows them), whatever the site's time zone.
 */
export function searchDays(now: number): { from: string; to: string } {
  const [y, m, d] = GOOGLE_DAYS.format(now).split('-').map(Number) as [number, number, number];
  const day = (back: number) => new Date(Date.UTC(y, m - 1, d - back)).toISOString().slice(0, 10);
  return { from: day(SEARCH_DAYS), to: day(1) };
}

/**
 * Pulls every connected site whose last pull is SEARCH_SYNC_MS old (or failed an hour ago or
 * more): run by the query service's minute pass. A failure is kept on the connection for its
 * owners to see, and logged without the key.
 */
export async function syncSearchConsole(deps: {
  control: ControlDb;
  api: GoogleApi;
  now: () => number;
  logger: Logger;
}): Promise<void> {
  const now = deps.now();
  for (const c of listSearchConsole(deps.control)) {
    // a pull clears the last error: one that is there is the latest news
    const due = c.lastError ? c.lastError.at + SEARCH_RETRY_MS : (c.syncedAt ?? 0) + SEARCH_SYNC_MS;
    if (now < due) continue;
    const site = getSite(deps.control, c.siteId);
    if (!site) continue;
    // the key is opened only for a connection that is due
    const key = searchConsoleKey(deps.control, c.siteId);
    if (key === undefined) {
      recordSearchError(
        deps.control,
        c.siteId,
        'the key was sealed with another instance key: connect again',
      );
      continue;
    }
    const days = searchDays(now);
    try {
      const clicks = await pullSearchClicks(deps.api, key, c.property, site.domain, days, now);
      recordSearchSync(deps.control, c.siteId, days, clicks);
      deps.logger.info({ site: c.siteId, pages: clicks.length }, 'search console pulled');
    } catch (error) {
      const message = (error as Error).message;
      recordSearchError(deps.control, c.siteId, message);
      deps.logger.warn({ site: c.siteId, err: { message } }, 'search console pull failed');
    }
  }
}
