import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { notFound } from '@footfall/http';
import type { Context, NotFoundHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { clearSignedInCookie, SESSION_COOKIE, SIGNED_IN_COOKIE, setSignedInCookie } from './auth/cookies.ts';
import { type MomentOf, preloads, SITE_PAGE, type SiteModules, type VisitedSites } from './page-preloads.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The page's policy: scripts, styles and API calls from this origin only (and the release list's
 * origin when FOOTFALL_UPDATE_CHECK names one: the update check reads it), images also as data:
 * URLs and from https (site icons may be favicons), never inside a frame.
 */
export function pagePolicy(releasesUrl: string | undefined): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: https:",
    releasesUrl === undefined ? "connect-src 'self'" : `connect-src 'self' ${new URL(releasesUrl).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** The encodings a request accepts, of those the build wrote copies in (best first). */
function encodings(accept: string | undefined): ['br' | 'gzip', string][] {
  const accepted = new Set(
    (accept ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !/^\s*q=0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name?.trim().toLowerCase()),
  );
  return (
    [
      ['br', '.br'],
      ['gzip', '.gz'],
    ] as ['br' | 'gzip', string][]
  ).filter(([name]) => accepted.has(name));
}

/**
 * Serves the built dashboard (apps/dashboard, built into `dir`) for GET requests no route
 * answered: files under `/assets/` (names carry a content hash: cached for a year), and
 * `index.html` for every other path, so `/sites/<id>?period=7d` loads the app, which reads its
 * state from the URL. API and operator paths keep their JSON 404. It sits in the 404 handler, not
 * among the routes, so no route of the access table can be shadowed by it. Text files go out
 * compressed (brotli or gzip, copies written by the build) when the browser accepts it. Without a
 * built dashboard (in-process tests), everything is the JSON 404.
 */
export function dashboardFallback(
  dir: string | undefined,
  releasesUrl?: string,
  visited: VisitedSites = new Set(),
  modulesOf?: SiteModules,
  /** the person of a session cookie: the moment cards of their sites' reports (page-preloads.ts) */
  momentsOf?: (sessionToken: string) => Promise<MomentOf | undefined>,
): NotFoundHandler {
  const policy = pagePolicy(releasesUrl);
  const cache = new Map<string, Buffer | null>();
  const read = async (path: string): Promise<Buffer | null> => {
    let body = cache.get(path);
    if (body === undefined) {
      body = await readFile(path).catch(() => null);
      if (cache.size < 1000) cache.set(path, body);
    }
    return body;
  };
  /** The file, or a compressed copy of it the request accepts; null when there is none. */
  const send = async (
    c: Context,
    file: string,
    headers: Record<string, string>,
  ): Promise<Response | null> => {
    let body: Buffer | null = null;
    let encoding: string | undefined;
    for (const [name, suffix] of encodings(c.req.header('accept-encoding'))) {
      body = await read(file + suffix);
      if (body !== null) {
        encoding = name;
        break;
      }
    }
    body ??= await read(file);
    if (body === null) return null;
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (encoding) c.header('Content-Encoding', encoding);
    c.header('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    c.header('Vary', 'Accept-Encoding');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(new Uint8Array(body));
  };
  return async (c: Context) => {
    const path = c.req.path;
    const method = c.req.method;
    if (dir === undefined || (method !== 'GET' && method !== 'HEAD')) return notFound(c);
    if (path.startsWith('/api/') || path.startsWith('/_footfall/') || path === '/api') return notFound(c);
    if (path.startsWith('/assets/')) {
      const file = normalize(join(dir, path));
      if (!file.startsWith(join(dir, 'assets')) || /\.(br|gz)$/.test(file)) return notFound(c);
      return (await send(c, file, { 'Cache-Control': 'public, max-age=31536000, immutable' })) ?? notFound(c);
    }
    // a browser with no session cookie is signed out: its page asks for nothing (page-preloads.ts),
    // and the dashboard's hint says so; one signed in before the hint existed gets it here
    const cookies = getCookie(c);
    const signedIn = cookies[SESSION_COOKIE] !== undefined;
    if (signedIn && cookies[SIGNED_IN_COOKIE] === undefined) setSignedInCookie(c);
    if (!signedIn && cookies[SIGNED_IN_COOKIE] !== undefined) clearSignedInCookie(c);
    const token = cookies[SESSION_COOKIE];
    const momentOf = token && momentsOf && SITE_PAGE.test(path) ? await momentsOf(token) : undefined;
    const links = signedIn
      ? preloads(path, new URL(c.req.url).searchParams, c.req.header('cookie'), visited, modulesOf, momentOf)
      : '';
    const page = await send(c, join(dir, 'index.html'), {
      ...(links ? { Link: links } : {}),
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': policy,
      'Referrer-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
    return page ?? notFound(c);
  };
}
