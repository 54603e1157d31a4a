import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  postEvents,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * The page names the report in its Link header (apps/query/src/page-preloads.ts): the browser
 * fetches it with the page, the dashboard takes that answer instead of asking again, and nothing
 * preloaded goes unused (Chromium warns in the console when it does).
 */
describe('the report fetched with the page', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'early.localhost');
    await postEvents(d, site, 'early.localhost', [['reader-00001', '/', null]]);
    // the status saying the site has visits is what lets its page name the report
    for (let i = 0; i < 100; i++) {
      if ((await owner.call<{ state: string }>('GET', `/api/v1/sites/${site}/status`)).state === 'active')
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the visit was not stored');
  });
  afterAll(() => d?.close());

  it.each(['', '?period=7d&f=page:/', '?period=custom&from=2026-01-01&to=2026-01-31', '?period=all'])(
    'is asked once for /sites/<id>%s, and nothing preloaded is left unused',
    async (search) => {
      const context = await personContext(d, { width: 1280 });
      const page = await context.newPage();
      await signIn(page);
      const warnings: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
      });
      await page.goto(`/sites/${site}${search}`);
      await page.locator('.top-stats').waitFor();
      const fetched = (suffix: string) =>
        page.evaluate(
          (path) =>
            performance
              .getEntriesByType('resource')
              .filter((e) => new URL(e.name).pathname === path)
              .map((e) => (e as PerformanceResourceTiming).initiatorType),
          `/api/v1/sites/${site}${suffix}`,
        );
      const reports = () => fetched('/report');
      // a named period and a custom range come with the page (a link preload); All time once
      // the script knows the site's first day
      const named = search.includes('period=all') ? 'fetch' : 'link';
      expect(await reports()).toEqual([named]);
      await expect.poll(() => fetched('/annotations')).toEqual([named]);
      expect(await fetched('/now')).toEqual(['link']);
      expect(await fetched('/milestones')).toEqual(['link']);
      await page.waitForTimeout(4_000); // Chromium says "preloaded but not used" about 3 s after load
      expect(warnings).toEqual([]);
      expect(await reports()).toHaveLength(1);
      await context.close();
    },
  );

  it('asks only how to sign in on a signed-out visit, never for a session, so the sign-in screen logs no error', async () => {
    const context = await personContext(d, { width: 1280 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') problems.push(m.text());
    });
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(new URL(r.url()).pathname);
    });
    await page.goto(`/sites/${site}`);
    await page.waitForURL((u) => u.pathname === '/login');
    await page.getByLabel('E-mail').waitFor();
    await page.waitForTimeout(1_000);
    // the public sign-in methods (whether single sign-on is set up), and nothing that answers 401
    expect(asked).toEqual(['/api/v1/session/methods']);
    expect(problems).toEqual([]);
    // signing in sets the hint the page reads; signing out takes it away again
    await signIn(page);
    await page.goto(`/sites/${site}`);
    await page.locator('.top-stats').waitFor();
    expect((await context.cookies()).map((c) => c.name).sort()).toEqual([
      'footfall_session',
      'footfall_signed_in',
    ]);
    await context.clearCookies({ name: 'footfall_session' });
    await page.goto('/sites');
    await page.waitForURL((u) => u.pathname === '/login');
    expect((await context.cookies()).map((c) => c.name)).toEqual([]);
    await context.close();
  });
});
