import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  createOwner,
  type Dashboard,
  PASSWORD,
  personContext,
  postEvents,
  screenshot,
  signIn,
  startDashboard,
  waitForVisitors,
} from './harness.ts';

/**
 * Saved segments as people use them: an owner filters the report, saves the filters under a name
 * and shares them; a viewer finds the segment in the Segments menu, applies it in one click and
 * saves one of their own, which nobody else sees.
 */
describe('saved segments', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'shop.localhost');
    await owner.call('POST', '/api/v1/people', {
      email: 'viewer@example.com',
      role: 'viewer',
      password: PASSWORD,
    });
    await postEvents(d, site, 'shop.localhost', [
      ['visitor-a', '/', null],
      ['visitor-a', '/pricing', null],
      ['visitor-b', '/docs', null],
    ]);
    await waitForVisitors(owner, site, 2);
  }, 60_000);
  afterAll(() => d?.close());

  it('saves the filters in force, shares them, and applies them in one click for another reader', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}?f=page:/pricing`);
    await page.locator('.top-stats').waitFor();
    const menu = page.locator('.segments-menu');
    await menu.getByText('Segments').click();
    await menu.getByText('No saved segment yet.', { exact: false }).waitFor();
    await menu.getByLabel('Save these filters as').fill('Pricing readers');
    await menu.getByLabel('Share with everyone who has access to this site').check();
    await menu.getByRole('button', { name: 'Save the segment' }).click();
    await menu.getByRole('link', { name: 'Pricing readers' }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'segments-menu-1280-light');
    await context.close();

    const viewer = await personContext(d, { width: 360, dark: true });
    const vpage = await viewer.newPage();
    await signIn(vpage, 'viewer@example.com');
    // a password an owner gave is replaced first
    await vpage.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await vpage.getByLabel('The password you were given').fill(PASSWORD);
    await vpage.getByLabel('New password').fill('the viewer own password 1');
    await vpage.getByRole('button', { name: 'Save and continue' }).click();
    await vpage.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    await vpage.goto(`/sites/${site}`);
    await vpage.locator('.top-stats').waitFor();
    const vmenu = vpage.locator('.segments-menu');
    await vmenu.getByText('Segments').click();
    await vmenu.getByRole('link', { name: 'Pricing readers' }).click();
    await vpage.waitForURL((u) => u.searchParams.getAll('f').includes('page:/pricing'));
    await expect.poll(() => vpage.locator('.chips').textContent()).toContain('/pricing');
    // a viewer saves their own, and cannot delete the shared one
    await vmenu.getByText('Segments').click();
    await vmenu.getByLabel('Save these filters as').fill('My pricing');
    expect(await vmenu.getByLabel('Share with everyone who has access to this site').count()).toBe(0);
    await vmenu.getByRole('button', { name: 'Save the segment' }).click();
    await vmenu.getByRole('link', { name: 'My pricing' }).waitFor();
    expect(await vmenu.getByRole('button', { name: 'Delete the segment Pricing readers' }).count()).toBe(0);
    expect(await accessibilityProblems(vpage)).toEqual([]);
    await screenshot(vpage, 'segments-menu-360-dark');
    await viewer.close();

    const names = (
      await owner.call<{ segments: { name: string }[] }>('GET', `/api/v1/sites/${site}/segments`)
    ).segments.map((s) => s.name);
    expect(names).toEqual(['Pricing readers']);
  }, 90_000);

  it('opens a link to a segment with its filters as they are now, and says so when it is gone', async () => {
    const { segment } = await owner.call<{ segment: { id: string } }>(
      'POST',
      `/api/v1/sites/${site}/segments`,
      {
        name: 'Readers',
        filters: ['page:/pricing'],
      },
    );
    const id = segment.id;
    // changed since the link was copied
    await owner.call('PATCH', `/api/v1/sites/${site}/segments/${id}`, { filters: ['page:/docs'] });
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}?period=7d&segment=${id}`);
    await page.waitForURL(
      (u) => u.searchParams.getAll('f').includes('page:/docs') && !u.searchParams.has('segment'),
    );
    expect(new URL(page.url()).searchParams.get('period')).toBe('7d');
    await expect.poll(() => page.locator('.chips').textContent()).toContain('/docs');
    await page.locator('.top-stats').waitFor();
    // the menu's links are links to the segments
    await page.locator('.segments-menu').getByText('Segments').click();
    expect(
      await page
        .locator('.segments-menu')
        .getByRole('link', { name: 'Readers', exact: true })
        .getAttribute('href'),
    ).toContain(`segment=${id}`);

    await owner.call('DELETE', `/api/v1/sites/${site}/segments/${id}`);
    await page.goto(`/sites/${site}?segment=${id}`);
    await page
      .getByText('That saved segment was deleted, or is not shared with you: the report shows every visit.')
      .waitFor();
    await page.locator('.top-stats').waitFor();
    expect(await page.locator('.chips').count()).toBe(0);
    await screenshot(page, 'segment-gone-1280-light');
    await context.close();
  }, 60_000);
});
