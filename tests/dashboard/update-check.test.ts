import type { BrowserContext, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, type Dashboard, PASSWORD, personContext, signIn, startDashboard } from './harness.ts';

/** the release list an operator names (FOOTFALL_UPDATE_CHECK): there is none by default */
const RELEASES = 'https://updates.example.org/footfall/releases.json';

/** The release list answering from this test (the machine is offline, as many are). */
async function releases(context: BrowserContext, answer: unknown | 'offline'): Promise<Request[]> {
  const asked: Request[] = [];
  await context.route(RELEASES, async (route) => {
    asked.push(route.request());
    if (answer === 'offline') return route.abort('internetdisconnected');
    await route.fulfill({
      status: 200,
      contentType: 'application/json',
      headers: { 'access-control-allow-origin': '*' },
      body: JSON.stringify(answer),
    });
  });
  return asked;
}

describe('the update check', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ FOOTFALL_UPDATE_CHECK: RELEASES });
    const owner = await createOwner(d);
    await owner.call('POST', '/api/v1/sites', { domain: 'a.localhost' });
    await owner.call('POST', '/api/v1/people', {
      email: 'viewer@example.com',
      role: 'viewer',
      password: PASSWORD,
    });
  }, 60_000);
  afterAll(() => d?.close());

  it('tells an owner about a newer release, asking at most once a day and sending nothing about the instance', async () => {
    const context = await personContext(d);
    const asked = await releases(context, {
      latest: { version: '99.0.0', url: 'https://updates.example.org/footfall/99.0.0' },
    });
    const page = await context.newPage();
    await signIn(page);
    await page.getByText('Footfall 99.0.0 is available').waitFor();
    expect(await page.getByRole('link', { name: 'What is new' }).getAttribute('href')).toBe(
      'https://updates.example.org/footfall/99.0.0',
    );
    expect(asked).toHaveLength(1);
    const request = asked[0]!;
    expect(request.url()).toBe(RELEASES);
    const headers = await request.allHeaders();
    expect(headers.cookie).toBeUndefined();
    expect(headers.referer).toBeUndefined();
    expect(request.method()).toBe('GET');

    // the answer is kept for a day: a reload and another screen ask nothing
    await page.reload();
    await page.goto('/health');
    await page.getByText('Footfall 99.0.0 is available').waitFor();
    expect(asked).toHaveLength(1);
    await context.close();
  }, 60_000);

  it('says nothing when the running version is the newest, or when the list cannot be reached', async () => {
    for (const answer of [
      { latest: { version: '0.0.1', url: 'https://updates.example.org/footfall/0.0.1' } },
      'offline',
    ]) {
      const context = await personContext(d);
      const asked = await releases(context, answer);
      const page = await context.newPage();
      await signIn(page);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expect.poll(() => asked.length).toBe(1);
      await page.waitForTimeout(300);
      expect(await page.getByText(/is available/).count()).toBe(0);
      expect(await page.getByRole('alert').count()).toBe(0);
      await context.close();
    }
  }, 60_000);

  it('never asks from a viewer’s browser', async () => {
    const context = await personContext(d);
    const asked = await releases(context, {
      latest: { version: '99.0.0', url: 'https://updates.example.org/footfall/99.0.0' },
    });
    const page = await context.newPage();
    await signIn(page, 'viewer@example.com');
    await page.getByLabel('The password you were given').fill(PASSWORD);
    await page.getByLabel('New password').fill(`${PASSWORD} too`);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    await page.waitForTimeout(500);
    expect(asked).toHaveLength(0);
    await context.close();
  }, 60_000);
});

describe('the update check turned off', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ FOOTFALL_UPDATE_CHECK: 'off' });
    const owner = await createOwner(d);
    await owner.call('POST', '/api/v1/sites', { domain: 'a.localhost' });
  }, 60_000);
  afterAll(() => d?.close());

  it('names no list to an owner, and their browser asks no other host', async () => {
    const context = await personContext(d);
    const hosts = new Set<string>();
    context.on('request', (r) => hosts.add(new URL(r.url()).origin));
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const session = await page.evaluate(async () => (await fetch('/api/v1/session')).json());
    expect(session.instance).toMatchObject({ update_check: false, releases_url: null });
    await page.goto('/health');
    await page.getByRole('heading', { name: 'Health', level: 1 }).waitFor();
    await page.waitForTimeout(500);
    expect([...hosts]).toEqual([new URL(d.footfall.url).origin]);
    expect(await page.getByText(/is available/).count()).toBe(0);
    await context.close();
  }, 60_000);
});
