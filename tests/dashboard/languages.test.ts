import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import deAccount from '../../apps/dashboard/src/i18n/de/account.ts';
import deAuth from '../../apps/dashboard/src/i18n/de/auth.ts';
import deCommon from '../../apps/dashboard/src/i18n/de/common.ts';
import deReport from '../../apps/dashboard/src/i18n/de/report.ts';
import enAccount from '../../apps/dashboard/src/i18n/en/account.ts';
import frAccount from '../../apps/dashboard/src/i18n/fr/account.ts';
import frCommon from '../../apps/dashboard/src/i18n/fr/common.ts';
import frReport from '../../apps/dashboard/src/i18n/fr/report.ts';
import { writeDemoData } from '../../bench/demo-data.ts';
import { tempDir } from '../support/footfall.ts';
import {
  accessibilityProblems,
  createOwner,
  type Dashboard,
  OWNER,
  PASSWORD,
  personContext,
  screenshot,
  startDashboard,
} from './harness.ts';

const I18N = new URL('../../apps/dashboard/src/i18n/', import.meta.url).pathname;

/** Every English message of every area that reads as a sentence and that `lang` writes otherwise. */
async function englishOnly(lang: string): Promise<string[]> {
  const out: string[] = [];
  for (const file of readdirSync(join(I18N, 'en'))) {
    const en = ((await import(join(I18N, 'en', file))) as { default: Record<string, unknown> }).default;
    const other = ((await import(join(I18N, lang, file))) as { default: Record<string, unknown> }).default;
    for (const [key, message] of Object.entries(en)) {
      if (typeof message !== 'string' || message === other[key] || message.includes('{')) continue;
      if (message.trim().split(/\s+/).length >= 3) out.push(message.trim());
    }
  }
  return out;
}

/** The English sentences of the catalogues that a page in another language still shows. */
async function englishShown(page: Page, lang: string): Promise<string[]> {
  const text = await page.evaluate(() => document.body.innerText);
  return (await englishOnly(lang)).filter((m) => text.includes(m));
}

/**
 * The dashboard in the reader's language: a German browser sees German from the sign-in screen on,
 * numbers and dates written the German way; the choice in Account switches to French and stays.
 */
describe('the dashboard in other languages', () => {
  let d: Dashboard;
  beforeAll(async () => {
    const dataDir = join(tempDir('ff-lang-'), 'data');
    await writeDemoData({ dataDir, events: 20_000, days: 30 });
    d = await startDashboard({ FOOTFALL_DATA_DIR: dataDir });
    const owner = await createOwner(d);
    // the demo events reach reports through the tailer first
    await owner.call('GET', '/api/v1/site-trends');
  }, 120_000);
  afterAll(() => d?.close());

  it('follows a German browser: sign-in, the sites, a report with German numbers, axe-clean', async () => {
    const context = await personContext(d, { locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel(deAuth.email).fill(OWNER);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await page.getByLabel(deAuth.password).fill(PASSWORD);
    await page.getByRole('button', { name: deAuth.signIn }).click();
    await page.getByRole('heading', { name: deCommon.titleSites, level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: deCommon.navMain }).textContent()).toContain(
      deCommon.navHealth,
    );
    expect(await englishShown(page, 'de')).toEqual([]);

    await page.locator('a[href^="/sites/"]', { hasText: 'demo.footfall.dev' }).first().click();
    const stats = page.getByRole('list', { name: deReport.totals });
    await stats.waitFor();
    expect(await stats.textContent()).toContain(deReport.uniqueVisitors);
    // 20,000 demo events: the pageviews are in the thousands, grouped with a dot in German
    await expect.poll(() => stats.textContent()).toMatch(/\d\.\d{3}/);
    expect(await englishShown(page, 'de')).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'report-de-1280-light');
    await context.close();
  }, 90_000);

  it('switches to the language chosen in Account, keeps it, and goes back to the browser language', async () => {
    const context = await personContext(d, { locale: 'de-DE', width: 360, dark: true });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel(deAuth.email).fill(OWNER);
    await page.getByLabel(deAuth.password).fill(PASSWORD);
    await page.getByRole('button', { name: deAuth.signIn }).click();
    await page.getByRole('heading', { name: deCommon.titleSites, level: 1 }).waitFor();
    await page.goto('/account');
    const choice = page.getByLabel(deAccount.languageLabel);
    await choice.selectOption('fr');
    await page.waitForLoadState('load');
    await page.getByRole('heading', { name: frCommon.titleAccount, level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await englishShown(page, 'fr')).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'account-fr-360-dark');

    // kept in this browser: another screen, after a reload, is French too
    await page.goto('/sites');
    await page.getByRole('heading', { name: frCommon.titleSites, level: 1 }).waitFor();
    await page.locator('a[href^="/sites/"]', { hasText: 'demo.footfall.dev' }).first().click();
    await page.getByRole('list', { name: frReport.totals }).waitFor();
    expect(await englishShown(page, 'fr')).toEqual([]);

    await page.goto('/account');
    await page.getByLabel(frAccount.languageLabel).selectOption('browser');
    await page.getByRole('heading', { name: deCommon.titleAccount, level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    await context.close();
  }, 90_000);

  it('stays English for an English browser, and for a language it does not speak', async () => {
    for (const locale of ['en-US', 'nl-NL']) {
      const context = await personContext(d, { locale });
      const page = await context.newPage();
      await page.goto('/login');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await context.close();
    }
    expect(enAccount.languageLabel).toBe('Language of the dashboard');
  }, 60_000);
});
