import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiCallError,
  type ApiSession,
  accessibilityProblems,
  asShown,
  createOwner,
  type Dashboard,
  PASSWORD,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

interface Site {
  id: string;
  domain: string;
}

describe('roles in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let shown: Site;
  let hidden: Site;
  let viewerPassword: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    shown = (await owner.call<{ site: Site }>('POST', '/api/v1/sites', { domain: 'shown.localhost' })).site;
    hidden = (await owner.call<{ site: Site }>('POST', '/api/v1/sites', { domain: 'hidden.localhost' })).site;
    const created = await owner.call<{ person: { id: string }; password: string }>('POST', '/api/v1/people', {
      email: 'viewer@example.com',
      role: 'viewer',
    });
    viewerPassword = created.password;
    await owner.call('PUT', `/api/v1/site-access/${created.person.id}`, { sites: [shown.id] });
  }, 60_000);
  afterAll(() => d?.close());

  it('shows a viewer limited to one site only that site, and no settings, keys or secrets', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page, 'viewer@example.com', viewerPassword);
    // a generated password is replaced first
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await page.getByLabel('The password you were given').fill(viewerPassword);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

    await expect.poll(() => page.locator('.site-card').count()).toBe(1);
    expect(await page.getByText('shown.localhost').isVisible()).toBe(true);
    expect(await page.getByText('hidden.localhost').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Arrange' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Add a site' }).count()).toBe(0);

    // the site waits for its first visit: the viewer sees the tag but not the proxy key
    await page.getByRole('link', { name: /shown\.localhost/ }).click();
    await page.getByText('Waiting for the first visit').waitFor();
    expect(await page.getByText('Proxy key', { exact: false }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /settings/i }).count()).toBe(0);
    expect(await page.content()).not.toContain('X-Footfall-Proxy-Key');

    // owner pages and the other site are not there for them
    for (const path of [`/sites/${shown.id}/settings`, '/settings/people', '/settings/keys', '/sites/new']) {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Nothing here' }).waitFor();
    }
    await page.goto(`/sites/${hidden.id}`);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/no such site/i);

    // what a viewer may see: Health and their own account
    await page.goto('/health');
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    await page.getByText('Events since start').waitFor();
    await context.close();
  }, 60_000);

  it('creates an API key that reads one site only, and lists which', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/settings/keys');
    await page.getByLabel('Name of a new key').fill('Shop assistant');
    const chooser = page.getByRole('group', { name: 'Sites the new key reads' });
    await chooser.getByLabel('Only these:').check();
    await chooser.getByLabel('shown.localhost').check();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create the key' }).click();
    const key = (await page.locator('.notice-card code.code-box').textContent())?.trim() ?? '';
    expect(key).toMatch(/^ffk_/);
    const row = page.locator('tr', { hasText: 'Shop assistant' });
    await expect.poll(() => row.textContent()).toContain('shown.localhost');
    expect(await row.textContent()).not.toContain('hidden.localhost');
    await screenshot(page, 'api-keys-1280-light');
    const res = await fetch(`${d.footfall.url}/api/v1/sites`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await res.json()) as { sites: Site[] }).sites.map((x) => x.domain)).toEqual(['shown.localhost']);
    await context.close();
  }, 60_000);

  it("shows the API's own error text when an owner's action fails", async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);

    // a domain the API refuses: its message, under the field it names
    const refusal = (body: unknown, path: string) =>
      owner.call('POST', path, body).then(
        () => expect.unreachable('the API accepted it'),
        (e: ApiCallError) => asShown(e.apiMessage),
      );
    await page.goto('/sites/new');
    await page.getByLabel('Domain').fill('not a domain!');
    await page.getByRole('button', { name: 'Add the site' }).click();
    await expect
      .poll(() => page.locator('.field-error').textContent({ timeout: 1000 }))
      .toBe(await refusal({ domain: 'not a domain!' }, '/api/v1/sites'));

    // a person who exists already: the conflict, in the API's words
    await page.goto('/settings/people');
    await page.getByLabel('E-mail').fill('viewer@example.com');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.locator('.field-error').textContent({ timeout: 1000 }))
      .toBe(await refusal({ email: 'viewer@example.com', role: 'viewer' }, '/api/v1/people'));
    await context.close();
  }, 60_000);
});
