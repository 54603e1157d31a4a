import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, type Suite, siteId, startSuite, stopSuite, waitFor } from './harness.ts';
import { COOKIELESS_DOMAIN } from './stack.ts';

/**
 * A site that still carries Plausible's script, pointed at Footfall: the official
 * `@plausible-analytics/tracker` runs in Chromium on the cookieless site's page and posts to the
 * real gateway's `/api/event` (text/plain JSON across origins, as on a real site). What it sends
 * is stored as Footfall's own events: the pageview, a custom event with props and revenue, and the
 * engagement sent when the page is hidden.
 */
const require = createRequire(import.meta.url);
const TRACKER = readFileSync(require.resolve('@plausible-analytics/tracker'), 'utf8');

let suite: Suite;
let context: BrowserContext | undefined;

beforeAll(async () => {
  suite = await startSuite();
});
afterAll(() => stopSuite(suite));
afterEach(async () => {
  await context?.close();
  context = undefined;
});

/** Opens a page of the cookieless site that runs Plausible's script with `options`. */
async function openWithPlausible(path: string): Promise<{ page: Page; answers: number[] }> {
  context = await suite.browser.newContext();
  // the script is served beside the page, as a site would bundle it
  await context.route('**/plausible.js', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: TRACKER }),
  );
  const answers: number[] = [];
  context.on('response', (response) => {
    if (response.url() === `${suite.stack.gatewayUrl}/api/event`) answers.push(response.status());
  });
  suite.pages.set(
    path,
    `<!doctype html><html><head><meta charset="utf-8"><title>t</title>
<script>window.__plausible = true; /* the script stays quiet under automation unless told */</script>
<script type="module">
import { init, track } from '/plausible.js';
init({ domain: '${COOKIELESS_DOMAIN}', endpoint: '${suite.stack.gatewayUrl}/api/event' });
window.plausibleTrack = track;
</script></head><body style="margin:0"><div style="height:3000px">long page</div></body></html>`,
  );
  const page = await context.newPage();
  await page.goto(pageUrl(suite, path, 'cookieless'));
  return { page, answers };
}

describe("Plausible's own script, pointed at Footfall", () => {
  it('stores its pageviews, a custom event with props and revenue, and the engagement of a page left', async () => {
    const { page, answers } = await openWithPlausible('/from-plausible');
    const site = siteId(suite, 'cookieless');
    const stored = (kind: string) => async () => {
      const feed = await suite.stack.feed(site);
      return feed.find((e) => e.path === '/from-plausible' && e.kind === kind);
    };
    const pageview = await waitFor('the pageview', stored('pv'));
    expect(pageview).toMatchObject({ host: COOKIELESS_DOMAIN, referrer: null });

    await page.evaluate(() =>
      (window as unknown as { plausibleTrack: (name: string, options: object) => void }).plausibleTrack(
        'Signup',
        { props: { plan: 'pro' }, revenue: { amount: 29, currency: 'EUR' } },
      ),
    );
    const custom = await waitFor('the custom event', stored('ev'));
    expect(custom).toMatchObject({
      name: 'Signup',
      props: { plan: 'pro', revenue_amount: '29', revenue_currency: 'EUR' },
      visitor: pageview.visitor,
    });

    // scrolled, then on to another page of the app: the script sends the engagement of the page
    // left (which joins the visit) and the next pageview
    await page.evaluate(() => window.scrollTo(0, 1500));
    await page.waitForTimeout(300);
    await page.evaluate(() => history.pushState({}, '', '/from-plausible/next'));
    await waitFor('the engagement', async () => {
      const visits = await suite.stack.journey(site, pageview.visitor);
      return visits.find((e) => e.kind === 'en' && e.path === '/from-plausible');
    });
    await waitFor('the next pageview', async () => {
      const feed = await suite.stack.feed(site);
      return feed.find((e) => e.path === '/from-plausible/next' && e.kind === 'pv');
    });
    // every body the script sent was accepted
    expect(answers.length).toBeGreaterThanOrEqual(4);
    expect(answers.every((status) => status === 202)).toBe(true);
  });
});
