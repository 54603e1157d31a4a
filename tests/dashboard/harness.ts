/**
 * Shared setup of the dashboard's browser tests: the real `footfall start` (two processes, the
 * built dashboard served by the query service), Debian's Chromium driven by playwright-core, an
 * API client for arranging data the way a script would, axe-core for accessibility, and
 * screenshots written to .test-results/screens (not committed) for people to look at.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { type RunningFootfall, startFootfall } from '../support/footfall.ts';
import { launchBrowser, type PageServer, startPageServer } from '../tracker/harness.ts';

export const PASSWORD = 'correct horse battery staple';
export const OWNER = 'owner@example.com';
const SCREENS = join(new URL('../../.test-results/screens', import.meta.url).pathname);
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface Dashboard {
  footfall: RunningFootfall & { url: string };
  /** the setup link the first start printed */
  setupLink: string;
  browser: Browser;
  pages: PageServer;
  close(): Promise<void>;
}

/** Starts Footfall, a page server for test sites and Chromium side by side. */
export async function startDashboard(env: Record<string, string> = {}): Promise<Dashboard> {
  const [footfall, browser, pages] = await Promise.all([
    startFootfall(env),
    launchBrowser(),
    startPageServer(),
  ]);
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  let closing = false;
  // A browser test that loses its server fails with "connection refused" and nothing else: print
  // what the processes said when footfall stops or a child restarts before close().
  footfall.exited.then(({ code, signal }) => {
    if (!closing)
      tellOutput(footfall, `footfall exited (code ${code}, signal ${signal}) before the test closed it`);
  });
  const restarts = setInterval(() => {
    if (footfall.output().includes('"msg":"child exited; restarting"')) {
      clearInterval(restarts);
      tellOutput(footfall, 'a footfall child exited during the test');
    }
  }, 500);
  return {
    footfall,
    setupLink,
    browser,
    pages,
    async close() {
      closing = true;
      clearInterval(restarts);
      await browser.close();
      await Promise.all([footfall.stop(), pages.close()]);
    },
  };
}

/** Writes the last lines footfall printed to the test run's output, with why. */
function tellOutput(footfall: RunningFootfall, why: string): void {
  const tail = footfall.output().split('\n').slice(-80).join('\n');
  process.stderr.write(`\n[dashboard harness] ${why}; its last output:\n${tail}\n`);
}

export interface ContextOptions {
  width?: number;
  dark?: boolean;
  /** the browser's language (`de-DE`): what the dashboard follows unless the person chose one */
  locale?: string;
}

/** A person's browser: its own cookies, a viewport and a colour scheme. */
export async function personContext(d: Dashboard, o: ContextOptions = {}): Promise<BrowserContext> {
  const context = await d.browser.newContext({
    viewport: { width: o.width ?? 1280, height: 900 },
    colorScheme: o.dark ? 'dark' : 'light',
    ...(o.locale ? { locale: o.locale } : {}),
    baseURL: d.footfall.url,
  });
  // a missing element fails the test in seconds, with what was awaited
  context.setDefaultTimeout(10_000);
  return context;
}

/** Signs in through the sign-in screen and waits to leave it. */
export async function signIn(page: Page, email = OWNER, password = PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname !== '/login');
}

/** The API as a script uses it: a session cookie and the CSRF token; throws on an error answer. */
export interface ApiSession {
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** the session's Cookie header */
  readonly cookie: string;
}

/** An error answer, with the API's own message. */
export class ApiCallError extends Error {
  readonly apiMessage: string;
  constructor(
    what: string,
    readonly status: number,
    body: string,
  ) {
    super(`${what} answered ${status}: ${body}`);
    this.apiMessage = (JSON.parse(body) as { message: string }).message;
  }
}

/** The API's message as the dashboard shows it: a sentence. */
export const asShown = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

export async function apiSession(base: string, email = OWNER, password = PASSWORD): Promise<ApiSession> {
  const res = await fetch(`${base}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return {
    cookie,
    async call(method, path, body) {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: {
          cookie,
          'x-footfall-csrf': csrf_token,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      if (!r.ok) throw new ApiCallError(`${method} ${path}`, r.status, text);
      return (text ? JSON.parse(text) : undefined) as never;
    },
  };
}

/**
 * Waits (up to 10 s) until the site's report of the last 30 days counts `visitors`: events posted
 * reach reports through the writer. Resolves either way; the test's own checks say what is wrong.
 */
export async function waitForVisitors(reader: ApiSession, site: string, visitors: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await reader.call<{ kpis: { visitors: number } }>('GET', `/api/v1/sites/${site}/report`);
    if (r.kpis.visitors === visitors) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Creates the first owner through the API with the printed setup link's token. */
export async function createOwner(d: Pick<Dashboard, 'footfall' | 'setupLink'>): Promise<ApiSession> {
  const token = new URL(d.setupLink).searchParams.get('token');
  const res = await fetch(`${d.footfall.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, email: OWNER, password: PASSWORD }),
  });
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${await res.text()}`);
  return apiSession(d.footfall.url);
}

/** Adds a site through the API as `owner`; resolves with its id. */
export async function addSite(owner: ApiSession, domain: string): Promise<string> {
  return (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain })).site.id;
}

/**
 * axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A and AA), each as
 * `rule: selector` lines, so a failure says what and where.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // evaluated rather than added as a script tag: the page's policy (rightly) refuses inline scripts
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE, 'utf8'));
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: Violation[] }> } })
      .axe;
    type Violation = { id: string; impact: string; nodes: { target: string[] }[] };
    const result = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
  });
  return found;
}

/**
 * Polls `read` with the page kept scrolled to the bottom, where the report's lower panels load once
 * they come into view: `await pollScrolledDown(page, () => panel.count()).toBe(1)`.
 */
export function pollScrolledDown<T>(page: Page, read: () => Promise<T>) {
  return expect.poll(
    async () => {
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      return read();
    },
    { timeout: 30_000, interval: 250 },
  );
}

/** A full-page screenshot for people to look at: `.test-results/screens/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: join(SCREENS, `${name}.png`), fullPage: true });
}

/** The HTML of a test site's page carrying `tag` in its head. */
export function sitePage(tag: string, title = 'A page'): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${tag}</head><body><h1>${title}</h1><a href="/docs">Docs</a></body></html>`;
}

/** Opens a site's page as a new visitor (own cookies), waits for the tracker, and closes it. */
export async function visitSite(
  d: Dashboard,
  url: string,
  options: { referrer?: string; keepOpen?: boolean } = {},
): Promise<Page> {
  const context = await d.browser.newContext();
  const page = await context.newPage();
  // the pageview is stored (202) before the visitor leaves
  const sent = page.waitForResponse((r) => r.url().endsWith('/api/e') && r.request().method() === 'POST');
  await page.goto(url, options.referrer ? { referer: options.referrer } : {});
  expect((await sent).status()).toBe(202);
  if (!options.keepOpen) await context.close();
  return page;
}

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * Posts events of a site straight to `/api/e` as the tracker would (a browser's user agent), each
 * `[visitor, path, custom event name or null]` on `host`, and expects each answered 202.
 */
export async function postEvents(
  d: Pick<Dashboard, 'footfall'>,
  site: string,
  host: string,
  events: readonly (readonly [visitor: string, path: string, name: string | null])[],
): Promise<void> {
  for (const [v, path, name] of events) {
    const u = `http://${host}${path}`;
    const res = await fetch(`${d.footfall.url}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify(name ? { s: site, k: 'ev', n: name, u, v } : { s: site, k: 'pv', u, v }),
    });
    expect(res.status, await res.text()).toBe(202);
  }
}
