import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  sitePage,
  startDashboard,
  visitSite,
} from './harness.ts';

/**
 * Shields as an owner uses them: typed into Site settings, then the real tracker in Chromium on
 * the site's pages and on a staging subdomain. What a shield matches is answered 202 and never stored; the settings say how
 * much was kept out. The visitors here come from 127.0.0.1.
 */
describe('shields', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  let shop: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'shop.localhost');
    shop = `http://shop.localhost:${d.pages.port}`;
    const tag = `<script defer src="${d.footfall.url}/js/${site}.js"></script>`;
    for (const path of ['/public', '/private/plans', '/after', '/staging-only'])
      d.pages.set(path, sitePage(tag, path));
  }, 60_000);
  afterAll(() => d?.close());

  const storedPaths = async () =>
    (await owner.call<{ events: { path: string }[] }>('GET', `/api/v1/sites/${site}/events`)).events.map(
      (e) => e.path,
    );

  it('keep out the pages and addresses an owner names, say how many, and name a bad line', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const shields = page.locator('#shields');
    await shields.getByLabel('Pages').fill('/private/*');
    await shields.getByLabel('Hosts').fill('staging.shop.localhost');
    await shields.getByRole('button', { name: 'Save the shields' }).click();
    await shields.getByText('Saved. The gateway applies the shields within seconds.').waitFor();

    // the gateway reads the site again within seconds
    await new Promise((r) => setTimeout(r, 2500));
    await visitSite(d, `${shop}/private/plans`);
    // a staging copy of the site, on a subdomain (Chromium takes every *.localhost as this machine)
    await visitSite(d, `http://staging.shop.localhost:${d.pages.port}/staging-only`);
    await visitSite(d, `${shop}/public`);
    await expect.poll(storedPaths, { timeout: 15_000 }).toContain('/public');
    expect(await storedPaths()).not.toContain('/private/plans');
    expect(await storedPaths()).not.toContain('/staging-only');

    // a bad range is named by its line, and changes nothing
    await shields.getByLabel('Addresses and ranges').fill('127.0.0.1\n10.0.0.0/33');
    await shields.getByRole('button', { name: 'Save the shields' }).click();
    await shields.getByText('Line 2: "10.0.0.0/33" is not an IP address or a CIDR range').waitFor();
    const kept = await owner.call<{ shields: { ips: string[]; pages: string[] } }>(
      'GET',
      `/api/v1/sites/${site}/shields`,
    );
    expect(kept.shields).toMatchObject({
      ips: [],
      pages: ['/private/*'],
      hostnames: ['staging.shop.localhost'],
    });

    // this browser's own address: nothing from it is counted any more
    await shields.getByLabel('Addresses and ranges').fill('127.0.0.1\n::1');
    await shields.getByRole('button', { name: 'Save the shields' }).click();
    await shields.getByText('Saved. The gateway applies the shields within seconds.').waitFor();
    await new Promise((r) => setTimeout(r, 2500));
    await visitSite(d, `${shop}/after`);

    // the counts come once the writer has applied the gateway's records: events, so a visit's
    // pageview and the engagement sent as its page closed count apart
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#shields .shield-counts').textContent();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toMatch(
        /^Events kept out today: (\d+)\. Last 30 days: \1\. \(addresses [1-9]\d*, countries 0, pages [1-9]\d*, hosts [1-9]\d*\)$/,
      );
    expect(await storedPaths()).toEqual(['/public']);
    await screenshot(page, 'site-settings-shields-1280-light');

    // Health counts them too, by kind, since the gateway started
    await page.goto('/health');
    const events = page.locator('section[aria-labelledby="h-events"]');
    await expect
      .poll(() => events.textContent(), { timeout: 10_000 })
      .toMatch(
        /Kept out by shields\s*[1-9]\d*\s*\(addresses [1-9]\d*, countries 0, pages [1-9]\d*, hosts [1-9]\d*\)/,
      );
    await screenshot(page, 'health-shields-1280-light');
    await context.close();
  }, 120_000);
});
