import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayUnderTest } from '../../packages/tracker/src/testing/recording-gateway.ts';
import {
  COOKIE_SITE,
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
let rejectedBefore = 0;

beforeAll(async () => {
  [gateway, pages, browser] = await Promise.all([startGateway(), startPageServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([gateway?.close(), pages?.close()]);
});
beforeEach(() => {
  rejectedBefore = gateway.rejected().length;
});
afterEach(async () => {
  await context?.close();
  // Every body the tracker sent in the test passed the ingest schema.
  expect(gateway.rejected().slice(rejectedBefore)).toEqual([]);
});

/** Opens a fresh browser context on `path` and waits for the real tracker to replace the stub. */
async function open(path: string): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pages.url + path);
  await page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));
  return page;
}

const eventsOf = (path: string) => gateway.events().filter((e) => new URL(e.u).pathname.startsWith(path));

describe('pageviews', () => {
  it('counts a page load once, with the baked-in site id, referrer, screen size and visitor id', async () => {
    pages.set('/load', pageHtml(gateway));
    await open('/load');
    await waitUntil('the pageview', () => eventsOf('/load').length === 1);
    const [pv] = eventsOf('/load');
    expect(pv).toMatchObject({ s: COOKIE_SITE, k: 'pv', u: `${pages.url}/load`, r: '' });
    expect(pv?.w).toBeGreaterThan(0);
    expect(pv?.v).toMatch(/^[\w-]{8,64}$/);
    expect(pv?.i).toMatch(/^[\w-]{8,64}$/);
  });

  it('counts each single-page-app navigation once and ignores query-only and same-path changes', async () => {
    pages.set('/spa', pageHtml(gateway));
    const page = await open('/spa');
    await page.evaluate(() => {
      history.pushState({}, '', '/spa/a');
      history.pushState({}, '', '/spa/a'); // same page again
      history.replaceState({}, '', '/spa/a?utm_source=x'); // a router tidying the query
      history.replaceState({}, '', '/spa/b');
      history.pushState({}, '', '/spa/c#section');
    });
    await page.goBack(); // popstate back to /spa/b
    await waitUntil('four pageviews', () => eventsOf('/spa').filter((e) => e.k === 'pv').length >= 5);
    const paths = eventsOf('/spa')
      .filter((e) => e.k === 'pv')
      .map((e) => new URL(e.u).pathname);
    expect(paths).toEqual(['/spa', '/spa/a', '/spa/b', '/spa/c', '/spa/b']);
    // Without data-hash the fragment is not part of the page.
    expect(eventsOf('/spa').every((e) => !e.u.includes('#'))).toBe(true);
  });

  it('treats hash routes as pages with data-hash', async () => {
    pages.set('/hash', pageHtml(gateway, { attrs: 'data-hash' }));
    const page = await open('/hash#/home');
    await page.evaluate(() => {
      location.hash = '#/settings';
    });
    await waitUntil('two pageviews', () => eventsOf('/hash').filter((e) => e.k === 'pv').length === 2);
    const pageviews = eventsOf('/hash').filter((e) => e.k === 'pv');
    expect(pageviews.map((e) => new URL(e.u).hash)).toEqual(['#/home', '#/settings']);
  });

  it('sends engaged time and scroll depth of the page left on navigation', async () => {
    pages.set('/long', pageHtml(gateway, { body: '<div style="height:5000px">tall</div>' }));
    const page = await open('/long');
    await page.evaluate(() => window.scrollTo(0, 2500));
    await page.waitForTimeout(300); // some engaged time to report
    await page.evaluate(() => history.pushState({}, '', '/long/next'));
    await waitUntil('the engagement event', () => eventsOf('/long').some((e) => e.k === 'en'));
    const en = eventsOf('/long').find((e) => e.k === 'en');
    expect(en?.u).toBe(`${pages.url}/long`);
    expect(en?.e).toBeGreaterThan(0);
    expect(en?.d).toBeGreaterThanOrEqual(50);
    expect(en?.d).toBeLessThanOrEqual(100);
  });

  it('sends engagement when the page is hidden by leaving it', async () => {
    pages.set('/leave', pageHtml(gateway));
    const page = await open('/leave');
    await page.waitForTimeout(200);
    await page.goto('about:blank');
    await waitUntil('the engagement event', () => eventsOf('/leave').some((e) => e.k === 'en'));
    expect(eventsOf('/leave').find((e) => e.k === 'en')?.d).toBe(100);
  });
});

describe('custom events', () => {
  it('sends footfall("event") calls with properties, including calls made before the script loaded', async () => {
    pages.set('/js-events', pageHtml(gateway, { early: "footfall('event','Early',{n:1})" }));
    const page = await open('/js-events');
    await page.evaluate(() => window.footfall('event', 'Signup', { plan: 'pro', seats: 3, trial: true }));
    await waitUntil('two events', () => eventsOf('/js-events').filter((e) => e.k === 'ev').length === 2);
    const events = eventsOf('/js-events').filter((e) => e.k === 'ev');
    expect(events.map((e) => [e.n, e.p])).toEqual([
      ['Early', { n: 1 }],
      ['Signup', { plan: 'pro', seats: 3, trial: true }],
    ]);
    // The pageview is not held back by early calls, and comes from the same visitor.
    expect(new Set(eventsOf('/js-events').map((e) => e.v)).size).toBe(1);
  });

  it('sends data-footfall-event clicks with data-footfall-prop-* properties', async () => {
    pages.set(
      '/tagged',
      pageHtml(gateway, {
        body: '<button id="b" data-footfall-event="Add to cart" data-footfall-prop-sku="A-1" data-footfall-prop-colour="red"><span id="inner">Add</span></button>',
      }),
    );
    const page = await open('/tagged');
    await page.click('#inner'); // a click inside the tagged element counts too
    await waitUntil('the tagged event', () => eventsOf('/tagged').some((e) => e.k === 'ev'));
    expect(eventsOf('/tagged').find((e) => e.k === 'ev')).toMatchObject({
      n: 'Add to cart',
      p: { sku: 'A-1', colour: 'red' },
    });
  });

  it('sends Outbound Link and File Download events with the url, not for same-site links', async () => {
    pages.set(
      '/links',
      pageHtml(gateway, {
        body: `<a id="out" href="https://example.org/x">out</a>
          <a id="pdf" href="/files/report.pdf">pdf</a>
          <a id="same" href="/links/other">same</a>
          <a id="mail" href="mailto:a@example.org">mail</a>`,
      }),
    );
    const page = await open('/links');
    // Stop the navigations so the page stays and the clicks are all that happens.
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    for (const id of ['#out', '#pdf', '#same', '#mail']) await page.click(id);
    await waitUntil('two link events', () => eventsOf('/links').filter((e) => e.k === 'ev').length === 2);
    await page.evaluate(() => window.footfall('event', 'Marker'));
    await waitUntil('the marker', () => eventsOf('/links').some((e) => e.n === 'Marker'));
    expect(
      eventsOf('/links')
        .filter((e) => e.k === 'ev')
        .map((e) => [e.n, e.p]),
    ).toEqual([
      ['Outbound Link', { url: 'https://example.org/x' }],
      ['File Download', { url: `${pages.url}/files/report.pdf` }],
      ['Marker', undefined],
    ]);
  });
});
