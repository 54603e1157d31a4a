import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { tempDir } from '../support/footfall.ts';
import {
  type ApiSession,
  accessibilityProblems,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * Every site at once, as an agency opens it: two sites of demo visits in two time zones through
 * the real processes; the sites list leads there (and the G key), the totals are the two sites'
 * own reports added up, each site has its row and share, pages say whose they are, and a filter
 * narrows every site at once.
 */
describe('all sites at once', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let sites: { id: string; domain: string }[];
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-all-sites-'), 'data');
    await writeDemoData({ dataDir, events: 3_000, days: 30, domain: 'shop.example', stream: 'shop' });
    await writeDemoData({
      dataDir,
      events: 2_000,
      days: 30,
      domain: 'blog.example',
      timeZone: 'America/New_York',
      stream: 'blog',
    });
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir });
    owner = await createOwner(d);
    sites = (await owner.call<{ sites: { id: string; domain: string }[] }>('GET', '/api/v1/sites')).sites;
  }, 120_000);
  afterAll(() => d?.close());

  const visitorsOf = async (path: string) =>
    (await owner.call<{ kpis: { visitors: number } }>('GET', path)).kpis.visitors;

  it('adds the sites up, with each site’s share, from the sites list or the G key', async () => {
    const each = await Promise.all(sites.map((s) => visitorsOf(`/api/v1/sites/${s.id}/report?period=30d`)));
    const total = each[0]! + each[1]!;
    expect(total).toBeGreaterThan(0);
    expect(await visitorsOf('/api/v1/report?period=30d')).toBe(total);

    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/sites');
    await page.getByRole('link', { name: /^All sites/ }).waitFor();
    await page.keyboard.press('g');
    await page.waitForURL('**/all');
    const stat = page.locator('[data-metric="visitors"] .top-stat-value');
    await expect.poll(() => stat.textContent()).toBe(total.toLocaleString('en'));
    const rows = page.locator('.all-sites-table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().locator('th').textContent()).toBe(
      each[0]! >= each[1]! ? sites[0]!.domain : sites[1]!.domain,
    );
    // two zones: the page says each site counts its own days
    await page.getByText('Each site counts its own days, in its own time zone.').waitFor();
    // pages say whose they are
    const pages = page.locator('section[aria-labelledby="all-pages"] tbody');
    await expect.poll(() => pages.textContent()).toMatch(/(shop|blog)\.example\//);
    await screenshot(page, 'all-sites-1280-light');
    expect(await accessibilityProblems(page)).toEqual([]);

    // a filter narrows every site at once
    const channel = page.locator('section[aria-labelledby="all-channel"] tbody tr').first().locator('a');
    const name = (await channel.textContent()) ?? '';
    await channel.click();
    await page.waitForURL(/f=channel/);
    const filtered = await visitorsOf(`/api/v1/report?period=30d&f=${encodeURIComponent(`channel:${name}`)}`);
    expect(filtered).toBeLessThan(total);
    await expect.poll(() => stat.textContent()).toBe(filtered.toLocaleString('en'));
    await page.getByRole('listitem').filter({ hasText: name }).waitFor();
    await context.close();
  }, 90_000);

  it('reads well on a phone in the dark', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/all?period=7d');
    await page.locator('.all-sites-table tbody tr').nth(1).waitFor();
    await screenshot(page, 'all-sites-360-dark');
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
