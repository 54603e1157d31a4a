import { createHash } from 'node:crypto';
import { buildTracker } from './build.ts';
import { PLACEHOLDERS, type TrackerVariant } from './variants.ts';

/** What the gateway knows about the site whose script it serves at `GET /js/<site id>.js`. */
export interface RenderTrackerOptions {
  /** The site id, sent as `s` in every event (1 to 64 characters). */
  siteId: string;
  /** The site's mode: true stores nothing in the browser; false keeps the `footfall_vid` cookie. */
  cookieless: boolean;
  /**
   * Absolute `http(s)` URL of `POST /api/e`. Omitted: the script posts to `/api/e` on the origin it
   * was loaded from. A `data-api` attribute on the tag overrides both.
   */
  endpoint?: string;
  /** Which build to serve; `default` unless the site asked for more (see TRACKER_VARIANTS). */
  variant?: TrackerVariant;
}

// A JSON string is a valid JS string literal; escaping `<` also keeps `</script>` harmless if someone
// inlines the script, and U+2028/U+2029 are escaped for engines older than ES2019.
const literal = (value: string): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The tracker script for one site, with its id, mode and endpoint baked in, and a strong ETag for
 * `If-None-Match` (the quoted header value). Throws a TypeError on a site id outside 1-64
 * characters or an endpoint that is not an absolute http(s) URL.
 * @example
 * const { code, etag } = renderTracker({ siteId: 'acme', cookieless: false });
 * return c.body(code, 200, { 'Content-Type': 'text/javascript; charset=utf-8', ETag: etag });
 */
export function renderTracker(options: RenderTrackerOptions): { code: string; etag: string } {
  const { siteId, cookieless, endpoint = '', variant = 'default' } = options;
  if (siteId.length < 1 || siteId.length > 64) throw new TypeError('siteId must be 1 to 64 characters');
  if (endpoint && !/^https?:$/.test(URL.parse(endpoint)?.protocol ?? '')) {
    throw new TypeError('endpoint must be an absolute http(s) URL');
  }
  const code = buildTracker(variant)
    .replace(PLACEHOLDERS.site, () => literal(siteId))
    .replace(PLACEHOLDERS.cookieless, cookieless ? '!0' : '!1')
    .replace(PLACEHOLDERS.api, () => literal(endpoint));
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
  return { code, etag };
}
