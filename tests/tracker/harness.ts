/**
 * Shared setup of the tracker browser tests: the real Footfall stack (stack.ts), a page server
 * answering on the sites' host names, and Debian's Chromium driven by playwright-core. Every event
 * crosses origins (pages on `*.localhost`, the gateway on 127.0.0.1) and needs CORS, as on real
 * sites. The recording stand-in (packages/tracker/src/testing) is used only where a test needs
 * something the real gateway cannot do; those tests say why.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import {
  CONSENT_DOMAIN,
  COOKIE_DOMAIN,
  COOKIELESS_DOMAIN,
  type LiveEvent,
  type RealStack,
  startRealStack,
} from './stack.ts';
import { type Traffic, watchTraffic } from './traffic.ts';

/** Which of the stack's sites a page belongs to. */
export type SiteMode = 'cookie' | 'cookieless' | 'consent';

const DOMAINS: Record<SiteMode, string> = {
  cookie: COOKIE_DOMAIN,
  cookieless: COOKIELESS_DOMAIN,
  consent: CONSENT_DOMAIN,
};

/**
 * A desktop Chromium's user agent. Headless Chromium names itself `HeadlessChrome`, and the real
 * gateway (rightly) drops such events as automation, storing nothing. It is set for the whole
 * browser: a per-context override does not reach keepalive requests that outlive their page (the
 * engagement sent while leaving), which would then go out as HeadlessChrome and be dropped.
 */
const PERSON_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36';

export interface Suite {
  stack: RealStack;
  pages: PageServer;
  browser: Browser;
}

/** Starts the stack, the page server and the browser side by side. */
export async function startSuite(): Promise<Suite> {
  const [stack, pages, browser] = await Promise.all([startRealStack(), startPageServer(), launchBrowser()]);
  return { stack, pages, browser };
}

/** Closes whatever of the suite started, browser first so no page keeps sending. */
export async function stopSuite(suite: Partial<Suite> | undefined): Promise<void> {
  await suite?.browser?.close();
  await Promise.all([suite?.stack?.close(), suite?.pages?.close()]);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-quic',
      `--user-agent=${PERSON_UA}`,
    ],
  });
}

/** The page address on the host name of the site in `mode`. */
export function pageUrl(suite: Suite, path: string, mode: SiteMode = 'cookie'): string {
  return `http://${DOMAINS[mode]}:${suite.pages.port}${path}`;
}

/** The real gateway's `GET /js/<site id>.js` for the site in `mode`. */
export function scriptUrl(suite: Suite, mode: SiteMode = 'cookie'): string {
  return `${suite.stack.gatewayUrl}/js/${siteId(suite, mode)}.js`;
}

export const siteId = (suite: Suite, mode: SiteMode = 'cookie'): string => suite.stack.sites[mode].id;

export interface PageOptions {
  /** Extra attributes on the script tag, e.g. `data-hash` or `data-require-consent`. */
  attrs?: string;
  /** Calls made through the stub before the script loads, as JS source, e.g. `footfall('consent', false)`. */
  early?: string;
  body?: string;
}

/** A page with the install snippet (stub plus `<script defer src="...">`). */
export function pageHtml(src: string, options: PageOptions = {}): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title>
<script>window.footfall=window.footfall||function(){(footfall.q=footfall.q||[]).push(arguments)};${options.early ?? ''}</script>
<script defer src="${src}" ${options.attrs ?? ''}></script>
</head><body style="margin:0">${options.body ?? '<p>hello</p>'}</body></html>`;
}

/** One visitor: a fresh browser context, what it sends to the real gateway, and its page. */
export interface Visit {
  context: BrowserContext;
  traffic: Traffic;
  page: Page;
}

export interface VisitOptions {
  mode?: SiteMode;
  /** Script run in every page of the context before its own scripts (e.g. to fake Do Not Track). */
  init?: string;
  /** Prepares the context before the page opens (cookies, other listeners). */
  prepare?: (context: BrowserContext) => Promise<void>;
}

/** Opens `path` in a new visitor's browser and waits for the tracker to replace the stub. */
export async function visit(suite: Suite, path: string, options: VisitOptions = {}): Promise<Visit> {
  const context = await suite.browser.newContext();
  const traffic = watchTraffic(context, suite.stack.gatewayUrl);
  if (options.init) await context.addInitScript(options.init);
  await options.prepare?.(context);
  const page = await context.newPage();
  await page.goto(pageUrl(suite, path, options.mode));
  await trackerReady(page);
  return { context, traffic, page };
}

export const trackerReady = (page: Page) =>
  page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));

/** Stored pageviews and custom events (the recent feed) whose path is `path` or below it, oldest first. */
export async function storedUnder(
  suite: Suite,
  path: string,
  mode: SiteMode = 'cookie',
): Promise<LiveEvent[]> {
  const feed = await suite.stack.feed(siteId(suite, mode));
  return feed.filter((e) => e.path === path || e.path.startsWith(`${path}/`)).toReversed();
}

/**
 * Orders stored events the way the browser sent them. The feed orders by event time, and events
 * made within one millisecond (two `pushState` calls in a row) tie.
 */
export function inSentOrder(stored: LiveEvent[], traffic: Traffic): LiveEvent[] {
  const order = new Map(traffic.attempts().map((a, index) => [a.event.i, index]));
  return stored.toSorted((a, b) => (order.get(a.id) ?? -1) - (order.get(b.id) ?? -1));
}

/** Serves HTML pages on 127.0.0.1 for any host name: a page answers its path and every path below it. */
export interface PageServer {
  readonly port: number;
  set(path: string, html: string): void;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://pages').pathname;
    const key = [...pages.keys()].find((p) => path === p || path.startsWith(`${p}/`));
    if (!key) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pages.get(key));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    set: (path, html) => pages.set(path, html),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Polls `probe` until it returns a value other than undefined and resolves with it, failing after
 * `timeoutMs` with `what` and the last value seen. The real stack stores asynchronously (the query
 * service tails the write-ahead log every 250 ms), so stored data is always polled for.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls the stored events under `path` until `done` holds for them, and returns them. */
export function waitForStored(
  suite: Suite,
  path: string,
  done: (events: LiveEvent[]) => boolean,
  mode: SiteMode = 'cookie',
): Promise<LiveEvent[]> {
  return waitFor(`stored events under ${path}`, async () => {
    const events = await storedUnder(suite, path, mode);
    return done(events) ? events : undefined;
  });
}
