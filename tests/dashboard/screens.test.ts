import { join } from 'node:path';
import type { Page } from 'playwright-core';
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
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

interface Screen {
  name: string;
  /** opens the screen and waits until it shows what it is for */
  open: (page: Page) => Promise<void>;
}

/**
 * Every screen of the dashboard, in light and dark, at 1280 and 360 px: axe-core finds no serious
 * or critical problem, and a screenshot of each is written to .test-results/screens.
 */
describe('every screen', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let demo: string;
  let domain: string;
  let waiting: string;
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-screens-'), 'data');
    const written = await writeDemoData({ dataDir, events: 30_000, days: 120 });
    demo = written.siteId;
    domain = written.domain;
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir });
  }, 120_000);
  afterAll(() => d?.close());

  const combos = [
    { width: 1280, dark: false },
    { width: 1280, dark: true },
    { width: 360, dark: false },
    { width: 360, dark: true },
  ];
  const tag = (c: { width: number; dark: boolean }) => `${c.width}-${c.dark ? 'dark' : 'light'}`;

  async function check(page: Page, name: string, combo: { width: number; dark: boolean }, found: string[]) {
    await page.waitForTimeout(150); // let transitions and the chart settle
    for (const problem of await accessibilityProblems(page))
      found.push(`${name} (${tag(combo)}): ${problem}`);
    await screenshot(page, `${name}-${tag(combo)}`);
  }

  it('setup and sign-in screens', async () => {
    const found: string[] = [];
    for (const combo of combos) {
      const context = await personContext(d, combo);
      const page = await context.newPage();
      await page.goto(d.setupLink);
      await page.getByRole('button', { name: 'Create the owner' }).waitFor();
      await check(page, 'setup', combo, found);
      await page.goto('/login');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await check(page, 'sign-in', combo, found);
      await context.close();
    }
    owner = await createOwner(d);
    expect(found).toEqual([]);
  }, 120_000);

  it('the signed-in screens', async () => {
    owner ??= await createOwner(d);
    waiting = (
      await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'new.localhost' })
    ).site.id;
    await owner.call('POST', '/api/v1/api-keys', { name: 'Reporting script' });
    await expect
      .poll(async () => (await owner.call<{ state: string }>('GET', `/api/v1/sites/${demo}/status`)).state, {
        timeout: 30_000,
      })
      .toBe('active');
    const screens: Screen[] = [
      { name: 'sites', open: (p) => go(p, '/sites', '.site-card') },
      {
        name: 'arrange-sites',
        open: async (p) => {
          await go(p, '/sites', '.site-card');
          await p.getByRole('button', { name: 'Arrange' }).click();
          await p.locator('dialog[open] table').waitFor();
        },
      },
      { name: 'add-site', open: (p) => go(p, '/sites/new', 'form') },
      { name: 'install', open: (p) => go(p, `/sites/${waiting}`, '#script-tag') },
      { name: 'report', open: (p) => go(p, `/sites/${demo}?compare=previous`, '.top-stats', true) },
      {
        name: 'period-menu',
        open: async (p) => {
          await go(p, `/sites/${demo}`, '.top-stats');
          await p.getByLabel(/^Period:/).click();
          await p.locator('details.picker[open] .menu-list').waitFor();
        },
      },
      {
        name: 'panel-details',
        open: (p) => go(p, `/sites/${demo}?panel=referrer&search=o`, 'dialog[open] table'),
      },
      {
        // every page with its scroll depth and time on page (the demo's tracker reports engagement)
        name: 'pages-details',
        open: async (p) => {
          await go(p, `/sites/${demo}?panel=pages`, 'dialog[open] table');
          const head = await p.locator('dialog[open] thead th').allTextContents();
          expect(head.slice(-2)).toEqual(['Scroll depth', 'Time on page']);
          const first = await p.locator('dialog[open] tbody tr').first().locator('td').allTextContents();
          expect(first.at(-2)).toMatch(/^\d+\s?%$/);
        },
      },
      {
        // the hosts the pages were on: the demo's documentation has a subdomain of its own
        name: 'hostnames',
        open: async (p) => {
          await go(p, `/sites/${demo}?panel=hostname`, 'dialog[open] table');
          const hosts = await p.locator('dialog[open] tbody td.breakdown-value').allTextContents();
          expect(hosts.map((h) => h.trim()).sort()).toEqual([`docs.${domain}`, domain].sort());
        },
      },
      {
        // each country's flag, an image drawn the same everywhere (flag emoji are not, on Windows)
        name: 'countries',
        open: async (p) => {
          await go(p, `/sites/${demo}?panel=country`, 'dialog[open] table img.flag');
          const flags = p.locator('dialog[open] img.flag');
          await expect
            .poll(() =>
              flags.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0)),
            )
            .toBe(true);
          expect(await flags.count()).toBeGreaterThan(3);
        },
      },
      { name: 'live', open: (p) => go(p, `/sites/${demo}/live`, '.feed') },
      {
        name: 'journey',
        open: async (p) => {
          await go(p, `/sites/${demo}/live`, '.feed');
          const visitor = await owner.call<{ recent: { visitor: string }[] }>(
            'GET',
            `/api/v1/sites/${demo}/now`,
          );
          await go(
            p,
            `/sites/${demo}/live?journey=${visitor.recent[0]?.visitor ?? 'nobody'}`,
            'dialog[open] .modal-body > *',
          );
        },
      },
      { name: 'site-settings', open: (p) => go(p, `/sites/${demo}/settings`, '.consent-preview') },
      { name: 'people', open: (p) => go(p, '/settings/people', 'table') },
      { name: 'api-keys', open: (p) => go(p, '/settings/keys', 'table') },
      { name: 'account', open: (p) => go(p, '/account', '.section') },
      { name: 'health', open: (p) => go(p, '/health', '.health-grid') },
      {
        name: 'shortcuts',
        open: async (p) => {
          await go(p, `/sites/${demo}`, '.top-stats');
          await p.keyboard.press('?');
          await p.locator('dialog[open] kbd').first().waitFor();
        },
      },
    ];
    const found: string[] = [];
    for (const combo of combos) {
      const context = await personContext(d, combo);
      const page = await context.newPage();
      await signIn(page);
      for (const screen of screens) {
        await screen.open(page);
        await check(page, screen.name, combo, found);
      }
      await context.close();
    }
    expect(found).toEqual([]);
  }, 300_000);
});

/** Opens `path` and waits for `ready`; `scroll` brings the lazy panels below the fold in. */
async function go(page: Page, path: string, ready: string, scroll = false): Promise<void> {
  await page.goto(path);
  await page.locator(ready).first().waitFor();
  if (scroll) {
    // the panels come as a chunk of their own and make the page longer when they do: scroll to
    // the end again until the last of them has loaded
    await pollScrolledDown(page, () =>
      page.locator('.retention-grid, .retention .empty').count(),
    ).toBeGreaterThan(0);
    await page.locator('.heatmap-grid').waitFor();
    await page.locator('.charts .charts-legend').waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
  }
}
