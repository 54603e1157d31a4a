import { bareHost } from '@footfall/config';

/** Longest page or referrer path kept (the WAL record's bound). */
const MAX_PATH = 2048;
const MAX_HOST = 255;

/** The page a hit was on, as reports key it. */
export interface PageParts {
  /** hostname, lowercase, without `www.` and without port */
  host: string;
  /** decoded path without query or fragment; trailing slash removed except for `/` itself */
  path: string;
}

/** Where a visit came from. Both null when there is no (external) referrer. */
export interface ReferrerParts {
  referrerHost: string | null;
  referrerPath: string | null;
}

const NO_REFERRER: ReferrerParts = Object.freeze({ referrerHost: null, referrerPath: null });

/**
 * Parses an absolute URL; null instead of throwing when it is not one. One parse: nearly every
 * URL that arrives is valid, and `URL.canParse` first would parse it twice.
 */
export function parseUrl(raw: string | undefined | null): URL | null {
  if (raw === undefined || raw === null || raw === '') return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * A hostname as reports key it: lowercase, no trailing dot, no leading `www.` (config's
 * `bareHost`, the rule a site's domain is stored by), so `www.example.com` and `example.com` are
 * one site and one referrer.
 *
 * @example
 * hostKey('WWW.Example.com.'); // 'example.com'
 */
export function hostKey(hostname: string): string {
  const host = bareHost(hostname);
  return host.length > MAX_HOST ? host.slice(0, MAX_HOST) : host;
}

/**
 * What is wrong with a page URL sent to the gateway, or undefined when it is a web page: the scheme
 * must be http or https and the host a DNS name (labels of letters, digits and inner hyphens; the
 * URL parser has already lowered and punycoded it). `javascript:`, `file:`, `ws:` pages and hosts
 * such as `.example.com`, `a..example.com`, `-.example.com` or `_.example.com` are refused.
 */
export function pageUrlProblem(url: URL): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http:// or https:// URL';
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return host.length <= 253 && isDnsName(host) ? undefined : 'must have a valid host name';
}

/** Labels of 1 to 63 lower-case letters, digits and hyphens, not starting or ending with one. */
function isDnsName(host: string): boolean {
  let start = 0;
  for (let i = 0; i <= host.length; i++) {
    const c = i < host.length ? host.charCodeAt(i) : 0x2e; // the end closes the last label
    if (c === 0x2e) {
      const length = i - start;
      if (length === 0 || length > 63) return false;
      if (host.charCodeAt(start) === 0x2d || host.charCodeAt(i - 1) === 0x2d) return false;
      start = i + 1;
    } else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d)) {
      return false;
    }
  }
  return true;
}

/**
 * A URL path as reports key it: percent-decoding that keeps reserved characters encoded
 * (`decodeURI`), so `/caf%C3%A9` reads `/café` but `/a%2Fb` stays one segment; one trailing
 * slash dropped (`/blog/` and `/blog` are one page) except for the root `/`.
 */
export function normalisePath(pathname: string): string {
  let path = pathname === '' ? '/' : pathname;
  if (path.includes('%')) {
    try {
      path = decodeURI(path);
    } catch {
      // A malformed escape stays as it was sent.
    }
  }
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (!path.startsWith('/')) path = `/${path}`;
  return path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path;
}

/**
 * Host and path of the page; the query string and fragment are dropped (UTM and click ids are
 * read from the query by `campaignOf` first).
 *
 * @example
 * pageOf(new URL('https://www.example.com/blog/?utm_source=x#top')); // { host: 'example.com', path: '/blog' }
 */
export function pageOf(url: URL): PageParts {
  return { host: hostKey(url.hostname), path: normalisePath(url.pathname) };
}

/** True when `host` is `domain` itself or one of its subdomains (both already host keys). */
export function isSameSite(host: string, domain: string): boolean {
  return (
    host === domain ||
    (host.length > domain.length && host.endsWith(domain) && host.at(-domain.length - 1) === '.')
  );
}

/**
 * The external referrer of a hit. Null parts when there is none: an empty or unparsable `r`,
 * a scheme other than http(s) and android-app, or a referrer on the same site (the page's own
 * host, the site's domain or any subdomain of it). An `android-app://<package>/` referrer
 * (Android apps such as Gmail or the Google app) keeps its package name as the host.
 *
 * @param pageHost the page's host key (from `pageOf`)
 * @param siteDomain the site's bare domain from its settings, when known
 *
 * @example
 * referrerOf('https://news.ycombinator.com/item?id=1', 'example.com'); // { referrerHost: 'news.ycombinator.com', referrerPath: '/item' }
 */
export function referrerOf(
  r: string | undefined,
  pageHost: string,
  siteDomain?: string | null,
): ReferrerParts {
  const url = parseUrl(r);
  if (url === null) return NO_REFERRER;
  const protocol = url.protocol;
  const web = protocol === 'https:' || protocol === 'http:';
  if (!web && protocol !== 'android-app:') return NO_REFERRER;
  const host = hostKey(url.hostname);
  if (host === '') return NO_REFERRER;
  if (host === pageHost) return NO_REFERRER;
  if (siteDomain !== undefined && siteDomain !== null && siteDomain !== '') {
    if (isSameSite(host, hostKey(siteDomain))) return NO_REFERRER;
  } else if (isSameSite(host, pageHost)) {
    return NO_REFERRER;
  }
  return { referrerHost: host, referrerPath: web ? normalisePath(url.pathname) : null };
}
