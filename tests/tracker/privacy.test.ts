import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayUnderTest } from '../../packages/tracker/src/testing/recording-gateway.ts';
import {
  COOKIELESS_SITE,
  launchBrowser,
  type PageServer,
  pageHtml,
  startGateway,
  startPageServer,
  waitUntil,
} from './harness.ts';

let gateway: GatewayUnderTest;
let pages: PageServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [gateway, pages, browser] = await Promise.all([startGateway(), startPageServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([gateway?.close(), pages?.close()]);
});
afterEach(async () => {
  await context?.close();
  expect(gateway.rejected()).toEqual([]);
});

async function open(path: string, initScript?: string): Promise<Page> {
  context = await browser.newContext();
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  await page.goto(pages.url + path);
  await page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));
  return page;
}

const eventsOf = (path: string) => gateway.events().filter((e) => new URL(e.u).pathname.startsWith(path));

/** Everything the tracker could keep in this browser for the page's origin. */
async function stored(page: Page) {
  const storage = await page.evaluate(() => ({
    local: Object.keys(localStorage),
    session: Object.keys(sessionStorage),
  }));
  return { cookies: (await context.cookies()).map((c) => c.name), ...storage };
}

/** Clicks, navigates in-app, sends an event and leaves: every way the tracker could send. */
async function doEverything(page: Page, path: string): Promise<void> {
  await page.evaluate((p) => {
    window.footfall('event', 'While refused');
    history.pushState({}, '', `${p}/elsewhere`);
    window.scrollTo(0, 1000);
  }, path);
  await page.click('#tagged');
}

/**
 * Proves a refused page sent nothing: after it is left (which flushes everything), a control page
 * on the same gateway is counted, so anything the refused page sent would have arrived before.
 */
async function expectNothingSentFrom(page: Page, path: string): Promise<void> {
  await page.goto('about:blank');
  const control = await context.browser()!.newContext();
  const other = await control.newPage();
  pages.set('/control', pageHtml(gateway));
  const before = gateway.events().length;
  await other.goto(`${pages.url}/control`);
  await waitUntil('the control pageview', () => gateway.events().length > before);
  await control.close();
  expect(eventsOf(path)).toEqual([]);
}

const BODY = '<div style="height:3000px"><button id="tagged" data-footfall-event="Tagged">t</button></div>';

describe('consent', () => {
  it("stops all sending and storing at footfall('consent', false), and resumes at true", async () => {
    pages.set('/consent', pageHtml(gateway, { body: BODY }));
    const page = await open('/consent');
    await waitUntil('the pageview', () => eventsOf('/consent').length === 1);
    const firstVisitor = eventsOf('/consent')[0]?.v;
    expect((await stored(page)).cookies).toContain('footfall_vid');

    await page.evaluate(() => window.footfall('consent', false));
    expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });
    await doEverything(page, '/consent');
    expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });

    await page.evaluate(() => window.footfall('consent', true));
    await page.evaluate(() => window.footfall('event', 'After consent'));
    await waitUntil('the event after consent', () =>
      eventsOf('/consent').some((e) => e.n === 'After consent'),
    );
    // The in-app page reached while refused is counted once consent returns; nothing sent meanwhile.
    expect(eventsOf('/consent').map((e) => [e.k, e.n, new URL(e.u).pathname])).toEqual([
      ['pv', undefined, '/consent'],
      ['pv', undefined, '/consent/elsewhere'],
      ['ev', 'After consent', '/consent/elsewhere'],
    ]);
    // A new visitor id: the old one was forgotten with the cookie.
    expect(eventsOf('/consent')[2]?.v).not.toBe(firstVisitor);
  });

  it('sends nothing and stores nothing when consent is refused through the stub before the script loads', async () => {
    pages.set('/refused', pageHtml(gateway, { body: BODY, early: "footfall('consent', false)" }));
    const page = await open('/refused');
    await doEverything(page, '/refused');
    expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });
    await expectNothingSentFrom(page, '/refused');
  });

  it('waits for consent with data-require-consent, then counts the current page', async () => {
    pages.set('/optin', pageHtml(gateway, { body: BODY, attrs: 'data-require-consent' }));
    const page = await open('/optin');
    await page.evaluate(() => window.footfall('event', 'Before consent'));
    expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });
    await page.evaluate(() => window.footfall('consent', true));
    await waitUntil('the pageview', () => eventsOf('/optin').length === 1);
    expect(eventsOf('/optin')[0]).toMatchObject({ k: 'pv' });
    expect((await stored(page)).cookies).toEqual(['footfall_vid']);
  });
});

describe('browser privacy signals', () => {
  const cases = [
    ['Do Not Track', "Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })"],
    [
      'Global Privacy Control',
      "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })",
    ],
  ] as const;
  for (const [name, init] of cases) {
    it(`sends and stores nothing under ${name}, even after footfall('consent', true)`, async () => {
      const path = `/signal-${name.length}`;
      pages.set(path, pageHtml(gateway, { body: BODY }));
      const page = await open(path, init);
      await page.evaluate(() => window.footfall('consent', true));
      await doEverything(page, path);
      expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });
      await expectNothingSentFrom(page, path);
    });
  }
});

describe('cookieless mode', () => {
  it('keeps nothing in the browser and sends no visitor id, and removes a cookie left from cookie mode', async () => {
    pages.set(
      '/cookieless',
      pageHtml(gateway, {
        site: COOKIELESS_SITE,
        body: `${BODY}<a id="buy" href="https://buy.stripe.com/test_123">buy</a>`,
      }),
    );
    context = await browser.newContext();
    await context.addCookies([{ name: 'footfall_vid', value: 'leftover-id-123', url: pages.url }]);
    const page = await context.newPage();
    await page.goto(`${pages.url}/cookieless`);
    await page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    await page.evaluate(() => window.footfall('event', 'Cookieless event', { a: 1 }));
    await page.click('#buy');
    await waitUntil('pageview, event and outbound click', () => eventsOf('/cookieless').length === 3);
    expect(eventsOf('/cookieless').map((e) => e.v)).toEqual([undefined, undefined, undefined]);
    expect(await stored(page)).toEqual({ cookies: [], local: [], session: [] });
    // No stable id to hand to a checkout: the link is left as it was.
    expect(await page.getAttribute('#buy', 'href')).toBe('https://buy.stripe.com/test_123');
  });
});
