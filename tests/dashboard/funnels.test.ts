import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  postEvents,
  signIn,
  startDashboard,
} from './harness.ts';

/** Funnels as an owner sets them in the site's settings, and as the report's Funnels panel shows them. */
describe('funnels in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'funnels.localhost');
    await postEvents(d, site, 'funnels.localhost', [
      ['visitor-0001', '/', null],
      ['visitor-0001', '/pricing', null],
      ['visitor-0001', '/pricing', 'Signup'],
      ['visitor-0002', '/', null],
      ['visitor-0002', '/pricing', null],
      ['visitor-0003', '/', null],
      ['visitor-0004', '/', null],
    ]);
  }, 60_000);
  afterAll(() => d?.close());

  it('lets an owner define a funnel and shows its steps with drop-off in the report', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const form = page.getByRole('form', { name: 'New funnel' });
    await form.getByLabel('Name of the funnel').fill('Signup path');
    await form.getByLabel('Step 1', { exact: true }).fill('/');
    await form.getByLabel('Step 2', { exact: true }).fill('/pricing');
    await form.getByRole('button', { name: 'Add a step' }).click();
    await form.getByLabel('Step 3 is').selectOption('event');
    await form.getByLabel('Step 3', { exact: true }).fill('Signup');
    await form.getByRole('button', { name: 'Add the funnel' }).click();
    await page.getByText('/ → /pricing → event Signup').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page
      .locator('#funnels')
      .screenshot({ path: '.test-results/screens/funnel-settings-1280-light.png' });
    await page.goto(`/sites/${site}`);
    await page.keyboard.press('End');
    const panel = page.getByRole('region', { name: 'Funnels', exact: true });
    await expect
      .poll(
        async () => {
          await page.keyboard.press('End');
          return panel.locator('.funnel-steps li').allTextContents();
        },
        { timeout: 15_000 },
      )
      .toEqual(['1. /4 100%', '2. /pricing2 50% · 2 left', '3. Signup1 25% · 1 left']);
    expect(await accessibilityProblems(page)).toEqual([]);
    await panel.screenshot({ path: '.test-results/screens/funnels-panel-1280-light.png' });
    await context.close();
  }, 90_000);

  it('fits a phone in dark mode', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    const panel = page.getByRole('region', { name: 'Funnels', exact: true });
    await expect
      .poll(
        async () => {
          await page.keyboard.press('End');
          return panel.locator('.funnel-steps li').count();
        },
        { timeout: 15_000 },
      )
      .toBe(3);
    await panel.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await panel.screenshot({ path: '.test-results/screens/funnels-panel-360-dark.png' });
    await context.close();
  }, 60_000);
});
