import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '@footfall/http';
import type { IngestDeps } from './deps.ts';
import { clientAddress } from './enrich/client-address.ts';
import type { SiteInfo } from './sites.ts';

/** What the ingest services see of a request: framework-free, so the hot path needs no Request object. */
export interface IngestRequest {
  headers: IncomingHttpHeaders;
  /** the TCP peer address */
  socketAddress: string | undefined;
  /** the parsed JSON body */
  body: unknown;
}

export const header = (r: IngestRequest, name: string): string | undefined => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The site named by `s`; 404 naming the field when there is none. */
export function siteOf(deps: IngestDeps, id: string): SiteInfo {
  const site = deps.sites.get(id);
  if (site === undefined) throw new AppError('not_found', `unknown site ${id}`, { field: 's' });
  return site;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** 'none' without the header, 'valid' or 'wrong' against the site's proxy key (constant time). */
export function proxyKeyStatus(r: IngestRequest, site: SiteInfo): 'none' | 'valid' | 'wrong' {
  const given = header(r, 'x-footfall-proxy-key');
  if (given === undefined || given === '') return 'none';
  return timingSafeEqual(digest(given), digest(site.proxyKey)) ? 'valid' : 'wrong';
}

/** The visitor address as the trust-proxy rule reads it. In memory only. */
export function visitorAddress(r: IngestRequest, deps: IngestDeps, proxyKeyValid: boolean): string {
  return (
    clientAddress(deps.config.trustProxy, {
      socketAddress: r.socketAddress,
      headers: r.headers,
      platform: deps.config.platform ?? null,
      proxyKeyValid,
    }) ?? ''
  );
}

/** Takes a rate-limit token or throws 429 with Retry-After. */
export function limit(
  deps: IngestDeps,
  which: keyof IngestDeps['limits'],
  key: string | null,
  what: string,
): void {
  if (deps.config.unsafe.noRateLimit) return;
  // requests whose address cannot be read share one bucket rather than escaping the limit
  const wait = deps.limits[which].take(key || '(unreadable)', deps.now());
  if (wait > 0)
    throw new AppError('rate_limited', `too many requests from this ${what}`, { retryAfter: wait });
}
