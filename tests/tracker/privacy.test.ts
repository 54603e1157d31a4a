import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayUnderTest,
  startRecordingGateway,
} from '../../packages/tracker/src/testing/recording-gateway.ts';
import {
  inSentOrder,
  pageHtml,
  pageUrl,
  type Suite,
  scriptUrl,
  siteId,
  startSuite,
  stopSuite,
  storedUnder,
  type Visit,
  type VisitOptions,
  visit,
  waitFor,
  waitForStored,
} from './harness.ts';

let suite: Suite;
// The recording stand-in, beside the real gateway for the "nothing was sent" tests: its request log
// sees every body that reaches it, valid or not, even one sent while the page unloads (which
// Playwright's network events miss). The real gateway can only show that nothing was stored.
let standIn: GatewayUnderTest;
let current: Visit | undefined;

beforeAll(async () => {
  suite = await startSuite();
  standIn = await startRecordingGateway({
    sites: { [siteId(suite)]: { cookieless: false } },
  });
});
afterAll(async () => {
  await stopSuite(suite);
  await standIn?.close();
});
afterEach(async () => {
  await current?.context.close();
  expect(current?.traffic.refused()).toEqual([]);
  expect(standIn.rejected()).toEqual([]);
  current = undefined;
});

const open = async (path: string, options?: VisitOptions) => {
  current = await visit(suite, path, options);
  return current;
};

/** Everything the tracker could keep in this browser for the page's origin. */
async function kept(page: Page) {
  const storage = await page.evaluate(() => ({
    local: Object.keys(localStorage),
    session: Object.keys(sessionStorage),
  }));
  return { cookies: (await page.context().cookies()).map((c) => c.name), ...storage };
}
const NOTHING = { cookies: [], local: [], session: [] };

/** Clicks, navigates in-app, sends an event and scrolls: every way the tracker could send. */
async function doEverything(page: Page, path: string): Promise<void> {
  await page.evaluate((p) => {
    window.footfall('event', 'While refused');
    history.pushState({}, '', `${p}/elsewhere`);
    window.scrollTo(0, 1000);
  }, path);
  await page.click('#tagged');
}

const BODY = '<div style="height:3000px"><button id="tagged" data-footfall-event="Tagged">t</button></div>';

/** Where a refused page loads its script from, and how a test proves that nothing arrived there. */
const backends = {
  'the real gateway': {
    src: () => scriptUrl(suite),
    /**
     * After the page is left (which flushes everything), a control page's pageview is stored;
     * the write-ahead log keeps arrival order, so anything the refused page sent is stored by then.
     */
    async expectNothingFrom(page: Page, path: string) {
      await page.goto('about:blank');
      const control = await visit(suite, `/control${path}`);
      await waitForStored(suite, `/control${path}`, (events) => events.length === 1);
      await control.context.close();
      expect(await storedUnder(suite, path)).toEqual([]);
      // And nothing left the browser while the page was open.
      expect(current?.traffic.attempts()).toEqual([]);
    },
  },
  'the recording stand-in': {
    src: () => `${standIn.url}/js/${siteId(suite)}.js`,
    async expectNothingFrom(page: Page, path: string) {
      await page.goto('about:blank');
      const control = await visit(suite, `/control${path}`);
      await waitFor('the control pageview', () =>
        standIn.events().find((e) => e.u.includes(`/control${path}`)),
      );
      await control.context.close();
      expect(standIn.events().filter((e) => new URL(e.u).pathname.startsWith(path))).toEqual([]);
    },
  },
};

describe('consent', () => {
  it("stops all sending and storing at footfall('consent', false), and resumes at true", async () => {
    suite.pages.set('/consent', pageHtml(scriptUrl(suite), { body: BODY }));
    const { page, traffic } = await open('/consent');
    const [first] = await waitForStored(suite, '/consent', (events) => events.length === 1);
    expect((await kept(page)).cookies).toContain('footfall_vid');

    await page.evaluate(() => window.footfall('consent', false));
    expect(await kept(page)).toEqual(NOTHING);
    await doEverything(page, '/consent');
    expect(await kept(page)).toEqual(NOTHING);

    await page.evaluate(() => window.footfall('consent', true));
    await page.evaluate(() => window.footfall('event', 'After consent'));
    const stored = await waitForStored(suite, '/consent', (events) =>
      events.some((e) => e.name === 'After consent'),
    );
    // The in-app page reached while refused is counted once consent returns; nothing sent meanwhile.
    expect(inSentOrder(stored, traffic).map((e) => [e.kind, e.name, e.path])).toEqual([
      ['pv', null, '/consent'],
      ['pv', null, '/consent/elsewhere'],
      ['ev', 'After consent', '/consent/elsewhere'],
    ]);
    expect(traffic.attempts()).toHaveLength(3);
    // A new visitor: the old id was forgotten with the cookie.
    expect(stored.at(-1)?.visitor).not.toBe(first?.visitor);
  });

  it('waits for consent with data-require-consent, then counts the current page', async () => {
    suite.pages.set('/optin', pageHtml(scriptUrl(suite), { body: BODY, attrs: 'data-require-consent' }));
    const { page, traffic } = await open('/optin');
    await page.evaluate(() => window.footfall('event', 'Before consent'));
    expect(await kept(page)).toEqual(NOTHING);
    expect(traffic.attempts()).toEqual([]);
    await page.evaluate(() => window.footfall('consent', true));
    const stored = await waitForStored(suite, '/optin', (events) => events.length === 1);
    expect(stored.map((e) => [e.kind, e.name])).toEqual([['pv', null]]);
    expect((await kept(page)).cookies).toEqual(['footfall_vid']);
  });

  for (const [name, backend] of Object.entries(backends)) {
    it(`sends nothing and stores nothing when consent is refused through the stub (${name})`, async () => {
      const path = `/refused-${name.length}`;
      suite.pages.set(path, pageHtml(backend.src(), { body: BODY, early: "footfall('consent', false)" }));
      suite.pages.set(`/control${path}`, pageHtml(backend.src()));
      const { page } = await open(path);
      await doEverything(page, path);
      expect(await kept(page)).toEqual(NOTHING);
      await backend.expectNothingFrom(page, path);
    });
  }
});

describe('browser privacy signals', () => {
  const signals = {
    'Do Not Track': "Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' })",
    'Global Privacy Control':
      "Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true })",
  };
  for (const [signal, init] of Object.entries(signals)) {
    for (const [name, backend] of Object.entries(backends)) {
      it(`sends and stores nothing under ${signal}, even after footfall('consent', true) (${name})`, async () => {
        const path = `/signal-${signal.length}-${name.length}`;
        suite.pages.set(path, pageHtml(backend.src(), { body: BODY }));
        suite.pages.set(`/control${path}`, pageHtml(backend.src()));
        // Only the script sees the signal: the browser sends no DNT or Sec-GPC header, so the
        // gateway would store anything that was sent.
        const { page } = await open(path, { init });
        await page.evaluate(() => window.footfall('consent', true));
        await doEverything(page, path);
        expect(await kept(page)).toEqual(NOTHING);
        await backend.expectNothingFrom(page, path);
      });
    }
  }
});

describe('the owner\'s "don\'t count me" mark', () => {
  it('sends nothing from a browser that opened ?footfall_ignore=1, on every page, until ?footfall_ignore=0', async () => {
    suite.pages.set('/mine', pageHtml(scriptUrl(suite), { body: BODY }));
    suite.pages.set('/control/mine', pageHtml(scriptUrl(suite)));
    const { page } = await open('/mine?footfall_ignore=1');
    await doEverything(page, '/mine');
    // the mark is all the browser keeps: no cookie, no queue
    expect(await kept(page)).toEqual({ cookies: [], local: ['footfall_ignore'], session: [] });
    // another page of the site, without the parameter: still nothing
    await page.goto(pageUrl(suite, '/mine/later'));
    await page.waitForFunction(() => typeof window.footfall === 'function' && !('q' in window.footfall));
    await page.evaluate(() => window.footfall('consent', true));
    await doEverything(page, '/mine/later');
    await backends['the real gateway'].expectNothingFrom(page, '/mine');
    // the mark taken away: this browser counts again
    await page.goto(pageUrl(suite, '/mine/again?footfall_ignore=0'));
    await waitForStored(suite, '/mine/again', (events) => events.length === 1);
  });
});

describe('cookieless mode', () => {
  it('keeps nothing in the browser and sends no visitor id, and removes a cookie left from cookie mode', async () => {
    suite.pages.set(
      '/cookieless',
      pageHtml(scriptUrl(suite, 'cookieless'), {
        body: `${BODY}<a id="buy" href="https://buy.stripe.com/test_123">buy</a>`,
      }),
    );
    const { page, traffic } = await open('/cookieless', {
      mode: 'cookieless',
      prepare: (context) =>
        context.addCookies([
          { name: 'footfall_vid', value: 'leftover-id-123', url: 'http://quiet.localhost' },
        ]),
    });
    await page.evaluate(() => document.addEventListener('click', (event) => event.preventDefault()));
    await page.evaluate(() => window.footfall('event', 'Cookieless event', { a: 1 }));
    await page.click('#buy');
    const stored = await waitForStored(suite, '/cookieless', (events) => events.length === 3, 'cookieless');
    expect(inSentOrder(stored, traffic).map((e) => [e.kind, e.name, e.props])).toEqual([
      ['pv', null, null],
      ['ev', 'Cookieless event', { a: 1 }],
      ['ev', 'Outbound Link', { url: 'https://buy.stripe.com/test_123' }],
    ]);
    expect(traffic.accepted().map((e) => e.v)).toEqual([undefined, undefined, undefined]);
    // The server's daily hash stands in for the visitor: one for the three, not the leftover cookie.
    expect(new Set(stored.map((e) => e.visitor)).size).toBe(1);
    expect(stored[0]?.visitor).not.toBe('leftover-id-123');
    expect(await kept(page)).toEqual(NOTHING);
    // No stable id to hand to a checkout: the link is left as it was.
    expect(await page.getAttribute('#buy', 'href')).toBe('https://buy.stripe.com/test_123');
  });
});
