import { type FakeApi, fakeKits } from '@footfall/payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCustomEvent } from '../support/payments.ts';
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

/**
 * A site with a payment connection: the report shows revenue as a top stat, draws it in the chart
 * and adds it as a column of the panels, with the amounts the API answers.
 */
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let d: Dashboard;
let owner: ApiSession;
let stripe: FakeApi;
let polar: FakeApi;
let site: string;
beforeAll(async () => {
  const kits = await fakeKits();
  stripe = await kits.stripe.start();
  polar = await kits.polar.start();
  d = await startDashboard({ FOOTFALL_UNSAFE_PAYMENT_APIS: `stripe=${stripe.url},polar=${polar.url}` });
  owner = await createOwner(d);
  site = (
    await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', {
      domain: 'shop.localhost',
      currency: 'EUR',
    })
  ).site.id;
  const connection = await owner.call<{ id: string; signing_secret: string }>(
    'POST',
    `/api/v1/sites/${site}/payments/connections`,
    { provider: 'custom' },
  );
  // both buyers read the pricing before paying: the goal earns all of it
  await owner.call('POST', `/api/v1/sites/${site}/goals`, {
    name: 'Saw pricing',
    kind: 'page',
    match: '/pricing',
  });
  const base = d.footfall.url;
  const visit = (visitor: string, referrer: string) =>
    fetch(`${base}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify({ s: site, k: 'pv', u: 'http://shop.localhost/pricing', r: referrer, v: visitor }),
    });
  for (const [visitor, referrer] of [
    ['buyer-0001', 'https://www.google.com/'],
    ['buyer-0002', 'https://news.ycombinator.com/'],
  ]) {
    const res = await visit(visitor!, referrer!);
    expect(res.status, await res.text()).toBe(202);
  }
  const pay = async (id: string, visitor: string, amount: number) => {
    const res = await postCustomEvent(`${base}/webhooks/custom/${connection.id}`, connection.signing_secret, {
      id: `evt-${id}`,
      type: 'payment',
      at: Date.now(),
      payment: { id, amount, tax: 0, currency: 'EUR', visitor },
    });
    expect(res.status).toBe(200);
  };
  await pay('order-1', 'buyer-0001', 4900);
  await pay('order-2', 'buyer-0002', 12000);
  // the visits reach reports through the tailer
  for (let i = 0; i < 100; i++) {
    const r = await owner.call<{ kpis: { visitors: number } }>('GET', `/api/v1/sites/${site}/report`);
    if (r.kpis.visitors === 2) break;
    await new Promise((res) => setTimeout(res, 100));
  }
}, 90_000);
afterAll(async () => {
  await d?.close();
  await stripe?.close();
  await polar?.close();
});

describe('revenue on the dashboard', () => {
  it('shows revenue in the top stats, the chart and the panels, as the API answers it', async () => {
    const api = await owner.call<{
      kpis: { revenue: number; customers: number };
      breakdowns: { referrer: { value: string; revenue: number }[] };
    }>('GET', `/api/v1/sites/${site}/report`);
    expect(api.kpis).toMatchObject({ revenue: 16900, customers: 2 });
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    for (const [width, dark] of [
      [1280, false],
      [360, true],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
      await page.goto(`${d.footfall.url}/sites/${site}?metric=revenue`);
      const stat = page.locator('.top-stat[data-metric="revenue"]');
      await expect.poll(() => stat.textContent()).toContain('€169');
      expect(await stat.getAttribute('aria-current')).toBe('true');
      await page.getByRole('button', { name: 'Referrers', exact: true }).first().click();
      const row = page.locator('.panel .breakdown tr', { hasText: 'news.ycombinator.com' });
      await expect.poll(() => row.textContent()).toContain('€120');
      const goal = page.locator('.goals tr', { hasText: 'Saw pricing' });
      await pollScrolledDown(page, async () =>
        (await goal.count()) > 0 ? goal.textContent() : '',
      ).toContain('€169');
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await accessibilityProblems(page)).toEqual([]);
      await screenshot(page, `revenue-${width}-${dark ? 'dark' : 'light'}`);
      await page.getByRole('link', { name: 'All referrers' }).click();
      const full = page.locator('dialog .breakdown tr', { hasText: 'google.com' });
      await expect.poll(() => full.textContent()).toContain('€49');
      await page.keyboard.press('Escape');
    }
    await context.close();
  });

  it('connects a custom webhook from the site settings: the secret shown once, the URL to copy', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    const other = (
      await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'other.localhost' })
    ).site.id;
    await page.goto(`${d.footfall.url}/sites/${other}/settings`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Payments' }) });
    await expect.poll(() => section.textContent()).toContain('No payment connection yet');
    await section.getByLabel('Provider').selectOption('custom');
    await section.getByLabel('Name (optional)').fill('Checkout server');
    await section.getByRole('button', { name: 'Connect', exact: true }).click();
    const secret = section.locator('.notice-card code.code-box');
    await expect.poll(() => secret.textContent()).toMatch(/^ffwh_/);
    const listed = await owner.call<{ connections: { name: string; webhook_url: string }[] }>(
      'GET',
      `/api/v1/sites/${other}/payments/connections`,
    );
    expect(listed.connections).toMatchObject([{ name: 'Checkout server' }]);
    expect(await section.textContent()).toContain(listed.connections[0]!.webhook_url);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'payments-settings-1280-light');
    await section.getByRole('button', { name: 'Done' }).click();
    await section.getByRole('button', { name: 'Disconnect…' }).click();
    await section.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await expect.poll(() => section.textContent()).toContain('No payment connection yet');
    await context.close();
  });

  it('connects Stripe with a pasted key, says why a key is refused, and sets Stripe up by hand too', async () => {
    const context = await personContext(d);
    const page = await context.newPage();
    await signIn(page);
    const shop = (
      await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'keys.localhost' })
    ).site.id;
    await page.goto(`${d.footfall.url}/sites/${shop}/settings`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Payments' }) });
    await expect.poll(() => section.textContent()).toContain('No payment connection yet');
    await section.getByLabel('Provider').selectOption('stripe');
    const key = section.getByLabel('Stripe API key');
    const connect = section.getByRole('button', { name: 'Connect', exact: true });
    await key.fill(stripe.keys.rejected);
    await connect.click();
    await expect.poll(() => section.textContent()).toContain('did not accept this API key');
    await key.fill(stripe.keys.noWebhookPermission!);
    await connect.click();
    await expect.poll(() => section.textContent()).toContain(stripe.missingPermission);
    expect(await accessibilityProblems(page)).toEqual([]);
    await key.fill(`  "${stripe.keys.live}" `);
    await connect.click();
    const item = section.locator('li.connection', { hasText: 'connected with an API key' });
    await expect.poll(() => item.textContent()).toContain('live');
    await item.getByRole('button', { name: 'Reconcile now' }).click();
    await expect.poll(() => item.textContent()).toContain('Reconciled:');
    expect(stripe.endpoints()).toHaveLength(1);
    // Stripe by hand too (a second account): the URL to paste there, then the secret Stripe shows
    await section.getByLabel('Provider').selectOption('stripe');
    await section.getByLabel('By hand').check();
    await connect.click();
    const hand = section.locator('li.connection', { hasText: 'set up by hand' });
    await expect.poll(() => hand.textContent()).toContain('Waiting for the signing secret');
    expect(await hand.locator('code.code-box').textContent()).toMatch(/\/webhooks\/stripe\/\w+$/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'payments-providers-1280-light');
    await hand.getByLabel('Signing secret from Stripe').fill('whsec_hand_made_endpoint_secret');
    await hand.getByRole('button', { name: 'Save the secret' }).click();
    await expect.poll(() => hand.textContent()).not.toContain('Waiting for the signing secret');
    // Polar: its token's scopes are named as Polar names them, and the sandbox is found by asking
    await section.getByLabel('Provider').selectOption('polar');
    await section.getByLabel('With an API key').check();
    const token = section.getByLabel('Polar API key');
    await token.fill(polar.keys.noWebhookPermission!);
    await connect.click();
    await expect.poll(() => section.textContent()).toContain('"webhooks:write"');
    await token.fill(polar.keys.sandbox);
    await connect.click();
    const polarItem = section.locator('li.connection', { hasText: 'sandbox (test payments)' });
    await expect.poll(() => polarItem.textContent()).toContain('connected with an API key');
    expect(await polarItem.textContent()).toMatch(/^Polar · sandbox/);
    expect(polar.endpoints()).toHaveLength(1);
    await screenshot(page, 'payments-polar-1280-light');
    await context.close();
  });
});
