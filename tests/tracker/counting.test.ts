import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  inSentOrder,
  pageHtml,
  pageUrl,
  type Suite,
  scriptUrl,
  siteId,
  startSuite,
  stopSuite,
  type Visit,
  visit,
  waitFor,
  waitForStored,
} from './harness.ts';

let suite: Suite;
let current: Visit | undefined;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(() => stopSuite(suite));
afterEach(async () => {
  await current?.context.close();
  // Every body the tracker sent in the test passed the real gateway's checks.
  expect(current?.traffic.refused()).toEqual([]);
  current = undefined;
});

const open = async (path: string) => {
  current = await visit(suite, path);
  return current;
};
const kinds = <T extends { kind: string }>(events: T[], kind: string) =>
  events.filter((e) => e.kind === kind);

describe('pageviews', () => {
  it('stores a page load once, with the baked-in site, its path and the cookie visitor id', async () => {
    suite.pages.set('/load', pageHtml(scriptUrl(suite)));
    const { context, traffic } = await open('/load');
    const [pv] = await waitForStored(suite, '/load', (events) => events.length === 1);
    const vid = (await context.cookies()).find((c) => c.name === 'footfall_vid')?.value;
    expect(vid).toMatch(/^[\w-]{8,64}$/);
    expect(pv).toMatchObject({
      kind: 'pv',
      host: 'shop.localhost',
      path: '/load',
      visitor: vid,
      referrer: null,
    });
    // The one pageview sent is the one stored, under the id the tracker chose.
    expect(traffic.accepted().map((e) => [e.i, e.s, e.k, e.w! > 0])).toEqual([
      [pv?.id, siteId(suite), 'pv', true],
    ]);
  });

  it('stores each single-page-app navigation once and ignores query-only and same-path changes', async () => {
    suite.pages.set('/spa', pageHtml(scriptUrl(suite)));
    const { page, traffic } = await open('/spa');
    await page.evaluate(() => {
      history.pushState({}, '', '/spa/a');
      history.pushState({}, '', '/spa/a'); // same page again
      history.replaceState({}, '', '/spa/a?utm_source=x'); // a router tidying the query
      history.replaceState({}, '', '/spa/b');
      history.pushState({}, '', '/spa/c#section');
    });
    await page.goBack(); // popstate back to /spa/b
    // The queue sends in order: once this marker is stored, every pageview before it is too.
    await page.evaluate(() => window.footfall('event', 'End'));
    const stored = await waitForStored(suite, '/spa', (events) => events.some((e) => e.name === 'End'));
    expect(inSentOrder(kinds(stored, 'pv'), traffic).map((e) => e.path)).toEqual([
      '/spa',
      '/spa/a',
      '/spa/b',
      '/spa/c',
      '/spa/b',
    ]);
    // Without data-hash the fragment is not part of the page.
    expect(traffic.accepted().every((e) => !e.u.includes('#'))).toBe(true);
    // The report counts them for one visitor in one visit, page by page.
    const report = await suite.stack.report(siteId(suite), ['page:/spa']);
    expect(report.kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 5 });
    expect(Object.fromEntries(report.breakdowns.pages.map((row) => [row.value, row.pageviews]))).toEqual({
      '/spa': 1,
      '/spa/a': 1,
      '/spa/b': 2,
      '/spa/c': 1,
    });
  });

  it('treats hash routes as pages with data-hash', async () => {
    suite.pages.set('/hash', pageHtml(scriptUrl(suite), { attrs: 'data-hash' }));
    const { page, traffic } = await open('/hash#/home');
    await page.evaluate(() => {
      location.hash = '#/settings';
    });
    // The server keeps the path only, so the two routes are two stored pageviews of /hash.
    const stored = await waitForStored(suite, '/hash', (events) => kinds(events, 'pv').length === 2);
    expect(stored.map((e) => e.path)).toEqual(['/hash', '/hash']);
    const sent = traffic.accepted().filter((e) => e.k === 'pv');
    expect(sent.map((e) => new URL(e.u).hash)).toEqual(['#/home', '#/settings']);
    expect(sent.map((e) => e.i).toSorted()).toEqual(stored.map((e) => e.id).toSorted());
  });

  it('stores engaged time of the page left on navigation, with the scroll depth sent', async () => {
    suite.pages.set('/long', pageHtml(scriptUrl(suite), { body: '<div style="height:5000px">tall</div>' }));
    const { page, traffic } = await open('/long');
    await page.evaluate(() => window.scrollTo(0, 2500));
    await page.waitForTimeout(300); // some engaged time to report
    await page.evaluate(() => history.pushState({}, '', '/long/next'));
    const en = await waitFor('the engagement event', () => traffic.accepted().find((e) => e.k === 'en'));
    expect(en.u).toBe(pageUrl(suite, '/long'));
    // The API does not show scroll depth, so it is checked as sent.
    expect(en.d).toBeGreaterThanOrEqual(50);
    expect(en.d).toBeLessThanOrEqual(100);
    const stored = await waitFor('the stored engagement', async () =>
      (await suite.stack.journey(siteId(suite), en.v!)).find((e) => e.id === en.i),
    );
    expect(stored).toMatchObject({ kind: 'en', path: '/long', engaged_ms: en.e });
    expect(stored.engaged_ms).toBeGreaterThan(0);
  });

  it('stores engagement sent when the page is hidden by leaving it', async () => {
    suite.pages.set('/leave', pageHtml(scriptUrl(suite)));
    const { page, context } = await open('/leave');
    const vid = (await context.cookies()).find((c) => c.name === 'footfall_vid')?.value ?? '';
    await page.waitForTimeout(200);
    await page.goto('about:blank');
    const journey = await waitFor('the stored engagement', async () => {
      const events = await suite.stack.journey(siteId(suite), vid);
      return events.some((e) => e.kind === 'en') ? events : undefined;
    });
    expect(journey.map((e) => [e.kind, e.path])).toEqual([
      ['pv', '/leave'],
      ['en', '/leave'],
    ]);
  });
});

describe('custom events', () => {
  it('stores footfall("event") calls with properties, including calls made before the script loaded', async () => {
    suite.pages.set('/js-events', pageHtml(scriptUrl(suite), { early: "footfall('event','Early',{n:1})" }));
    const { page, traffic } = await open('/js-events');
    await page.evaluate(() => window.footfall('event', 'Signup', { plan: 'pro', seats: 3, trial: true }));
    const stored = await waitForStored(suite, '/js-events', (events) => kinds(events, 'ev').length === 2);
    expect(inSentOrder(kinds(stored, 'ev'), traffic).map((e) => [e.name, e.props])).toEqual([
      ['Early', { n: 1 }],
      ['Signup', { plan: 'pro', seats: 3, trial: true }],
    ]);
    // The pageview is not held back by early calls, and all three come from one visitor.
    expect(kinds(stored, 'pv')).toHaveLength(1);
    expect(new Set(stored.map((e) => e.visitor)).size).toBe(1);
    const report = await suite.stack.report(siteId(suite), ['page:/js-events']);
    expect(report.breakdowns.events.map((row) => [row.value, row.events, row.visitors])).toEqual([
      ['Early', 1, 1],
      ['Signup', 1, 1],
    ]);
  });

  it('stores data-footfall-event clicks with data-footfall-prop-* properties', async () => {
    suite.pages.set(
      '/tagged',
      pageHtml(scriptUrl(suite), {
        body: '<button id="b" data-footfall-event="Add to cart" data-footfall-prop-sku="A-1" data-footfall-prop-colour="red"><span id="inner">Add</span></button>',
      }),
    );
    const { page } = await open('/tagged');
    await page.click('#inner'); // a click inside the tagged element counts too
    const stored = await waitForStored(suite, '/tagged', (events) => kinds(events, 'ev').length === 1);
    expect(kinds(stored, 'ev')[0]).toMatchObject({
      name: 'Add to cart',
      props: { sku: 'A-1', colour: 'red' },
    });
  });

  it('stores Outbound Link and File Download events with the url, not for same-site links', async () => {
    suite.pages.set(
      '/links',
      pageHtml(scriptUrl(suite), {
        body: `<a id="out" href="https://example.org/x">out</a>
          <a id="pdf" href="/files/report.pdf">pdf</a>
          <a id="same" href="/links/other">same</a>
          <a id="mail" href="mailto:a@example.org">mail</a>`,
      }),
    );
    const { page, traffic } = await open('/links');
    // Stop the navigations so the page stays and the clicks are all that happens.
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    for (const id of ['#out', '#pdf', '#same', '#mail']) await page.click(id);
    await page.evaluate(() => window.footfall('event', 'Marker'));
    const stored = await waitForStored(suite, '/links', (events) => events.some((e) => e.name === 'Marker'));
    expect(inSentOrder(kinds(stored, 'ev'), traffic).map((e) => [e.name, e.props])).toEqual([
      ['Outbound Link', { url: 'https://example.org/x' }],
      ['File Download', { url: pageUrl(suite, '/files/report.pdf') }],
      ['Marker', null],
    ]);
  });
});

describe('the forms add-on (?addons=forms)', () => {
  it('stores form submissions by the form id or name, never a field, and class-marked clicks; only when the tag asks', async () => {
    const forms = `${scriptUrl(suite)}?addons=forms`;
    const body = `<form id="signup" action="/forms/thanks" method="get"><input name="email" id="email" required>
            <button id="send">Sign up</button></form>
          <form name="search-box" id="" onsubmit="event.preventDefault()"><input name="q" id="q"><button id="find">Go</button></form>
          <form class="footfall-event-name=Newsletter footfall-event-list=weekly" onsubmit="event.preventDefault()">
            <button id="subscribe">Subscribe</button></form>
          <button id="demo" class="btn footfall-event-name=Book+demo footfall-event-plan=team"><b id="demo-inner">Book</b></button>`;
    suite.pages.set('/forms', pageHtml(forms, { body }));
    suite.pages.set('/forms/thanks', pageHtml(forms));
    const { page, traffic } = await open('/forms');
    // the browser's own checks stop an empty required field: no submission, nothing sent
    await page.click('#send');
    await page.fill('#q', 'secret search words');
    await page.click('#find');
    await page.click('#subscribe');
    await page.click('#demo-inner');
    await page.fill('#email', 'person@example.org');
    await Promise.all([page.waitForURL(/\/forms\/thanks/), page.click('#send')]);
    const stored = await waitForStored(suite, '/forms', (events) => kinds(events, 'ev').length === 4);
    expect(inSentOrder(kinds(stored, 'ev'), traffic).map((e) => [e.path, e.name, e.props])).toEqual([
      ['/forms', 'Form Submit', { form: 'search-box' }],
      ['/forms', 'Newsletter', { list: 'weekly' }],
      ['/forms', 'Book demo', { plan: 'team' }],
      ['/forms', 'Form Submit', { form: 'signup' }],
    ]);
    // what a person typed never leaves the page
    const sent = JSON.stringify(traffic.attempts().map((a) => a.event));
    expect(sent).not.toContain('person@example.org');
    expect(sent).not.toContain('secret search words');
    const report = await suite.stack.report(siteId(suite), ['page:/forms']);
    expect(report.breakdowns.events.map((row) => [row.value, row.events])).toEqual([
      ['Book demo', 1],
      ['Form Submit', 2],
      ['Newsletter', 1],
    ]);

    // without ?addons=forms the same page sends no form submission (a marked click neither)
    suite.pages.set('/plain-forms', pageHtml(scriptUrl(suite), { body }));
    await current?.context.close();
    const plain = await open('/plain-forms');
    await plain.page.fill('#q', 'x');
    await plain.page.click('#find');
    await plain.page.click('#demo');
    await plain.page.evaluate(() => window.footfall('event', 'Marker'));
    const only = await waitForStored(suite, '/plain-forms', (events) =>
      events.some((e) => e.name === 'Marker'),
    );
    expect(kinds(only, 'ev').map((e) => e.name)).toEqual(['Marker']);
    const refused = await fetch(`${scriptUrl(suite)}?addons=paddle`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_parameter', field: 'addons' });
  });
});
