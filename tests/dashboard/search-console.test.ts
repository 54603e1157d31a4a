import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogle, SERVICE_ACCOUNT, startFakeGoogle } from '../support/google.ts';
import {
  type ApiSession,
  accessibilityProblems,
  createOwner,
  type Dashboard,
  personContext,
  pollScrolledDown,
  postEvents,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

/** A day `offset` days from today, UTC (the site's zone), `YYYY-MM-DD`. */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Search Console as an owner sets it up: the real processes, Google answered by a local server
 * speaking its documented shapes; the owner pastes the property and the service account's key in
 * the site's settings, and the AI & search panel marks the page search engines send people to
 * that no AI robot read.
 */
describe('Search Console in the dashboard', () => {
  let d: Dashboard;
  let google: FakeGoogle;
  let owner: ApiSession;
  let site: string;
  beforeAll(async () => {
    google = await startFakeGoogle('sc-domain:searched.localhost');
    google.rows.push(
      { date: day(-3), page: 'https://searched.localhost/pricing', clicks: 8 },
      { date: day(-2), page: 'https://searched.localhost/docs', clicks: 6 },
    );
    d = await startDashboard({ FOOTFALL_UNSAFE_GOOGLE_API: google.url });
    owner = await createOwner(d);
    const made = await owner.call<{ site: { id: string; proxy_key: string } }>('POST', '/api/v1/sites', {
      domain: 'searched.localhost',
    });
    site = made.site.id;
    // GPTBot read /docs, as the site's server reports it
    const hit = await fetch(`${d.footfall.url}/api/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-footfall-proxy-key': made.site.proxy_key },
      body: JSON.stringify({ s: site, u: 'http://searched.localhost/docs', ua: GPTBOT, st: 200 }),
    });
    expect(hit.status, await hit.text()).toBe(202);
    // one visit, so the site shows its report rather than its install screen
    await postEvents(d, site, 'searched.localhost', [['visitor-0001', '/', null]]);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await google?.close();
  });

  it('connects a site in its settings, then marks pages search sends people to that no AI robot read', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const section = page.locator('#search-console');
    const form = section.getByRole('form', { name: 'Connect Search Console' });
    await form.getByLabel('Property').fill('sc-domain:other.localhost');
    await form.getByLabel('Service account key (JSON)').fill(google.keyFile);
    await form.getByRole('button', { name: 'Connect' }).click();
    await form.getByText(`add ${SERVICE_ACCOUNT} as a user of the property`).waitFor();
    await form.getByLabel('Property').fill('sc-domain:searched.localhost');
    await form.getByRole('button', { name: 'Connect' }).click();
    await section.getByText('Connected to').waitFor();
    expect(await section.textContent()).toContain(SERVICE_ACCOUNT);
    expect(await accessibilityProblems(page)).toEqual([]);
    await section.screenshot({ path: '.test-results/screens/search-console-settings-1280-light.png' });
    await context.close();

    const dark = await personContext(d, { width: 360, dark: true });
    const report = await dark.newPage();
    await signIn(report);
    await report.goto(`/sites/${site}`);
    const panel = report.locator('section.ai-search');
    await pollScrolledDown(report, () => panel.locator('.flag-badge').count()).toBe(1);
    const flagged = panel.locator('tr', { has: report.locator('.flag-badge') });
    expect(await flagged.textContent()).toContain('/pricing');
    expect(await flagged.textContent()).toContain('Not read');
    await panel.scrollIntoViewIfNeeded();
    expect(await accessibilityProblems(report)).toEqual([]);
    await screenshot(report, 'search-console-ai-search-360-dark');
    await panel.screenshot({ path: '.test-results/screens/search-console-panel-360-dark.png' });
    await dark.close();
  }, 90_000);
});
