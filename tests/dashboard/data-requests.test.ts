import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCustomEvent } from '../support/payments.ts';
import {
  type ApiSession,
  accessibilityProblems,
  addSite,
  createOwner,
  type Dashboard,
  personContext,
  screenshot,
  signIn,
  startDashboard,
} from './harness.ts';

/**
 * Settings → Data requests: an owner looks a payer up by e-mail (nothing changes), erases with a
 * confirmation, and sees what was done; the stored webhooks then hold nothing of that person.
 */
describe('data requests in the dashboard', () => {
  let d: Dashboard;
  let owner: ApiSession;
  beforeAll(async () => {
    d = await startDashboard();
    owner = await createOwner(d);
    const site = await addSite(owner, 'shop.localhost');
    const connection = await owner.call<{ id: string; signing_secret: string }>(
      'POST',
      `/api/v1/sites/${site}/payments/connections`,
      { provider: 'custom' },
    );
    for (const [id, email] of [
      ['order-1', 'ada@example.com'],
      ['order-2', 'ada@example.com'],
      ['order-3', 'bob@example.com'],
    ] as const) {
      const res = await postCustomEvent(
        `${d.footfall.url}/webhooks/custom/${connection.id}`,
        connection.signing_secret,
        {
          id: `evt-${id}`,
          type: 'payment',
          at: Date.now(),
          payment: { id, amount: 4900, tax: 0, currency: 'EUR', email, visitor: 'buyer-0001' },
        },
      );
      expect(res.status).toBe(200);
    }
  });
  afterAll(() => d?.close());

  const found = (email: string) =>
    owner.call<{ payloads: number }>('POST', '/api/v1/data-requests/find', { email });

  for (const [width, dark] of [
    [1280, false],
    [360, true],
  ] as const) {
    it(`looks a payer up, erases after a confirmation and says what was done (${width}, ${dark ? 'dark' : 'light'})`, async () => {
      const email = width === 1280 ? 'ada@example.com' : 'bob@example.com';
      const held = width === 1280 ? 2 : 1;
      const context = await personContext(d, { width, dark });
      const page = await context.newPage();
      await signIn(page);
      await page.goto('/settings');
      await page.getByRole('link', { name: 'Data requests' }).click();
      await page.getByLabel("The person's e-mail address").fill(email);
      await page.getByRole('button', { name: 'Look up' }).click();
      const card = page.locator('.data-found');
      await expect.poll(() => card.textContent()).toContain(`${held} stored payment webhook`);
      expect(await card.textContent()).toContain('shop.localhost');
      expect((await found(email)).payloads).toBe(held); // looking up changed nothing
      expect(await accessibilityProblems(page)).toEqual([]);
      await screenshot(page, `data-requests-${width}-${dark ? 'dark' : 'light'}`);
      await card.getByRole('button', { name: `Erase what is held about ${email}…` }).click();
      await card.getByRole('button', { name: `Erase the data of ${email}` }).click();
      const done = page.locator('.data-erased');
      await expect
        .poll(() => done.textContent())
        .toContain(`Removed the personal data of ${held} stored payment webhook`);
      expect(await accessibilityProblems(page)).toEqual([]);
      expect((await found(email)).payloads).toBe(0);
      await page.getByRole('button', { name: 'Look up' }).click();
      await expect.poll(() => card.textContent()).toContain('there is nothing to erase');
      expect(await card.getByRole('button').count()).toBe(0);
      await context.close();
    });
  }

  it('is for owners: the page and the lookup are refused to anyone else', async () => {
    const res = await fetch(`${d.footfall.url}/api/v1/data-requests/find`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(res.status).toBe(401);
  });
});
