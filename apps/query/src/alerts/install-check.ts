import {
  type ControlDb,
  faviconsFetched,
  type InstallOutcome,
  listSites,
  type Site,
  storeFavicon,
} from '@footfall/control';
import { BlockedDestination, type GuardOptions, guardedFetch } from '@footfall/http';
import { footfallVersion } from '@footfall/instance';
import { outboundFailure } from './send.ts';

/** The most sites checked a day (spec, Limits: per account; an instance is one account). */
export const INSTALL_CHECK_SITES_PER_DAY = 50;
/** The most checks at once. */
export const INSTALL_CHECK_AT_ONCE = 4;
/** The most scripts of a homepage read. */
export const INSTALL_CHECK_SCRIPTS = 20;
/** The most bytes read of a page or a script: the rest is not looked at. */
const READ_BYTES = 2 * 1024 * 1024;
const READ_MS = 10_000;

/**
 * Reads the body up to READ_BYTES (a page that never ends is cut, not waited for).
 */
async function readSome(res: Awaited<ReturnType<typeof guardedFetch>>): Promise<Buffer> {
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= READ_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks);
}

/** Why a request is made, in its User-Agent: a site's owner can tell the two apart in their logs. */
type Purpose = 'install check' | 'favicon';

async function fetchSome(
  url: string,
  guard: GuardOptions,
  accept: string,
  purpose: Purpose,
  stop?: AbortSignal,
) {
  const timeout = AbortSignal.timeout(READ_MS);
  const res = await guardedFetch(
    url,
    {
      headers: { 'user-agent': `Footfall/${footfallVersion()} (${purpose})`, accept },
      signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
    },
    guard,
  );
  if (!res.ok) {
    await res.body?.cancel();
    return { status: res.status, url, bytes: null };
  }
  return { status: res.status, url: res.url || url, bytes: await readSome(res) };
}

async function read(
  url: string,
  guard: GuardOptions,
  purpose: Purpose,
  stop?: AbortSignal,
): Promise<{ url: string; text: string } | string> {
  const got = await fetchSome(url, guard, 'text/html,*/*', purpose, stop);
  if (got.bytes === null) return `the page answered ${got.status}`;
  return { url: got.url, text: got.bytes.toString('utf8') };
}

/** The `src` of each `<script>` of a page, resolved against it, in page order. */
export function scriptSources(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/<script\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const src = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    try {
      const url = new URL(src, base);
      if (url.protocol === 'https:' || url.protocol === 'http:') out.push(url.toString());
    } catch {
      // not a URL: not a script that can be read
    }
  }
  return [...new Set(out)];
}

/** Whether a script address is Footfall's tracker of this site: `/js/<site id>.js` or a variant of it. */
const isTrackerPath = (src: string, siteId: string) => {
  const path = URL.parse(src)?.pathname ?? '';
  return path.endsWith(`/js/${siteId}.js`) || new RegExp(`/js/${siteId}\\.[a-z.-]+\\.js$`).test(path);
};

/**
 * The install check of one site (docs/alerts.md): reads its homepage (https, then http when https
 * cannot connect) and looks for Footfall's tracker of this site, as a `<script>` loading
 * `/js/<site id>.js`, or, when it is served under another name (a proxy, a bundle), inside one of
 * the page's first INSTALL_CHECK_SCRIPTS scripts, which carries the site id. Every request goes
 * through the guard that refuses private addresses. `origin` replaces `https://<domain>` (tests).
 */
export async function checkInstall(
  site: { id: string; domain: string },
  guard: GuardOptions,
  origin?: string,
  stop?: AbortSignal,
): Promise<InstallOutcome> {
  const tries = origin ? [`${origin}/`] : [`https://${site.domain}/`, `http://${site.domain}/`];
  let page: { url: string; text: string } | undefined;
  let problem = 'the homepage could not be read';
  for (const url of tries) {
    try {
      const got = await read(url, guard, 'install check', stop);
      if (typeof got === 'string') {
        problem = got;
        break;
      }
      page = got;
      break;
    } catch (error) {
      problem = outboundFailure(error);
      if (error instanceof BlockedDestination) break;
    }
  }
  if (page === undefined) return { tracker: 'unreachable', detail: problem };
  const sources = scriptSources(page.text, page.url);
  if (sources.some((src) => isTrackerPath(src, site.id))) return { tracker: 'found', detail: null };
  const literal = JSON.stringify(site.id);
  for (const src of sources.slice(0, INSTALL_CHECK_SCRIPTS)) {
    if (stop?.aborted) break;
    try {
      const got = await read(src, guard, 'install check', stop);
      if (typeof got !== 'string' && got.text.includes(literal) && got.text.includes('/api/e'))
        return { tracker: 'found', detail: null };
    } catch {
      // a script that cannot be read is not the tracker as far as this check can tell
    }
  }
  return { tracker: 'missing', detail: null };
}

/** The largest favicon kept. */
const FAVICON_BYTES = 100 * 1024;

/** The image types kept, told by their first bytes (never SVG: it can carry script). */
function imageType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))) return 'image/x-icon';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  return null;
}

/** The `href` of the page's first `<link rel="icon">` (or "shortcut icon", "apple-touch-icon"), resolved. */
export function iconLink(html: string, base: string): string | null {
  for (const m of html.matchAll(/<link\b[^>]*>/gi)) {
    const tag = m[0];
    const rel = /\brel\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    const words = (rel?.[1] ?? rel?.[2] ?? rel?.[3] ?? '').toLowerCase().split(/\s+/);
    if (!words.includes('icon') && !words.includes('apple-touch-icon')) continue;
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
    const value = (href?.[1] ?? href?.[2] ?? href?.[3] ?? '').trim();
    const url = URL.parse(value, base);
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) return url.toString();
  }
  return null;
}

/**
 * A site's favicon for the site list, read by the server (the dashboard never asks a site itself):
 * the homepage's `<link rel="icon">`, else `/favicon.ico`, through the same guard as the install
 * check; kept only when it is a PNG, ICO, GIF, JPEG or WebP image of 100 KiB at most. null when
 * there is none that qualifies.
 */
export async function fetchFavicon(
  site: { domain: string },
  guard: GuardOptions,
  origin?: string,
  stop?: AbortSignal,
): Promise<{ contentType: string; bytes: Buffer } | null> {
  const home = origin ? `${origin}/` : `https://${site.domain}/`;
  const candidates: string[] = [];
  try {
    const page = await read(home, guard, 'favicon', stop);
    if (typeof page !== 'string') {
      const link = iconLink(page.text, page.url);
      if (link) candidates.push(link);
    }
  } catch {
    // no homepage: /favicon.ico may still answer
  }
  candidates.push(new URL('/favicon.ico', home).toString());
  for (const url of [...new Set(candidates)]) {
    try {
      if (stop?.aborted) break;
      const got = await fetchSome(url, guard, 'image/*', 'favicon', stop);
      if (got.bytes === null || got.bytes.length > FAVICON_BYTES || got.bytes.length === 0) continue;
      const type = imageType(got.bytes);
      if (type) return { contentType: type, bytes: got.bytes };
    } catch {
      // the next candidate
    }
  }
  return null;
}

/** What the install check saw, in a sentence of the "tracking stopped" alert. */
export function trackerWords(site: Site, o: InstallOutcome): string {
  if (o.tracker === 'found')
    return `The tracker is still on its homepage: a blocker, a broken page or no visitors at all may be why.`;
  if (o.tracker === 'missing') return `The tracker (/js/${site.id}.js) is not on its homepage any more.`;
  return `Its homepage could not be read (${o.detail ?? 'no answer'}).`;
}

/** The words of "tracking stopped" (or "sending visits again"). */
export function trackingStoppedWords(site: Site, active: boolean, outcome: InstallOutcome) {
  return {
    title: active ? `${site.domain} stopped sending visits` : `${site.domain} is sending visits again`,
    text: active
      ? `No visit of ${site.domain} has arrived for two days. ${trackerWords(site, outcome)} Nothing recorded is deleted.`
      : `Visits of ${site.domain} arrive again.`,
    data: { tracker: outcome.tracker, detail: outcome.detail },
  };
}

const FAVICON_EVERY_MS = 7 * 86_400_000;

/** Favicons for the site list: each site's fetched once a week, four sites a pass at most. */
export async function refreshFavicons(o: {
  control: ControlDb;
  guard: GuardOptions;
  siteOrigin: string | undefined;
  now: number;
  signal: AbortSignal;
  /** true once the service stops: what a fetch brings then is not stored */
  stopped: () => boolean;
}): Promise<void> {
  const fetched = faviconsFetched(o.control);
  const due = listSites(o.control)
    .filter((s) => o.now - (fetched.get(s.id)?.fetchedAt ?? 0) >= FAVICON_EVERY_MS)
    .slice(0, INSTALL_CHECK_AT_ONCE);
  await Promise.all(
    due.map(async (site) => {
      const image = await fetchFavicon(site, o.guard, o.siteOrigin, o.signal);
      if (!o.stopped()) storeFavicon(o.control, site.id, image);
    }),
  );
}
