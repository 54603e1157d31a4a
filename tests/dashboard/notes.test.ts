import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  apiSession,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
  waitForVisitors,
} from './harness.ts';

/** Notes on the report: an owner writes, edits and deletes them; a viewer reads them; the chart flags them. */
const VIEWER_PASSWORD = 'a viewer chose this one';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('notes on the chart', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    site = await addSite(owner, 'notes.localhost');
    const res = await fetch(`${d.footfall.url}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify({ s: site, k: 'pv', u: 'http://notes.localhost/', v: 'reader-00001' }),
    });
    expect(res.status).toBe(202);
    // robots that read the site, as its server reports them
    const { site: withKey } = await owner.call<{ site: { proxy_key: string } }>(
      'GET',
      `/api/v1/sites/${site}`,
    );
    for (const [ua, path] of [
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
        '/docs',
      ],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
        '/',
      ],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
        '/docs',
      ],
    ] as const) {
      const hit = await fetch(`${d.footfall.url}/api/crawl`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': withKey.proxy_key },
        body: JSON.stringify({ s: site, u: `http://notes.localhost${path}`, ua, st: 200 }),
      });
      expect(hit.status, await hit.text()).toBe(202);
    }
    // a visitor ChatGPT sent to the pricing page, and a guide its crawler read ten times
    const sent = await fetch(`${d.footfall.url}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify({
        s: site,
        k: 'pv',
        u: 'http://notes.localhost/pricing',
        r: 'https://chatgpt.com/',
        v: 'asker-000001',
      }),
    });
    expect(sent.status).toBe(202);
    for (let i = 0; i < 10; i++) {
      const hit = await fetch(`${d.footfall.url}/api/crawl`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': withKey.proxy_key },
        body: JSON.stringify({
          s: site,
          u: 'http://notes.localhost/guide',
          ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
          st: 200,
        }),
      });
      expect(hit.status).toBe(202);
    }
    // Web Vitals of that page view, as the tracker's vitals variant sends them
    for (const m of [
      { lcp: 1800, inp: 120, cls: 0.02, fcp: 900, ttfb: 300 },
      { lcp: 2600, inp: 260, cls: 0.05 },
      { lcp: 4200, inp: 80, cls: 0.3 },
    ]) {
      const vt = await fetch(`${d.footfall.url}/api/e`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
        body: JSON.stringify({ s: site, k: 'vt', u: 'http://notes.localhost/', v: 'reader-00001', m }),
      });
      expect(vt.status, await vt.text()).toBe(202);
    }
    const created = await owner.call<{ password: string }>('POST', '/api/v1/people', {
      email: 'viewer@example.com',
      role: 'viewer',
    });
    // a person an owner adds replaces the generated password first
    const viewer = await apiSession(d.footfall.url, 'viewer@example.com', created.password);
    await viewer.call('PUT', '/api/v1/account/password', {
      current_password: created.password,
      new_password: VIEWER_PASSWORD,
    });
    await waitForVisitors(owner, site, 1);
  }, 60_000);
  afterAll(() => d?.close());

  it('lets an owner add, edit and delete a note, flagged on the chart, and a viewer read it', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    const notes = page.getByRole('region', { name: /^Notes/ });
    await notes.getByRole('button', { name: 'Add a note' }).click();
    await notes.getByLabel('Note').fill('Launched on Hacker News');
    await notes.getByRole('button', { name: 'Add the note' }).click();
    const item = notes.getByRole('listitem').filter({ hasText: 'Launched on Hacker News' });
    await item.waitFor();
    expect(await item.textContent()).toContain('owner@example.com');
    // the chart says it for screen readers, and draws its flag
    await expect.poll(() => page.locator('.main-chart figcaption').textContent()).toContain('Notes: ');
    expect(await page.locator('.main-chart figcaption').textContent()).toContain('Launched on Hacker News');
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'notes-1280-light');

    await item.getByRole('button', { name: /^Edit/ }).click();
    await notes.getByLabel('Note').fill('Launched on HN (front page)');
    await notes.getByRole('button', { name: 'Save the note' }).click();
    await notes.getByText('Launched on HN (front page)').waitFor();

    // a viewer reads it, and cannot write
    const viewerContext = await personContext(d);
    const viewerPage = await viewerContext.newPage();
    await signIn(viewerPage, 'viewer@example.com', VIEWER_PASSWORD);
    await viewerPage.goto(`/sites/${site}`);
    const seen = viewerPage.getByRole('region', { name: /^Notes/ });
    await seen.getByText('Launched on HN (front page)').waitFor();
    expect(await seen.getByRole('button').count()).toBe(0);
    await viewerContext.close();

    const edited = notes.getByRole('listitem').filter({ hasText: 'Launched on HN' });
    await edited.getByRole('button', { name: /^Delete/ }).click();
    await edited.getByRole('button', { name: 'Delete the note' }).click();
    await expect.poll(() => notes.getByRole('listitem').count()).toBe(0);
    const left = await owner.call<{ annotations: unknown[] }>('GET', `/api/v1/sites/${site}/annotations`);
    expect(left.annotations).toEqual([]);
    await context.close();
  }, 60_000);

  it('takes a module switched off out of the dashboard, and back when switched on', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const modules = page.getByRole('group', { name: /^Modules of/ });
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    for (const name of ['Notes', 'Revenue', 'Returning visitors']) {
      const box = modules.getByRole('checkbox', { name: new RegExp(`^${name}`) });
      await box.uncheck();
      await expect.poll(() => box.isEnabled()).toBe(true);
    }
    // the payment connections leave the settings
    await expect.poll(() => page.getByRole('heading', { name: 'Payments' }).count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'modules-1280-light');
    await page.goto(`/sites/${site}`);
    await page.getByRole('heading', { name: 'Sources' }).waitFor();
    expect(await page.getByRole('region', { name: /^Notes/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Returning visitors' }).count()).toBe(0);
    // and everything is back when switched on
    await page.goto(`/sites/${site}/settings`);
    for (const name of ['Notes', 'Revenue', 'Returning visitors']) {
      const box = page
        .getByRole('group', { name: /^Modules of/ })
        .getByRole('checkbox', { name: new RegExp(`^${name}`) });
      await box.check();
      await expect.poll(() => box.isEnabled()).toBe(true);
    }
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await page.goto(`/sites/${site}`);
    await page.getByRole('region', { name: /^Notes/ }).waitFor();
    await page.getByRole('heading', { name: 'Returning visitors' }).waitFor();
    await context.close();
  }, 60_000);

  it('shows the Web Vitals of the period: p75 per metric, rated, and by page and device', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    const vitals = page.getByRole('region', { name: 'Web Vitals', exact: true });
    await vitals.scrollIntoViewIfNeeded();
    // LCP samples 1.8 s, 2.6 s, 4.2 s: the nearest-rank p75 is 4.2 s, poor
    await expect
      .poll(() => vitals.locator('.vital-value').first().textContent(), { timeout: 15_000 })
      .toBe('4.2 s');
    expect(await vitals.locator('.vital-value.poor').first().textContent()).toBe('4.2 s');
    expect(await vitals.getByRole('rowheader', { name: '/' }).count()).toBe(1);
    expect(await vitals.getByRole('rowheader', { name: 'desktop' }).count()).toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);
    await vitals.screenshot({ path: '.test-results/screens/vitals-panel-1280-light.png' });
    await context.close();
  }, 60_000);

  it('shows the AI and search robots that read the site', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}`);
    const robots = page.getByRole('region', { name: 'AI & search robots' });
    await robots.scrollIntoViewIfNeeded();
    await expect
      .poll(() => robots.locator('.robot-kinds').textContent(), { timeout: 15_000 })
      .toContain('AI crawlers12');
    expect(await robots.locator('.robot-kinds').textContent()).toContain('AI assistants1');
    expect(await robots.getByRole('rowheader', { name: /GPTBot/ }).count()).toBe(1);
    expect(await robots.getByRole('row', { name: '/docs 2' }).count()).toBe(1);
    expect(await accessibilityProblems(page)).toEqual([]);
    await robots.screenshot({ path: '.test-results/screens/robots-panel-1280-light.png' });
    await context.close();
  }, 60_000);

  it('shows the visitors AI assistants sent, and the page they read without credit', async () => {
    for (const o of [{}, { width: 360, dark: true }]) {
      const context = await personContext(d, o);
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`/sites/${site}`);
      const panel = page.getByRole('region', { name: 'AI & search', exact: true });
      await panel.scrollIntoViewIfNeeded();
      await expect
        .poll(() => panel.locator('.robot-kinds').textContent(), { timeout: 15_000 })
        .toContain('Visitors sent by AI1');
      expect(await panel.getByRole('row', { name: 'ChatGPT 1' }).count()).toBe(1);
      // read ten times by GPTBot and never a first page: no credit; the pricing page got its visitor
      expect(await panel.getByRole('row', { name: '/guide No credit 10 0' }).count()).toBe(1);
      expect(await panel.getByRole('row', { name: '/pricing 0 1' }).count()).toBe(1);
      expect(await accessibilityProblems(page)).toEqual([]);
      await panel.screenshot({
        path: `.test-results/screens/ai-search-panel-${o.width ?? 1280}-${o.dark ? 'dark' : 'light'}.png`,
      });
      await context.close();
    }
  }, 60_000);
});
