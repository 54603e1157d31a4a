import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiSession,
  accessibilityProblems,
  createOwner,
  type Dashboard,
  personContext,
  postEvents,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * Alert settings as an owner uses them: a private address refused with the reason, a webhook
 * added (its signing secret shown once), a test alert sent to a local receiver and said to be
 * delivered, a kind unticked and kept, and the destination removed; at 1280 light and 360 dark.
 */
/** A 2×2 red GIF. */
const GIF = Buffer.from('R0lGODlhAgACAPAAAP8AAAAAACH5BAAAAAAALAAAAAACAAIAAAIChFEAOw==', 'base64');

describe('alerts in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  let site: string;
  let receiver: Server;
  let port: number;
  const received: { kind: string }[] = [];
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      // the site's homepage and favicon, as the weekly favicon fetch reads them
      if (req.method === 'GET' && req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<link rel="icon" href="/icon.gif">');
        return;
      }
      if (req.method === 'GET' && req.url === '/icon.gif') {
        res.writeHead(200, { 'content-type': 'image/gif' }).end(GIF);
        return;
      }
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(JSON.parse(body) as { kind: string });
        res.writeHead(204).end();
      });
    });
    port = await new Promise<number>((resolve) =>
      receiver.listen(0, '127.0.0.1', () => resolve((receiver.address() as AddressInfo).port)),
    );
    d = await startDashboard({
      FOOTFALL_UNSAFE_OUTBOUND_ALLOW: `127.0.0.1:${port}`,
      FOOTFALL_UNSAFE_SITE_ORIGIN: `http://127.0.0.1:${port}`,
      FOOTFALL_UNSAFE_ALERT_SECONDS: '1',
    });
    owner = await createOwner(d);
    site = (
      await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'alerts.localhost' })
    ).site.id;
    // a visit, so the site list is shown (an account whose sites all wait is taken to the install screen)
    await postEvents(d, site, 'alerts.localhost', [['visitor-0001', '/', null]]);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await new Promise((r) => receiver?.close(r));
  });

  it('lets an owner add a webhook, send a test alert, choose kinds and remove it', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const section = page.locator('#alerts');
    await section.getByText('No alert destination yet.').waitFor();
    const form = page.getByRole('form', { name: 'New alert destination' });
    // e-mail cannot be chosen on a server without SMTP, and says why
    expect(await form.getByLabel('an e-mail address').isDisabled()).toBe(true);
    await form.getByText('E-mail needs FOOTFALL_SMTP_URL').waitFor();

    await form.getByLabel('Webhook URL').fill('http://192.168.1.20/hook');
    await form.getByRole('button', { name: 'Add the destination' }).click();
    await form.getByText('url: a private (RFC 1918) address').waitFor();

    const url = `http://127.0.0.1:${port}/hook`;
    await form.getByLabel('Webhook URL').fill(url);
    await form.getByRole('button', { name: 'Add the destination' }).click();
    const secret = section.locator('code.code-box');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^ffal_/);
    await section.getByText('Nothing sent yet.').waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await section.screenshot({ path: '.test-results/screens/alert-settings-1280-light.png' });
    await section.getByRole('button', { name: 'Done' }).click();
    expect(await section.locator('code.code-box').count()).toBe(0);

    await section.getByRole('button', { name: `Send a test alert to ${url}` }).click();
    await section.getByText('The test alert was delivered.').waitFor();
    expect(received.map((r) => r.kind)).toEqual(['test']);

    await section.getByLabel('A busy day').uncheck();
    await expect
      .poll(async () => {
        const list = await owner.call<{ destinations: { kinds: string[] }[] }>(
          'GET',
          `/api/v1/sites/${site}/alerts`,
        );
        return list.destinations[0]?.kinds;
      })
      .toEqual(['tracking_stopped', 'payment', 'disk_filling', 'health']);
    await page.reload();
    expect(await page.locator('#alerts').getByLabel('A busy day').isChecked()).toBe(false);
    expect(await page.locator('#alerts').getByLabel('Someone paid').isChecked()).toBe(true);
    await context.close();
  }, 90_000);

  it("shows the site's favicon in the site list, as the server fetched it", async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    await page.goto('/sites');
    const icon = page.locator(`img.site-icon[src="/api/v1/sites/${site}/favicon"]`);
    await expect
      .poll(
        async () => {
          await page.reload();
          return icon.count();
        },
        // the fetch runs last in the server's minute pass; under the whole suite's load it took
        // over 15 s once
        { timeout: 40_000 },
      )
      .toBe(1);
    expect(await icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(2);
    await page
      .locator('.site-card')
      .first()
      .screenshot({ path: '.test-results/screens/site-card-favicon-1280-light.png' });
    await context.close();
  }, 60_000);

  it('fits a phone in dark mode, and removes a destination', async () => {
    const context = await personContext(d, { width: 360, dark: true });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`/sites/${site}/settings`);
    const section = page.locator('#alerts');
    await section.getByText(/Last sent/).waitFor();
    await section.scrollIntoViewIfNeeded();
    expect(await accessibilityProblems(page)).toEqual([]);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await section.screenshot({ path: '.test-results/screens/alert-settings-360-dark.png' });
    await section.getByRole('button', { name: /^Remove/ }).click();
    await section.getByText('No alert destination yet.').waitFor();
    await context.close();
  }, 60_000);
});
