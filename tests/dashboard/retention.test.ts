import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/** A site's visit retention in Settings, General, on an instance that keeps 400 days by default. */
describe('visit retention in the site settings', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard({ FOOTFALL_RETENTION_DAYS: '400' });
    owner = await createOwner(d);
    site = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'a.localhost' }))
      .site.id;
  }, 60_000);
  afterAll(() => d?.close());

  it("shows the server's default, saves a site's own days, says what is wrong, and goes back to the default", async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const days = page.getByLabel('Keep visits for');
    await expect.poll(() => days.getAttribute('placeholder')).toBe('400');
    await page.getByText('Empty follows this server: 400 days.').waitFor();
    const general = page.locator('form', { has: days });
    const save = general.getByRole('button', { name: 'Save' });

    await days.fill('90');
    await save.click();
    await general.getByRole('status').getByText('Saved.').waitFor();
    const stored = () =>
      owner.call<{ site: { retention_days: number | null } }>('GET', `/api/v1/sites/${site}`);
    expect((await stored()).site.retention_days).toBe(90);
    await screenshot(page, 'site-settings-retention');

    // the browser lets a number below the range through once its own check is off: the server says why
    await days.evaluate((input: HTMLInputElement) => input.removeAttribute('min'));
    await days.fill('7');
    await save.click();
    await general.getByText('must be a whole number of days from 30 to 36500, or null').waitFor();
    expect((await stored()).site.retention_days).toBe(90);

    await days.fill('');
    await save.click();
    await general.getByRole('status').getByText('Saved.').waitFor();
    expect((await stored()).site.retention_days).toBeNull();
    await context.close();
  });
});
