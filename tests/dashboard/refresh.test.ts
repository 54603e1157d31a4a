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
 * The report stays alive: while its period includes now and the tab is visible it asks again every
 * minute (the page's clock is driven by the test), without a reload and without moving the page;
 * a hidden tab asks nothing, and asks at once when it is shown again.
 */
describe('a report that refreshes itself', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'alive.localhost');
  });
  afterAll(() => d?.close());

  const visitors = async () =>
    (await owner.call<{ kpis: { visitors: number } }>('GET', `/api/v1/sites/${site}/report`)).kpis.visitors;

  it('shows new visits within a minute, keeps the scroll and the filters, and waits while hidden', async () => {
    await postEvents(d, site, 'alive.localhost', [['reader-00001', '/', null]]);
    await expect.poll(visitors).toBe(1);
    const context = await personContext(d, { width: 1280 });
    const page = await context.newPage();
    await page.clock.install();
    await signIn(page);
    await page.goto(`/sites/${site}?period=today&f=page:/`);
    const value = page.locator('.top-stat', { hasText: 'Visitors' }).locator('.top-stat-value');
    await expect.poll(() => value.textContent()).toBe('1');
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/api/v1/sites/${site}/report`) asked.push(r.url());
    });
    await page.evaluate(() => {
      (window as unknown as { kept: boolean }).kept = true;
      window.scrollTo(0, 200);
    });
    const scrolled = await page.evaluate(() => window.scrollY);

    await postEvents(d, site, 'alive.localhost', [['reader-00002', '/', null]]);
    await expect.poll(visitors).toBe(2);
    await page.clock.fastForward(61_000);
    await expect.poll(() => value.textContent()).toBe('2');
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked.every((u) => new URL(u).searchParams.get('f') === 'page:/')).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept)).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    expect(new URL(page.url()).searchParams.get('f')).toBe('page:/');

    // a hidden tab asks nothing however long it waits
    const setVisibility = (state: 'hidden' | 'visible') =>
      page.evaluate((s) => {
        Object.defineProperty(document, 'visibilityState', { value: s, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await setVisibility('hidden');
    const before = asked.length;
    await page.clock.fastForward(180_000);
    expect(asked.length).toBe(before);
    await postEvents(d, site, 'alive.localhost', [['reader-00003', '/', null]]);
    await expect.poll(visitors).toBe(3);
    await setVisibility('visible');
    await expect.poll(() => value.textContent()).toBe('3');
    expect(asked.length).toBe(before + 1);
    await context.close();
  });

  it('does not ask again for a period that is over', async () => {
    const context = await personContext(d, { width: 1280 });
    const page = await context.newPage();
    await page.clock.install();
    await signIn(page);
    await page.goto(`/sites/${site}?period=custom&from=2026-01-01&to=2026-01-31`);
    await page.locator('.top-stats').waitFor();
    let asked = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === `/api/v1/sites/${site}/report`) asked++;
    });
    await page.clock.fastForward(180_000);
    expect(asked).toBe(0);
    await context.close();
  });

  it('says so while received events wait to be loaded (after a restart or an outage)', async () => {
    // a site with visits (the report, not the install screen), and everything received loaded
    await postEvents(d, site, 'alive.localhost', [['reader-00003', '/', null]]);
    await expect.poll(visitors).toBeGreaterThan(0);
    const loading = async () =>
      (await owner.call<{ loading_events: number }>('GET', `/api/v1/sites/${site}/status`)).loading_events;
    await expect.poll(loading).toBe(0);
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    await page.locator('.top-stats').waitFor();
    expect(await page.getByText('still loading').count()).toBe(0);
    // the same answer with a backlog, as right after a restart with a long write-ahead log
    await context.route(`**/api/v1/sites/${site}/status`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), loading_events: 123_456 } });
    });
    await page.reload();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'still loading' }).textContent())
      .toContain('Footfall is still loading 123,456 events it received earlier');
    await context.close();
  });
});
