import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayUnderTest,
  startRecordingGateway,
} from '../../packages/tracker/src/testing/recording-gateway.ts';
import {
  pageHtml,
  pageUrl,
  type Suite,
  scriptUrl,
  siteId,
  startSuite,
  stopSuite,
  trackerReady,
  type Visit,
  type VisitOptions,
  visit,
  waitFor,
  waitForStored,
} from './harness.ts';
import type { Traffic } from './traffic.ts';

let suite: Suite;
// The recording stand-in, where the real gateway cannot do what a test needs; each use says why.
let standIn: GatewayUnderTest;
const visits: Visit[] = [];

beforeAll(async () => {
  suite = await startSuite();
  standIn = await startRecordingGateway({
    sites: { [siteId(suite)]: { cookieless: false } },
    retryAfterSeconds: 1,
  });
});
afterAll(async () => {
  await stopSuite(suite);
  await standIn?.close();
});
afterEach(async () => {
  for (const { context, traffic } of visits.splice(0)) {
    await context.close();
    expect(traffic.refused()).toEqual([]);
  }
  await standIn.setMode('up');
  expect(standIn.rejected()).toEqual([]);
});

const open = async (path: string, options?: VisitOptions) => {
  const opened = await visit(suite, path, options);
  visits.push(opened);
  return opened;
};
const queuedIds = (page: Page) =>
  page.evaluate(() => (JSON.parse(localStorage.footfall_q || '[]') as { i: string }[]).map((e) => e.i));
const cookieOf = async (context: BrowserContext) =>
  (await context.cookies()).find((c) => c.name === 'footfall_vid')?.value;
/** How many times the gateway accepted each event id, as the browser saw it. */
const acceptances = (traffic: Traffic, ids: string[]) =>
  ids.map((id) => traffic.accepted().filter((e) => e.i === id).length);

describe('delivery while the gateway is down', () => {
  it('stores the events made while the gateway was stopped exactly once after it starts again', async () => {
    suite.pages.set('/down', pageHtml(scriptUrl(suite)));
    suite.pages.set('/quiet-down', pageHtml(scriptUrl(suite, 'cookieless')));
    const cookie = await open('/down');
    const quiet = await open('/quiet-down', { mode: 'cookieless' });
    await waitForStored(suite, '/down', (events) => events.length === 1);
    await waitForStored(suite, '/quiet-down', (events) => events.length === 1, 'cookieless');

    await suite.stack.stopGateway();
    const madeAt = Date.now();
    await cookie.page.evaluate(() => {
      window.footfall('event', 'Down 1', { n: 1 });
      history.pushState({}, '', '/down/next');
      window.footfall('event', 'Down 2');
    });
    await quiet.page.evaluate(() => window.footfall('event', 'Quiet down', { n: 2 }));
    await waitFor(
      'refused attempts from both pages',
      () =>
        [cookie, quiet].every((v) => v.traffic.attempts().some((a) => a.outcome === 'failed')) || undefined,
    );
    // The script comes from the browser cache (the gateway allows an hour); the queue from localStorage.
    await cookie.page.reload();
    await trackerReady(cookie.page);
    await cookie.page.evaluate(() => window.footfall('event', 'Down 3'));
    const waiting = await queuedIds(cookie.page);
    // Down 1, the engagement and pageview of the in-app move, Down 2, the reload's pageview, Down 3.
    expect(waiting.length).toBeGreaterThanOrEqual(5);
    // A cookieless queue lives in memory: its ids are those of the attempts that failed.
    const quietWaiting = [
      ...new Set(quiet.traffic.attempts().flatMap((a) => (a.outcome === 'failed' ? [a.event.i] : []))),
    ];
    expect(quietWaiting).toHaveLength(1);

    // the gateway comes back seconds after the events were made, however fast this machine is, so
    // their dates (checked below) tell being dated by their age from being dated on arrival
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, madeAt + 2500 - Date.now())));
    await suite.stack.startGateway();
    // Both pages stay open: the tracker's own retries deliver, no reload needed.
    await cookie.page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]', undefined, {
      timeout: 20_000,
    });
    await waitFor('the cookieless retry', () => quiet.traffic.accepted().length === 2 || undefined, 20_000);
    // Every waiting id stored (engagement included, which only a visitor's journey shows).
    const vid = (await cookieOf(cookie.context)) ?? '';
    await waitFor('every waiting event stored', async () => {
      const ids = new Set(
        [
          ...(await suite.stack.journey(siteId(suite), vid)),
          ...(await suite.stack.feed(siteId(suite, 'cookieless'))),
        ].map((e) => e.id),
      );
      return [...waiting, ...quietWaiting].every((id) => ids.has(id)) || undefined;
    });
    const stored = await waitForStored(suite, '/down', () => true);
    expect(
      stored
        .map((e) => e.name)
        .filter(Boolean)
        .toSorted(),
    ).toEqual(['Down 1', 'Down 2', 'Down 3']);
    expect(stored.filter((e) => e.kind === 'pv').map((e) => e.path)).toEqual([
      '/down',
      '/down/next',
      '/down/next',
    ]);

    // Each accepted once on the wire, and one row each in analytics.duckdb: no id twice anywhere.
    expect(acceptances(cookie.traffic, waiting)).toEqual(waiting.map(() => 1));
    expect(acceptances(quiet.traffic, quietWaiting)).toEqual([1]);
    const rows = await suite.stack.storedRows();
    expect(rows.filter((row) => row.copies !== 1)).toEqual([]);
    const storedIds = new Set(rows.map((row) => row.id));
    expect([...waiting, ...quietWaiting].filter((id) => !storedIds.has(id))).toEqual([]);
    expect(rows.filter((row) => row.id === quietWaiting[0])).toMatchObject([{ kind: 'ev', copies: 1 }]);
    // Queued events carry their age, so the server dates them when they were made (seconds before
    // the gateway was back), not when they arrived.
    const down1 = Date.parse(stored.find((e) => e.name === 'Down 1')?.at ?? '');
    expect(down1).toBeGreaterThanOrEqual(madeAt - 1000);
    expect(down1).toBeLessThanOrEqual(madeAt + 1000);
    expect(Date.now() - madeAt).toBeGreaterThan(2000);
  }, 60_000); // the tracker's backoff decides when it tries again after the restart

  // The real gateway answers 503 + Retry-After only under disk pressure or a full disk, which a test
  // cannot bring about on demand; the stand-in answers it at will.
  it('keeps events through a 503 with Retry-After and a reload, then delivers each exactly once', async () => {
    const src = `${standIn.url}/js/${siteId(suite)}.js`;
    const ofBusy = () => standIn.events().filter((e) => new URL(e.u).pathname === '/busy');
    suite.pages.set('/busy', pageHtml(src));
    await standIn.setMode('unavailable');
    const { page } = await open('/busy');
    await page.evaluate(() => window.footfall('event', 'Busy 1'));
    await waitFor('a refused attempt', () => standIn.hits() > 0 || undefined);
    await page.reload(); // the script still loads; the queue survives in localStorage
    await trackerReady(page);
    await page.evaluate(() => window.footfall('event', 'Busy 2'));
    expect((await queuedIds(page)).length).toBeGreaterThanOrEqual(4);
    expect(ofBusy()).toEqual([]);

    const deliveriesBefore = standIn.deliveries();
    await standIn.setMode('up');
    await page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]', undefined, {
      timeout: 15_000,
    });
    expect(
      ofBusy()
        .filter((e) => e.k !== 'en')
        .map((e) => [e.k, e.n]),
    ).toEqual([
      ['pv', undefined],
      ['ev', 'Busy 1'],
      ['pv', undefined],
      ['ev', 'Busy 2'],
    ]);
    // Every body arrived once: no retries after the 202s.
    expect(standIn.deliveries() - deliveriesBefore).toBe(ofBusy().length);
    expect(ofBusy().find((e) => e.n === 'Busy 1')?.a).toBeGreaterThan(500);
  });

  it('drops queued events older than 24 hours and sends fresh stored ones on the next page load', async () => {
    suite.pages.set('/stored', pageHtml(scriptUrl(suite)));
    const { page, traffic } = await open('/stored');
    await waitForStored(suite, '/stored', (events) => events.length === 1);
    await page.evaluate(
      ([url, s]) => {
        const base = { s, k: 'ev', u: url };
        localStorage.footfall_q = JSON.stringify([
          { ...base, i: 'stale-event-0001', n: 'Stale', t: Date.now() - 24.5 * 3600e3 },
          { ...base, i: 'fresh-event-0001', n: 'Fresh', t: Date.now() - 60e3 },
        ]);
      },
      [pageUrl(suite, '/stored'), siteId(suite)] as const,
    );
    await page.reload();
    await trackerReady(page);
    await page.waitForFunction(() => (localStorage.footfall_q ?? '[]') === '[]');
    // Both page loads and the fresh event; the queue sends in order, so a stale one would be first.
    const stored = await waitForStored(suite, '/stored', (events) => events.length >= 3);
    expect(stored.map((e) => e.name ?? e.kind).toSorted()).toEqual(['Fresh', 'pv', 'pv']);
    // Dated when it was made: a minute before it was sent.
    const fresh = stored.find((e) => e.id === 'fresh-event-0001');
    expect(Date.parse(fresh?.at ?? '')).toBeLessThan(Date.now() - 59e3);
    expect(traffic.attempts().map((a) => a.event.n)).not.toContain('Stale');
  });
});

describe('checkout links', () => {
  it('carry the stored visitor id in the field each provider hands back to webhooks', async () => {
    suite.pages.set(
      '/pricing',
      pageHtml(scriptUrl(suite), {
        body: `<a id="stripe" href="https://buy.stripe.com/test_abc">s</a>
          <a id="stripe-own" href="https://buy.stripe.com/test_abc?client_reference_id=user-42">s2</a>
          <a id="lemon" href="https://acme.lemonsqueezy.com/buy/123?embed=1">l</a>
          <a id="polar" href="https://buy.polar.sh/polar_cl_abc">p</a>
          <a id="dodo" href="https://checkout.dodopayments.com/buy/pdt_1?quantity=1">d</a>
          <a id="other" href="https://example.org/buy">o</a>`,
      }),
    );
    const { page, context } = await open('/pricing');
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    const ids = ['stripe', 'stripe-own', 'lemon', 'polar', 'dodo', 'other'];
    for (const id of ids) await page.click(`#${id}`);
    const vid = await cookieOf(context);
    expect(vid).toMatch(/^[\w-]{8,64}$/);
    // The id a payment webhook brings back is the one the visit was stored under.
    const stored = await waitForStored(suite, '/pricing', (events) => events.some((e) => e.kind === 'pv'));
    expect(stored.map((e) => e.visitor)).toContain(vid);
    expect(new Set(stored.map((e) => e.visitor))).toEqual(new Set([vid]));
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

describe('Paddle.js checkouts', () => {
  it('carry the visitor id as custom data, from a paddle_button and from Paddle.Checkout.open, keeping the site’s own', async () => {
    // a stand-in for Paddle.js: what Paddle would receive
    const paddle = `<script>window.Paddle={Checkout:{open(o){window.opened=o}}}</script>`;
    suite.pages.set(
      '/paddle',
      pageHtml(scriptUrl(suite), {
        body: `${paddle}
          <a id="button" class="paddle_button" href="#" data-items='[{"priceId":"pri_1"}]'
            data-custom-data='{"plan":"pro"}'><span id="inner">Buy</span></a>
          <button id="code" onclick="Paddle.Checkout.open({items:[{priceId:'pri_2'}],customData:{order:'o-1'}})">Buy</button>
          <button id="bare" onclick="Paddle.Checkout.open({items:[{priceId:'pri_3'}]})">Buy</button>`,
      }),
    );
    const { page, context } = await open('/paddle');
    await waitForStored(suite, '/paddle', (events) => events.some((e) => e.kind === 'pv'));
    const vid = await cookieOf(context);
    expect(vid).toMatch(/^[\w-]{8,64}$/);
    await page.click('#inner');
    expect(JSON.parse((await page.getAttribute('#button', 'data-custom-data'))!)).toEqual({
      footfall_vid: vid,
      plan: 'pro',
    });
    await page.click('#code');
    expect(await page.evaluate(() => (window as unknown as { opened: unknown }).opened)).toEqual({
      items: [{ priceId: 'pri_2' }],
      customData: { footfall_vid: vid, order: 'o-1' },
    });
    await page.click('#bare');
    expect(await page.evaluate(() => (window as unknown as { opened: unknown }).opened)).toEqual({
      items: [{ priceId: 'pri_3' }],
      customData: { footfall_vid: vid },
    });
  });
});

describe('web vitals variant', () => {
  // The real gateway serves only the default build at /js/<site>.js (no `?variant=`), so the vitals
  // build comes from the stand-in and posts to the real gateway through data-api.
  it('stores the page load vitals once as a vt event when the page is hidden', async () => {
    suite.pages.set(
      '/vitals',
      pageHtml(`${standIn.url}/js/${siteId(suite)}.js?variant=vitals`, {
        attrs: `data-api="${suite.stack.gatewayUrl}/api/e"`,
        body: '<h1>Big heading</h1><p>text</p>',
      }),
    );
    const { page, context } = await open('/vitals');
    await page.click('h1');
    await page.goto('about:blank');
    const vid = (await cookieOf(context)) ?? '';
    const journey = await waitFor('the stored vitals', async () => {
      const events = await suite.stack.journey(siteId(suite), vid);
      return events.some((e) => e.kind === 'vt') ? events : undefined;
    });
    const vt = journey.filter((e) => e.kind === 'vt');
    expect(vt).toHaveLength(1);
    expect(vt[0]?.path).toBe('/vitals');
    // The API shows no metric values; the stored row does.
    const row = (await suite.stack.storedRows()).find((r) => r.id === vt[0]?.id);
    expect(row?.vitals.ttfb).toBeGreaterThanOrEqual(0);
    expect(row?.vitals.fcp).toBeGreaterThan(0);
    expect(row?.vitals.lcp).toBeGreaterThan(0);
  });
});
