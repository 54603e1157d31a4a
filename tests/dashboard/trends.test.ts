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
  pollScrolledDown,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * The trend charts and "What happened" under the report, on 60 days of demo visits through the
 * real processes: each card drawn from `report/charts`, the timeline from `moments`, both
 * following the period and the filters, readable with a screen reader and at 360 px.
 */
describe('trends and what happened', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-trends-'), 'data');
    await writeDemoData({ dataDir, events: 8_000, days: 60 });
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir });
    owner = await createOwner(d);
    site = (await owner.call<{ sites: { id: string }[] }>('GET', '/api/v1/sites')).sites[0]!.id;
    await owner.call('GET', '/api/v1/site-trends');
  }, 120_000);
  afterAll(() => d?.close());

  for (const look of [
    { width: 1280, dark: false, tag: '1280-light' },
    { width: 360, dark: true, tag: '360-dark' },
  ]) {
    it(`draws the cards and the timeline at ${look.tag}`, async () => {
      const context = await personContext(d, look);
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`/sites/${site}?period=30d`);
      await page.locator('.top-stats').waitFor();
      const charts = page.locator('section.charts');
      await pollScrolledDown(page, () => charts.locator('.charts-legend li').count()).toBeGreaterThan(1);
      await charts.scrollIntoViewIfNeeded();
      expect(await charts.locator('canvas').count()).toBe(1);
      await charts.screenshot({ path: `.test-results/screens/trends-channels-${look.tag}.png` });
      await charts.getByRole('button', { name: 'Engaged time', exact: true }).click();
      await charts.getByRole('cell', { name: '10 min or more' }).waitFor();
      await charts.screenshot({ path: `.test-results/screens/trends-engaged-${look.tag}.png` });
      await charts.getByRole('button', { name: 'New & returning', exact: true }).click();
      await charts.locator('.charts-legend').getByText('Returning visits').waitFor();
      const moments = page.locator('section.moments');
      await moments.locator('.moment-item').first().waitFor();
      await moments.getByText(/^The busiest day: /).waitFor();
      await moments.scrollIntoViewIfNeeded();
      await moments.screenshot({ path: `.test-results/screens/moments-${look.tag}.png` });
      expect(await accessibilityProblems(page)).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it('follows the filters, and a first visit opens its filter', async () => {
    const answer = await owner.call<{ moments: { kind: string; value: string | null }[] }>(
      'GET',
      `/api/v1/sites/${site}/moments?from=${day(-59)}&to=${day(0)}`,
    );
    const first = answer.moments.find((m) => m.kind === 'first_referrer' || m.kind === 'first_campaign');
    expect(first, JSON.stringify(answer.moments.map((m) => m.kind))).toBeDefined();
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}?period=custom&from=${day(-59)}&to=${day(0)}`);
    await page.locator('.top-stats').waitFor();
    const moments = page.locator('section.moments');
    await pollScrolledDown(page, () => moments.locator('.moment-item').count()).toBeGreaterThan(0);
    await moments
      .getByRole('link', { name: new RegExp(first!.value!) })
      .first()
      .click();
    const dim = first!.kind === 'first_referrer' ? 'referrer' : 'campaign';
    await page.waitForURL((u) => u.searchParams.getAll('f').includes(`${dim}:${first!.value}`));
    await context.close();
  }, 90_000);
});

/** A day relative to today in the demo site's zone (Europe/Berlin), `YYYY-MM-DD`. */
function day(offset: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(Date.now());
  return new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
}
