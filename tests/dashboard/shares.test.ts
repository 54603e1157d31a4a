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

/**
 * Share links as people use them: an owner makes one with a password in the site's settings; a
 * person without an account opens the link, is asked for the password, and reads the report
 * without the live view, the CSV or settings; once revoked, the link opens nothing.
 */
describe('share links in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  let url: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'shared.localhost');
    await postEvents(d, site, 'shared.localhost', [
      ['visitor-0001', '/', null],
      ['visitor-0002', '/pricing', null],
      ['visitor-0003', '/', null],
    ]);
    // counted without cookies from now on: the list and the share page say so (spec: Sites)
    await owner.call('PATCH', `/api/v1/sites/${site}`, { cookieless: true });
  }, 60_000);
  afterAll(() => d?.close());

  it('lets an owner make a link with a password in the settings', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    const card = page.locator('.site-card', { hasText: 'shared.localhost' });
    await card.getByText('Cookieless', { exact: true }).waitFor();
    await card.screenshot({ path: '.test-results/screens/site-card-cookieless-1280-light.png' });
    await page.goto(`/sites/${site}/settings`);
    const section = page.locator('#shares');
    await section.getByText('No share link yet.').waitFor();
    const form = page.getByRole('form', { name: 'New share link' });
    await form.getByLabel('Label (optional)').fill('Investors');
    await form.getByLabel('Password (optional)').fill('abc');
    await form.getByRole('button', { name: 'Create a share link' }).click();
    await form.getByText('6 to 200 characters').waitFor();
    await form.getByLabel('Password (optional)').fill('quarterly numbers');
    await form.getByRole('button', { name: 'Create a share link' }).click();
    const link = section.locator('code.share-url');
    await link.waitFor();
    url = (await link.textContent()) ?? '';
    expect(url).toMatch(/\/share\/ffsh_/);
    await section.getByText('Password · no notes').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await section.screenshot({ path: '.test-results/screens/share-settings-1280-light.png' });
    await context.close();
  }, 60_000);

  it('asks a person without an account for the password, then shows the report read only', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await page.goto(new URL(url).pathname);
    const form = page.getByRole('form', { name: 'Open the shared dashboard' });
    await form.getByLabel('Password').fill('quarterly');
    await form.getByRole('button', { name: 'Open' }).click();
    await form.getByText('Wrong password').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: '.test-results/screens/share-password-360-dark.png' });
    await form.getByLabel('Password').fill('quarterly numbers');
    await form.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'shared.localhost' }).waitFor();
    await page.getByText('A shared dashboard, read only').waitFor();
    await page
      .getByRole('heading', { name: 'shared.localhost' })
      .getByText('Cookieless', { exact: true })
      .waitFor();
    await expect
      .poll(() => page.getByRole('heading', { name: 'Sources' }).count(), { timeout: 15_000 })
      .toBe(1);
    // the top stats count the three visitors
    await expect
      .poll(() => page.locator('.top-stat-value').first().textContent(), { timeout: 15_000 })
      .toContain('3');
    expect(await page.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /Live/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await page.screenshot({ path: '.test-results/screens/share-report-360-dark.png', fullPage: false });
    // a filter keeps the person on the shared page
    await page.getByRole('link', { name: '/pricing', exact: true }).first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(new URL(url).pathname);
    await context.close();
  }, 90_000);

  it('draws a card of the site to post elsewhere, light or dark', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    await page.getByText('Card', { exact: true }).click();
    const preview = page.locator('img.share-card-preview');
    await expect
      .poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
        timeout: 15_000,
      })
      .toBe(1200);
    await page.getByLabel('Look').selectOption('dark');
    await expect.poll(() => preview.getAttribute('src')).toContain('theme=dark');
    await expect
      .poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalHeight), {
        timeout: 15_000,
      })
      .toBe(630);
    expect(await page.getByRole('link', { name: 'Download the PNG' }).getAttribute('download')).toBe(
      'shared.localhost-visitors-7d.png',
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await page
      .locator('.share-card-body')
      .screenshot({ path: '.test-results/screens/share-card-1280-light.png' });
    await context.close();
  }, 60_000);

  it('opens nothing once revoked', async () => {
    const { shares } = await owner.call<{ shares: { id: string }[] }>('GET', `/api/v1/sites/${site}/shares`);
    await owner.call('DELETE', `/api/v1/sites/${site}/shares/${shares[0]!.id}`);
    const context = await personContext(d);
    const page = await context.newPage();
    await page.goto(new URL(url).pathname);
    await page.getByRole('heading', { name: 'This link does not open anything' }).waitFor();
    await context.close();
  }, 60_000);
});
