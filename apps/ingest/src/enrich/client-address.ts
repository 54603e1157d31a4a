import { getHeader, type HeaderBag } from './headers.ts';
import { normaliseAddress } from './ip.ts';

/** FOOTFALL_TRUST_PROXY, parsed (by packages/config). */
export type TrustProxy =
  | { mode: 'auto' }
  | { mode: 'none' }
  | { mode: 'xff' }
  | { mode: 'header'; header: string };

/** Where one hosting platform puts the visitor address: a header, or the rightmost X-Forwarded-For entry. */
export type AddressSource = { header: string } | { xffRightmost: true };

/**
 * The visitor address on known hosting platforms, used by `auto`, tried in order. Each header
 * is one the platform's own edge sets (overwriting what a client sent), never one a client
 * can pass through:
 * - Fly.io: `Fly-Client-IP`.
 * - Railway: `X-Real-IP` from its edge proxy (`X-Envoy-External-Address` on older edges).
 * - Render: Cloudflare sits in front, so `X-Forwarded-For` ends with a Cloudflare address;
 *   `CF-Connecting-IP` (set by Cloudflare) holds the visitor, `True-Client-IP` likewise.
 * - Heroku: its router appends the connecting address to `X-Forwarded-For`: rightmost entry.
 * - Koyeb: its edge sets the standard `X-Forwarded-For` and nothing of its own (koyeb.com/docs,
 *   "Edge Network"): the rightmost entry, the one its edge appended. Anything left of it was sent
 *   by the client.
 * - DigitalOcean App Platform: `DO-Connecting-IP`.
 */
export const PLATFORM_ADDRESS: Readonly<Record<string, readonly AddressSource[]>> = {
  fly: [{ header: 'fly-client-ip' }],
  railway: [{ header: 'x-real-ip' }, { header: 'x-envoy-external-address' }],
  render: [{ header: 'cf-connecting-ip' }, { header: 'true-client-ip' }],
  heroku: [{ xffRightmost: true }],
  koyeb: [{ xffRightmost: true }],
  digitalocean: [{ header: 'do-connecting-ip' }],
};

export interface AddressRequest {
  /** the TCP peer address as Node reports it (may be IPv4-mapped IPv6) */
  socketAddress: string | undefined;
  headers: HeaderBag;
  /** the detected hosting platform (`fly`, `railway`, `render`, `heroku`, ...), or null */
  platform: string | null;
  /** true when the request carried the site's valid `X-Footfall-Proxy-Key` */
  proxyKeyValid: boolean;
}

/** The last entry of an `X-Forwarded-For` list: the one the nearest trusted proxy appended. */
function rightmostForwarded(headers: HeaderBag): string | null {
  const value = getHeader(headers, 'x-forwarded-for');
  if (value === undefined) return null;
  const comma = value.lastIndexOf(',');
  return normaliseAddress(comma < 0 ? value : value.slice(comma + 1));
}

function fromSource(source: AddressSource, headers: HeaderBag): string | null {
  if ('header' in source) return normaliseAddress(getHeader(headers, source.header));
  return rightmostForwarded(headers);
}

/**
 * The visitor address of a request, in canonical form (see `normaliseAddress`), or null when
 * none can be read. Used in memory only: geolocation, rate limits and the daily hash.
 *
 * 1. A request with the site's valid proxy key (the site's own server forwarding its
 *    visitors) is trusted to say the visitor address in `X-Real-IP`.
 * 2. Otherwise by mode: `none` the socket address; `header` the named header set by the
 *    operator's own reverse proxy; `xff` the RIGHTMOST `X-Forwarded-For` entry (appended by
 *    the trusted CDN; anything left of it may be forged by the client); `auto` the platform's
 *    source from PLATFORM_ADDRESS, or the socket address off a known platform.
 * 3. When the trusted header is missing or not an address, the socket address is used.
 *
 * @example
 * clientAddress({ mode: 'xff' }, { socketAddress: '10.0.0.2', headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' }, platform: null, proxyKeyValid: false });
 * // '203.0.113.9'
 */
export function clientAddress(trust: TrustProxy, request: AddressRequest): string | null {
  const { headers } = request;
  if (request.proxyKeyValid) {
    const forwarded = normaliseAddress(getHeader(headers, 'x-real-ip'));
    if (forwarded !== null) return forwarded;
  }
  let found: string | null = null;
  switch (trust.mode) {
    case 'none':
      break;
    case 'header':
      found = normaliseAddress(getHeader(headers, trust.header.toLowerCase()));
      break;
    case 'xff':
      found = rightmostForwarded(headers);
      break;
    case 'auto': {
      const sources = request.platform === null ? undefined : PLATFORM_ADDRESS[request.platform];
      for (const source of sources ?? []) {
        found = fromSource(source, headers);
        if (found !== null) break;
      }
      break;
    }
  }
  return found ?? normaliseAddress(request.socketAddress);
}
