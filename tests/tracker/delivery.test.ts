import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayUnderTest } from '../../packages/tracker/src/testing/recording-gateway.ts';
import {
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
  await gateway.setMode('up');
  expect(gateway.rejected()).toEqual([]);
});

const ready = (page: Page) =>
  page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));

async function open(path: string): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pages.url + path);
  await ready(page);
  return page;
}

const eventsOf = (path: string) => gateway.events().filter((e) => new URL(e.u).pathname.startsWith(path));
const queued = (page: Page) =>
  page.evaluate(() => JSON.parse(localStorage.footfall_q || '[]').length as number);
const named = (path: string, name: string) => eventsOf(path).filter((e) => e.n === name);

describe('delivery while the gateway is down', () => {
  it('keeps events through a 503 with Retry-After and a reload, then delivers each exactly once', async () => {
    pages.set('/busy', pageHtml(gateway));
    await gateway.setMode('unavailable');
    const page = await open('/busy');
    await page.evaluate(() => window.footfall('event', 'Down 1'));
    await waitUntil('a refused attempt', () => gateway.hits() > 0);
    await page.reload(); // the script still loads; the queue survives in localStorage
    await ready(page);
    await page.evaluate(() => window.footfall('event', 'Down 2'));
    expect(await queued(page)).toBeGreaterThanOrEqual(4);
    expect(eventsOf('/busy')).toEqual([]);

    await gateway.setMode('up');
    await waitUntil(
      'both pageviews and both events',
      () => named('/busy', 'Down 2').length > 0 && eventsOf('/busy').filter((e) => e.k === 'pv').length === 2,
      15_000,
    );
    await page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]');
    expect(named('/busy', 'Down 1')).toHaveLength(1);
    expect(named('/busy', 'Down 2')).toHaveLength(1);
    expect(eventsOf('/busy').filter((e) => e.k === 'pv')).toHaveLength(2);
    // Queued events tell their age, so the server can date them when they were made.
    expect(named('/busy', 'Down 1')[0]?.a).toBeGreaterThan(500);
  });

  it('retries with backoff after connection failures, across a reload while down, exactly once', async () => {
    pages.set('/offline', pageHtml(gateway));
    const page = await open('/offline');
    await waitUntil('the first pageview', () => eventsOf('/offline').length === 1);
    await gateway.setMode('refused');
    await page.evaluate(() => {
      window.footfall('event', 'Offline 1');
      history.pushState({}, '', '/offline/next');
      window.footfall('event', 'Offline 2');
    });
    await page.waitForFunction(() => JSON.parse(localStorage.footfall_q || '[]').length >= 3);
    await page.reload().catch(() => undefined); // the script cannot load either: nothing runs
    await gateway.setMode('up');
    await page.reload(); // the next page load sends what the last ones left
    await ready(page);
    await waitUntil('all events', () => named('/offline', 'Offline 2').length > 0, 15_000);
    await page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]');
    expect(named('/offline', 'Offline 1')).toHaveLength(1);
    expect(named('/offline', 'Offline 2')).toHaveLength(1);
    // One pageview from the in-app move while down, one from the reload once up.
    expect(eventsOf('/offline/next').filter((e) => e.k === 'pv')).toHaveLength(2);
  });

  it('retries while the page stays open once the gateway is back', async () => {
    pages.set('/flaky', pageHtml(gateway));
    const page = await open('/flaky');
    await waitUntil('the first pageview', () => eventsOf('/flaky').length === 1);
    await gateway.setMode('refused');
    await page.evaluate(() => window.footfall('event', 'Flaky'));
    await page.waitForTimeout(300); // at least one failed attempt
    await gateway.setMode('up');
    await waitUntil('the event after backoff', () => named('/flaky', 'Flaky').length === 1, 15_000);
    expect(await queued(page)).toBe(0);
  });

  it('drops queued events older than 24 hours and sends fresh stored ones on the next page load', async () => {
    pages.set('/stored', pageHtml(gateway));
    const page = await open('/stored');
    const site = eventsOf('/stored')[0]?.s ?? 'sitecookie1';
    await page.evaluate(
      ([url, s]) => {
        const base = { s, k: 'ev', u: url };
        localStorage.footfall_q = JSON.stringify([
          { ...base, i: 'stale-event-0001', n: 'Stale', t: Date.now() - 25 * 3600e3 },
          { ...base, i: 'fresh-event-0001', n: 'Fresh', t: Date.now() - 60e3 },
        ]);
      },
      [`${pages.url}/stored`, site] as const,
    );
    await page.reload();
    await ready(page);
    await waitUntil('the fresh stored event', () => named('/stored', 'Fresh').length === 1);
    expect(named('/stored', 'Fresh')[0]?.a).toBeGreaterThanOrEqual(60e3);
    await page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]');
    expect(named('/stored', 'Stale')).toEqual([]);
  });
});

describe('checkout links', () => {
  it('carry the visitor id in the field each provider hands back to webhooks', async () => {
    pages.set(
      '/pricing',
      pageHtml(gateway, {
        body: `<a id="stripe" href="https://buy.stripe.com/test_abc">s</a>
          <a id="stripe-own" href="https://buy.stripe.com/test_abc?client_reference_id=user-42">s2</a>
          <a id="lemon" href="https://acme.lemonsqueezy.com/buy/123?embed=1">l</a>
          <a id="polar" href="https://buy.polar.sh/polar_cl_abc">p</a>
          <a id="dodo" href="https://checkout.dodopayments.com/buy/pdt_1?quantity=1">d</a>
          <a id="other" href="https://example.org/buy">o</a>`,
      }),
    );
    const page = await open('/pricing');
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    const ids = ['stripe', 'stripe-own', 'lemon', 'polar', 'dodo', 'other'];
    for (const id of ids) await page.click(`#${id}`);
    const vid = (await context.cookies()).find((c) => c.name === 'footfall_vid')?.value;
    expect(vid).toMatch(/^[\w-]{8,64}$/);
    await waitUntil('the pageview', () => eventsOf('/pricing').some((e) => e.k === 'pv'));
    expect(eventsOf('/pricing')[0]?.v).toBe(vid);
    const hrefs = Object.fromEntries(
      await Promise.all(
        ids.map(async (id) => [id, new URL((await page.getAttribute(`#${id}`, 'href')) ?? '')]),
      ),
    );
    expect(hrefs.stripe.searchParams.get('client_reference_id')).toBe(vid);
    expect(hrefs['stripe-own'].searchParams.get('client_reference_id')).toBe('user-42'); // the site's own id stays
    expect(hrefs.lemon.searchParams.get('checkout[custom][footfall_vid]')).toBe(vid);
    expect(hrefs.lemon.searchParams.get('embed')).toBe('1');
    expect(hrefs.polar.searchParams.get('reference_id')).toBe(vid);
    expect(hrefs.dodo.searchParams.get('metadata_footfall_vid')).toBe(vid);
    expect(hrefs.other.search).toBe('');
  });
});

describe('web vitals variant', () => {
  it('sends the page load vitals once as a vt event when the page is hidden', async () => {
    pages.set('/vitals', pageHtml(gateway, { variant: 'vitals', body: '<h1>Big heading</h1><p>text</p>' }));
    const page = await open('/vitals');
    await page.click('h1');
    await page.goto('about:blank');
    await waitUntil('the vitals event', () => eventsOf('/vitals').some((e) => e.k === 'vt'));
    const vt = eventsOf('/vitals').filter((e) => e.k === 'vt');
    expect(vt).toHaveLength(1);
    expect(vt[0]?.m?.ttfb).toBeGreaterThanOrEqual(0);
    expect(vt[0]?.m?.fcp).toBeGreaterThan(0);
    expect(vt[0]?.m?.lcp).toBeGreaterThan(0);
  });
});
