import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { tempDir } from '../support/footfall.ts';
import { createOwner, type Dashboard, OWNER, PASSWORD, personContext, startDashboard } from './harness.ts';

/** What has the focus: its accessible text, as a person tabbing hears it. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return '';
    const label =
      el.getAttribute('aria-label') ??
      (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null);
    return `${el.tagName.toLowerCase()}:${(label ?? el.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
  });

/**
 * Presses Tab (Shift+Tab with `back`) until the focused element matches, at most 80 times: how a
 * keyboard user gets there.
 */
async function tabTo(page: Page, match: RegExp, back = false): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (match.test(await focused(page))) return;
  }
  throw new Error(`Tab never reached ${match}; last focus ${await focused(page)}`);
}

describe('the dashboard with the keyboard alone', () => {
  let d: Dashboard;
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-keys-'), 'data');
    await writeDemoData({ dataDir, events: 10_000, days: 60 });
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir });
    const owner = await createOwner(d);
    await owner.call('POST', '/api/v1/sites', { domain: 'second.localhost' });
    // the demo events reach reports through the tailer first (reports wait while it loads them):
    // the browser's steps below are timed from a loaded instance, not from a busy start
    await owner.call('GET', '/api/v1/site-trends');
  }, 120_000);
  afterAll(() => d?.close());

  it('signs in, reads and filters a report, uses the shortcuts and menus, and changes the colours', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await page.goto('/login');
    await tabTo(page, /^input:E-mail/);
    await page.keyboard.type(OWNER);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();

    // the skip link comes first and leads to the content
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('a:Skip to content');

    await tabTo(page, /^a:.*demo\.footfall\.dev/);
    await page.keyboard.press('Enter');
    await page.locator('.top-stats').waitFor();

    // single-key periods, comparison and live view
    await page.keyboard.press('w');
    await page.waitForURL(/period=7d/);
    await page.keyboard.press('x');
    await page.waitForURL(/compare=previous/);
    await page.keyboard.press('x');
    await page.waitForURL((u) => !u.search.includes('compare'));

    // the period menu
    await tabTo(page, /^summary:Period/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^a:Last 28 days/);
    await page.keyboard.press('Enter');
    await page.waitForURL(/period=28d/);

    // a row adds its filter; the chip's button removes it
    await tabTo(page, /^a:Direct$/);
    await page.keyboard.press('Enter');
    await page.waitForURL(/f=channel%3ADirect/);
    await page.locator('.top-stats').waitFor();
    // the focus stayed on the row; the chip is above it
    expect(await focused(page)).toBe('a:Direct');
    await tabTo(page, /^a:Remove the filter Channel is Direct/, true);
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => !u.search.includes('f='));

    // a panel's tab, then the panel in full: search, and Escape closes it
    await tabTo(page, /^button:Referrers$/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^a:All referrers/);
    await page.keyboard.press('Enter');
    await page.locator('dialog[open]').waitFor();
    await tabTo(page, /^input:Search referrers/);
    await page.keyboard.type('google');
    await page.waitForURL(/search=google/);
    await expect
      .poll(() => page.locator('dialog[open] tbody tr').allTextContents())
      .toSatisfy((rows: string[]) => rows.length > 0 && rows.every((r) => r.includes('google')));
    await page.keyboard.press('Escape');
    await page.waitForURL((u) => !u.search.includes('panel='));
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);

    // Escape outside a dialog removes the filters
    await page.goto(`${new URL(page.url()).pathname}?f=device:desktop`);
    await page.locator('.chip').waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL((u) => !u.search.includes('f='));

    // the shortcuts are listed under ?
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0);

    // the account menu: the dark colours
    await tabTo(page, /^summary:.*Your account/);
    await page.keyboard.press('Enter');
    await tabTo(page, /^button:.*Dark$/);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');

    // R: the live view
    await page.keyboard.press('Escape');
    await page.keyboard.press('r');
    await page.waitForURL(/\/live$/);
    await context.close();
  }, 120_000);
});
