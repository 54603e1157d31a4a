import type { InstallOutcome } from '@footfall/control';
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
async function readSome(res: Response | Awaited<ReturnType<typeof guardedFetch>>): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
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
  return Buffer.concat(chunks).toString('utf8');
}

async function read(url: string, guard: GuardOptions): Promise<{ url: string; text: string } | string> {
  const res = await guardedFetch(
    url,
    {
      headers: { 'user-agent': `Footfall/${footfallVersion()} (install check)`, accept: 'text/html,*/*' },
      signal: AbortSignal.timeout(READ_MS),
    },
    guard,
  );
  if (!res.ok) {
    await res.body?.cancel();
    return `the page answered ${res.status}`;
  }
  return { url: res.url || url, text: await readSome(res) };
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
): Promise<InstallOutcome> {
  const tries = origin ? [`${origin}/`] : [`https://${site.domain}/`, `http://${site.domain}/`];
  let page: { url: string; text: string } | undefined;
  let problem = 'the homepage could not be read';
  for (const url of tries) {
    try {
      const got = await read(url, guard);
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
    try {
      const got = await read(src, guard);
      if (typeof got !== 'string' && got.text.includes(literal) && got.text.includes('/api/e'))
        return { tracker: 'found', detail: null };
    } catch {
      // a script that cannot be read is not the tracker as far as this check can tell
    }
  }
  return { tracker: 'missing', detail: null };
}
