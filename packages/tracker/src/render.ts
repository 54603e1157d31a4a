import { createHash } from 'node:crypto';
import { buildAddon, buildTracker } from './build.ts';
import {
  buildOf,
  CONSENT_PLACEHOLDERS,
  PLACEHOLDERS,
  type TrackerAddon,
  type TrackerVariant,
} from './variants.ts';

/** The site's own consent bar, every value given (the control plane fills in its defaults). */
export interface ConsentBarOptions {
  /** The bar's text, shown as text (never as markup). */
  text: string;
  /** `#rrggbb` colours of the bar and of its text and buttons. */
  background: string;
  foreground: string;
}

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
  /** Which variant the tag asked for; `default` unless it asked for more (see TRACKER_VARIANTS). */
  variant?: TrackerVariant;
  /** The site has the consent bar on: the variant's consent build is served, with this bar. */
  consentBar?: ConsentBarOptions;
  /** Add-ons the site needs, appended after the build (TRACKER_ADDONS): `paddle` with a Paddle connection. */
  addons?: readonly TrackerAddon[];
}

// A JSON string is a valid JS string literal; escaping `<` also keeps `</script>` harmless if someone
// inlines the script, and U+2028/U+2029 are escaped for engines older than ES2019.
const literal = (value: string): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

// Colours go into the bar's CSS: only this shape can never close a rule or start another.
const colour = (value: string, name: string): string => {
  if (!/^#[0-9a-f]{6}$/i.test(value)) throw new TypeError(`consentBar.${name} must be a #rrggbb colour`);
  return literal(value);
};

/**
 * The tracker script for one site, with its id, mode, endpoint and consent bar baked in, and a
 * strong ETag for `If-None-Match` (the quoted header value). Throws a TypeError on a site id outside
 * 1-64 characters, an endpoint that is not an absolute http(s) URL, an empty consent text or a
 * colour that is not `#rrggbb`.
 * @example
 * const { code, etag } = renderTracker({ siteId: 'acme', cookieless: false });
 * return c.body(code, 200, { 'Content-Type': 'text/javascript; charset=utf-8', ETag: etag });
 */
export function renderTracker(options: RenderTrackerOptions): { code: string; etag: string } {
  const { siteId, cookieless, endpoint = '', variant = 'default', consentBar } = options;
  if (siteId.length < 1 || siteId.length > 64) throw new TypeError('siteId must be 1 to 64 characters');
  if (endpoint && !/^https?:$/.test(URL.parse(endpoint)?.protocol ?? '')) {
    throw new TypeError('endpoint must be an absolute http(s) URL');
  }
  let code = buildTracker(buildOf(variant, consentBar !== undefined))
    .replace(PLACEHOLDERS.site, () => literal(siteId))
    .replace(PLACEHOLDERS.cookieless, cookieless ? '!0' : '!1')
    .replace(PLACEHOLDERS.api, () => literal(endpoint));
  if (consentBar) {
    if (!consentBar.text) throw new TypeError('consentBar.text must not be empty');
    const background = colour(consentBar.background, 'background');
    const foreground = colour(consentBar.foreground, 'foreground');
    code = code
      .replace(CONSENT_PLACEHOLDERS.text, () => literal(consentBar.text))
      .replace(CONSENT_PLACEHOLDERS.background, () => background)
      .replace(CONSENT_PLACEHOLDERS.foreground, () => foreground);
  }
  for (const addon of options.addons ?? []) code += `\n${buildAddon(addon)}`;
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
  return { code, etag };
}
