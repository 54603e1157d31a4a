import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '@footfall/http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { IngestDeps } from '../deps.ts';
import { clientAddress } from '../enrich/client-address.ts';
import { addressKey } from '../enrich/ip.ts';
import type { SiteInfo } from '../sites.ts';

export type GatewayEnv = { Bindings: HttpBindings };
export type GatewayContext = Context<GatewayEnv>;

/** Reads the (already size-limited) body as JSON; 415 unless it is declared as JSON, 400 unless it is. */
export async function readJson(c: GatewayContext): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new AppError('unsupported_media_type', 'the body must be application/json');
  }
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('invalid_body', 'the body is not valid JSON');
  }
}

/** The site named by `s`; 404 naming the field when there is none. */
export function siteOf(deps: IngestDeps, id: string): SiteInfo {
  const site = deps.sites.get(id);
  if (site === undefined) throw new AppError('not_found', `unknown site ${id}`, { field: 's' });
  return site;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** 'none' without the header, 'valid' or 'wrong' against the site's proxy key (constant time). */
export function proxyKeyStatus(c: GatewayContext, site: SiteInfo): 'none' | 'valid' | 'wrong' {
  const given = c.req.header('x-footfall-proxy-key');
  if (given === undefined || given === '') return 'none';
  return timingSafeEqual(digest(given), digest(site.proxyKey)) ? 'valid' : 'wrong';
}

/** The visitor address as the trust-proxy rule reads it. In memory only. */
export function visitorAddress(c: GatewayContext, deps: IngestDeps, proxyKeyValid: boolean): string {
  return (
    clientAddress(deps.config.trustProxy, {
      socketAddress: c.env.incoming.socket.remoteAddress,
      headers: c.env.incoming.headers,
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

export { addressKey };
