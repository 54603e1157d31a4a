import { writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/footfall.ts';
import { type FakeGoogle, ga4Days, startFakeGoogle } from '../support/google.ts';
import { plausibleExportFiles, plausibleExportZip } from '../support/plausible-export.ts';
import {
  type ApiSession,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * Moving in from Plausible as an owner does it: Site settings → Imports, the zip Plausible made
 * chosen in the file picker; a site with no visit yet links to the report of those days from its
 * install screen; the report says they are imported and counts them; a broken zip is refused with
 * the file and line; Delete takes them out again. A large upload on a slow line says how far it
 * has come.
 */
describe('imports', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  const dir = tempDir('ff-import-ui-');
  const files = plausibleExportFiles([
    { date: '2025-06-02', visitors: 40, visits: 50 },
    { date: '2025-06-03', visitors: 60, visits: 70 },
  ]);
  const good = join(dir, 'plausible-export.zip');
  const broken = join(dir, 'broken.zip');
  let google: FakeGoogle;
  beforeAll(async () => {
    google = await startFakeGoogle('sc-domain:shop.localhost');
    google.ga4.property = '123456789';
    google.ga4.days = ga4Days('2025-05-01', 5, {
      users: 10,
      sessions: 12,
      views: 30,
      engaged: 8,
      seconds: 40,
    });
    d = await startDashboard({ FOOTFALL_UNSAFE_GOOGLE_API: google.url });
    owner = await createOwner(d);
    site = await addSite(owner, 'shop.localhost');
    writeFileSync(good, plausibleExportZip(files));
    const visitors = Object.keys(files).find((n) => n.startsWith('imported_visitors'))!;
    writeFileSync(broken, plausibleExportZip({ ...files, [visitors]: 'date,visitors\n2025-06-02,1\n' }));
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await google?.close();
  });

  it('imports a Plausible export from Site settings, shows it in the report, and deletes it', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const imports = page.locator('#imports');
    await imports.getByText('No imports yet.').waitFor();

    await imports.getByLabel("Plausible's export").setInputFiles(broken);
    await imports.getByRole('button', { name: 'Import' }).click();
    await imports
      .getByText(/line 1: the header has no pageviews, bounces, visits, visit_duration column/)
      .waitFor();

    await imports.getByLabel("Plausible's export").setInputFiles(good);
    await imports.getByRole('button', { name: 'Import' }).click();
    await imports.getByText('Imported 2 Jun 2025 to 3 Jun 2025.').waitFor();
    await imports.getByRole('list', { name: 'Imports' }).getByRole('listitem').first().waitFor();
    expect(await imports.getByRole('list', { name: 'Imports' }).getByRole('listitem').count()).toBe(1);
    await screenshot(page, 'site-settings-imports-1280-light');

    // no visit yet: the install screen links to the report of the imported days
    await page.goto(`/sites/${site}`);
    await page.getByRole('link', { name: 'Open the report of those days' }).click();
    await page.getByText(/^Includes days imported from Plausible: 2 Jun – 3 Jun 2025\./).waitFor();
    const visits = await owner.call<{ kpis: { visits: number } }>(
      'GET',
      `/api/v1/sites/${site}/report?from=2025-06-01&to=2025-06-30`,
    );
    expect(visits.kpis.visits).toBe(120);
    await screenshot(page, 'report-imported-1280-light');

    // the same screens on a phone, dark: nothing wider than the screen
    const phone = await personContext(d, { width: 360, dark: true });
    const small = await phone.newPage();
    await signIn(small);
    await small.goto(`/sites/${site}`);
    await small.getByRole('link', { name: 'Open the report of those days' }).waitFor();
    await screenshot(small, 'install-imported-360-dark');
    await small.getByRole('link', { name: 'Open the report of those days' }).click();
    await small.getByText(/^Includes days imported from Plausible/).waitFor();
    await screenshot(small, 'report-imported-360-dark');
    await small.goto(`/sites/${site}/settings`);
    await small.locator('#imports').getByRole('listitem').first().waitFor();
    await screenshot(small, 'site-settings-imports-360-dark');
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await phone.close();

    await page.goto(`/sites/${site}/settings`);
    const item = page.locator('#imports').getByRole('listitem');
    await item.getByRole('button', { name: /Delete/ }).click();
    await item.getByRole('button', { name: 'Delete its data' }).click();
    await page.locator('#imports').getByText('No imports yet.').waitFor();
    await context.close();
  }, 120_000);

  it('says how far a large upload has come on a slow line', async () => {
    // a line of about 4 MB/s between the browser and Footfall: a proxy that reads what the browser
    // sends at that pace, so the browser's own count of bytes sent moves as they go
    const target = new URL(d.footfall.url);
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      upstream.pipe(client);
      client.on('data', (chunk: Buffer) => {
        upstream.write(chunk);
        client.pause();
        setTimeout(() => client.resume(), Math.ceil(chunk.length / 4000));
      });
      client.on('end', () => upstream.end());
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const context = await d.browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`/sites/${site}/settings`);
      const imports = page.locator('#imports');
      // 24 MB that is not a zip: it goes up whole, then is refused
      const big = join(dir, 'big.zip');
      writeFileSync(big, Buffer.alloc(24_000_000, 7));
      await imports.getByLabel("Plausible's export").setInputFiles(big);
      await imports.getByRole('button', { name: 'Import' }).click();
      const progress = imports.locator('.upload-progress');
      await expect
        .poll(async () => Number((await progress.textContent())?.match(/(\d+)%$/)?.[1] ?? 0))
        .toBeGreaterThan(0);
      expect(await progress.textContent()).toMatch(/^Sending the file: \d+%$/);
      expect(Number(await progress.locator('progress').getAttribute('max'))).toBe(24_000_000);
      await screenshot(page, 'site-settings-import-sending-1280-light');
      // the API's sentence, its first letter made a capital
      await imports.getByText(/^Big\.zip: not a zip file/).waitFor({ timeout: 30_000 });
      expect(await progress.count()).toBe(0);
    } finally {
      await context.close();
      proxy.close();
    }
  }, 60_000);

  it('reads a Google Analytics 4 property with a service account key from Site settings', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const imports = page.locator('#imports');
    await imports.getByLabel('Import from').selectOption('ga4');
    await imports.getByLabel('GA4 property id').fill('123456789');
    await imports.getByLabel("Service account's key").fill(google.keyFile);
    await imports.getByLabel('From', { exact: true }).fill('2025-05-01');
    await imports.getByLabel('To', { exact: true }).fill('2025-05-05');
    await screenshot(page, 'site-settings-imports-ga4-1280-light');
    await imports.getByRole('button', { name: 'Import' }).click();
    await imports.getByText('Imported 1 May 2025 to 5 May 2025.').waitFor();
    await imports.getByText('Google Analytics 4').first().waitFor();
    const r = await owner.call<{ kpis: { visits: number }; imported: unknown }>(
      'GET',
      `/api/v1/sites/${site}/report?from=2025-05-01&to=2025-05-31`,
    );
    expect(r).toMatchObject({ kpis: { visits: 60 }, imported: { source: 'ga4' } });
    await context.close();
  }, 120_000);
});
