import { join } from 'node:path';
import type { Page } from 'playwright-core';
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

interface MilestoneJson {
  kind: string;
  step: string;
  title: string;
  seen: boolean | null;
}

/** The loaded size of an image on the page (0 until it has loaded). */
const naturalWidth = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));

/** How the page fetched milestone cards: by whom (`link`: the page's preload) and with which query. */
const cardRequests = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => new URL(e.name).pathname.endsWith('/card'))
      .map((e) => `${(e as PerformanceResourceTiming).initiatorType} ${new URL(e.name).search}`),
  );
/** Money shows its amount on the card (the dashboard's isMoney). */
const amountOf = (m: MilestoneJson) => (m.kind === 'revenue' || m.kind === 'first_sale' ? 'show' : 'hide');

/**
 * Milestones as people meet them: 30 days of demo visits, the real processes; the daily check
 * (run by the alert pass, every second here) finds what the site reached; the site's page shows
 * the newest as a moment with its card; an owner makes it public and closes it; a person without
 * an account opens the public page, whose preview is the card; revoked, it is gone; and with the
 * module off, every way in leaves the dashboard.
 */
describe('milestones in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  let milestones: MilestoneJson[];
  let publicUrl: string;
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-milestones-'), 'data');
    await writeDemoData({ dataDir, events: 4_000, days: 30 });
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir, FOOTFALL_UNSAFE_ALERT_SECONDS: '1' });
    owner = await createOwner(d);
    site = (await owner.call<{ sites: { id: string }[] }>('GET', '/api/v1/sites')).sites[0]!.id;
    // the first alert pass starts a second after the start; the tailer loads the demo data first
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      const answer = await owner.call<{ checked_day: string | null; milestones: MilestoneJson[] }>(
        'GET',
        `/api/v1/sites/${site}/milestones`,
      );
      milestones = answer.milestones;
      // the day's milestones are stored at once, with the day checked
      if (answer.checked_day !== null && milestones.length > 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(milestones.length).toBeGreaterThan(1);
  }, 120_000);
  afterAll(() => d?.close());

  it('shows the newest milestone as a moment with its card; an owner makes it public and closes it', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    const warnings: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
    });
    // a site the service has seen visits of (its status says so) has its first view named in its
    // page's Link header (page-preloads.ts)
    await owner.call('GET', `/api/v1/sites/${site}/status`);
    await page.goto(`/sites/${site}`);
    const moment = page.locator('section.moment');
    await moment.getByRole('heading', { name: milestones[0]!.title }).waitFor();
    await moment.getByText('Milestone reached').waitFor();
    await expect.poll(() => naturalWidth(page, '.moment-card'), { timeout: 15_000 }).toBe(1200);
    // the card comes with the page (its Link header names it, in the light scheme here), once
    expect(await cardRequests(page)).toEqual([`link ?theme=light&amount=${amountOf(milestones[0]!)}`]);
    await page.waitForTimeout(4_000); // Chromium says "preloaded but not used" about 3 s after load
    expect(warnings).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'milestone-moment-1280-light');
    await moment.getByRole('button', { name: 'Make a public link' }).click();
    const link = moment.locator('code.share-url');
    await link.waitFor();
    publicUrl = (await link.textContent()) ?? '';
    expect(publicUrl).toMatch(/\/m\/[\w-]{24}$/);
    await moment.getByRole('button', { name: 'Close the milestone', exact: true }).click();
    // the next one this person has not closed takes its place; closing is remembered
    await moment.getByRole('heading', { name: milestones[1]!.title }).waitFor();
    const after = await owner.call<{ milestones: MilestoneJson[] }>(
      'GET',
      `/api/v1/sites/${site}/milestones`,
    );
    expect(after.milestones.find((m) => m.title === milestones[0]!.title)?.seen).toBe(true);
    await context.close();
  }, 60_000);

  it('opens the public page for anyone, its card as the preview; revoked, it is gone', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    const path = new URL(publicUrl).pathname;
    await page.goto(path);
    await page.getByRole('heading', { name: milestones[0]!.title, level: 1 }).waitFor();
    const ogImage = await page.locator('meta[property="og:image"]').getAttribute('content');
    expect(ogImage).toBe(`${publicUrl}/card.png`);
    expect(await page.locator('meta[name="twitter:card"]').getAttribute('content')).toBe(
      'summary_large_image',
    );
    await expect.poll(() => naturalWidth(page, 'img'), { timeout: 15_000 }).toBe(1200);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'milestone-public-360-dark');
    const first = milestones[0]!;
    await owner.call('DELETE', `/api/v1/sites/${site}/milestones/${first.kind}/${first.step}/share`);
    const gone = await page.goto(path);
    expect(gone?.status()).toBe(404);
    await page.getByRole('heading', { name: 'This milestone is not shared' }).waitFor();
    await context.close();
  }, 60_000);

  it('lists milestones in the settings, and with the module off leaves the dashboard', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    await page.locator('section.moment').getByRole('heading', { name: milestones[1]!.title }).waitFor();
    // the next moment's card, in the dark scheme this browser draws, came with the page too
    await expect.poll(() => naturalWidth(page, '.moment-card'), { timeout: 15_000 }).toBe(1200);
    expect(await cardRequests(page)).toEqual([`link ?theme=dark&amount=${amountOf(milestones[1]!)}`]);
    await screenshot(page, 'milestone-moment-360-dark');
    await page.goto(`/sites/${site}/settings`);
    const section = page.locator('#milestones');
    await section.getByRole('checkbox', { name: 'A record day' }).waitFor();
    await expect.poll(() => section.locator('li.share-item').count()).toBe(milestones.length);
    expect(await accessibilityProblems(page)).toEqual([]);
    await section.screenshot({ path: '.test-results/screens/milestone-settings-360-dark.png' });
    await page.getByRole('checkbox', { name: /^Milestones/ }).uncheck();
    await expect.poll(() => page.locator('#milestones').count(), { timeout: 15_000 }).toBe(0);
    await page.goto(`/sites/${site}`);
    await page.locator('.top-stats').waitFor();
    expect(await page.locator('section.moment').count()).toBe(0);
    await context.close();
  }, 60_000);
});
