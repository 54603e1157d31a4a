import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  signIn,
  startDashboard,
} from './harness.ts';

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * Goals as an owner sets them: defined in the site's settings, counted in the report's Goals
 * panel with their rate, and gone from both when the module is switched off.
 */
describe('goals in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'goals.localhost');
    for (const [v, u, name] of [
      ['visitor-0001', '/pricing', null],
      ['visitor-0001', '/thanks', null],
      ['visitor-0002', '/', null],
      ['visitor-0002', '/', 'Signup'],
      ['visitor-0003', '/docs', null],
      ['visitor-0004', '/', null],
    ] as const) {
      const res = await fetch(`${d.footfall.url}/api/e`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
        body: JSON.stringify(
          name
            ? { s: site, k: 'ev', n: name, u: `http://goals.localhost${u}`, v }
            : { s: site, k: 'pv', u: `http://goals.localhost${u}`, v },
        ),
      });
      expect(res.status, await res.text()).toBe(202);
    }
  }, 60_000);
  afterAll(() => d?.close());

  it('lets an owner add goals in settings and shows their conversions in the report', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    const panel = page.getByRole('region', { name: 'Goals', exact: true });
    await panel.getByText('No goal yet').waitFor();
    await panel.getByRole('link', { name: 'Set goals' }).click();
    const form = page.getByRole('form', { name: 'New goal' });
    await form.getByLabel('Name of the goal').fill('Thank-you page');
    await form.getByLabel('Page path').fill('/thanks*');
    await form.getByRole('button', { name: 'Add the goal' }).click();
    await page.getByText('a page matching /thanks*').waitFor();
    await form.getByLabel('Name of the goal').fill('Signed up');
    await form.getByLabel('a custom event').check();
    await form.getByLabel('Event name').fill('Signup');
    await form.getByRole('button', { name: 'Add the goal' }).click();
    await page.getByText('the event Signup').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.locator('#goals').screenshot({ path: '.test-results/screens/goal-settings-1280-light.png' });
    await page.goto(`/sites/${site}`);
    // 4 visitors: one reached /thanks, one sent Signup
    await expect
      .poll(() => panel.getByRole('row', { name: 'Thank-you page 1 25% 1' }).count(), { timeout: 15_000 })
      .toBe(1);
    expect(await panel.getByRole('row', { name: 'Signed up 1 25% 1' }).count()).toBe(1);
    // a goal's name filters the report to the visits that reached it
    await panel.getByRole('link', { name: 'Signed up' }).click();
    await page.getByRole('link', { name: 'Remove the filter Goal is Signed up' }).waitFor();
    // the filtered report is a new, uncached read: give it the time a loaded machine takes
    await expect
      .poll(() => panel.getByRole('row', { name: 'Signed up 1 100% 1' }).count(), { timeout: 15_000 })
      .toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);
    await panel.screenshot({ path: '.test-results/screens/goals-panel-1280-light.png' });
    await context.close();
  }, 90_000);

  it('takes goals out of the report and the settings when the module is off', async () => {
    await owner.call('PATCH', `/api/v1/sites/${site}`, { modules: { goals: false } });
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    await page.getByRole('heading', { name: 'Sources' }).waitFor();
    expect(await page.getByRole('region', { name: 'Goals', exact: true }).count()).toBe(0);
    await page.goto(`/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'Modules' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Goals', exact: true }).count()).toBe(0);
    await owner.call('PATCH', `/api/v1/sites/${site}`, { modules: { goals: true } });
    await page.reload();
    await page.getByRole('heading', { name: 'Goals', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Goals', exact: true }).scrollIntoViewIfNeeded();
    await page.locator('#goals').screenshot({ path: '.test-results/screens/goal-settings-360-dark.png' });
    await context.close();
  }, 60_000);
});
