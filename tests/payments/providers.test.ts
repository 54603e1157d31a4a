import { PROVIDER_IDS, type ProviderId } from '@footfall/payments';
import { type Delivery, type FakeApi, fakeKits } from '@footfall/payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiCallError, type ApiSession, createOwner } from '../dashboard/harness.ts';
import { startFootfall } from '../support/footfall.ts';

/**
 * The five payment providers end to end, through the real `footfall start`: each provider's API
 * is a local server speaking its documented shapes (packages/payments/src/providers/testing), and
 * its webhooks are signed as the provider signs them. For each: automatic set-up (and each way it
 * fails), manual set-up, a webhook becoming revenue credited to the visit that earned it, a replay
 * counted once, a missed webhook recovered by reconciliation, a refund per refund, and Health.
 */
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let apiKey: string;
const apis = {} as Record<ProviderId, FakeApi>;

beforeAll(async () => {
  const kits = await fakeKits();
  for (const id of PROVIDER_IDS) apis[id] = await kits[id].start();
  footfall = await startFootfall({
    FOOTFALL_UNSAFE_PAYMENT_APIS: PROVIDER_IDS.map((id) => `${id}=${apis[id].url}`).join(','),
    // no exchange rates are needed (every amount is in the site's currency): fail fast, offline
    FOOTFALL_RATES_URL: 'http://127.0.0.1:9/',
  });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  apiKey = (await owner.call<{ key: string }>('POST', '/api/v1/api-keys', { name: 'reader' })).key;
}, 60_000);
afterAll(async () => {
  await footfall?.stop();
  await Promise.all(Object.values(apis).map((a) => a.close()));
});

/** The API's error answer for a call that must fail. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiCallError) {
      const body = JSON.parse(error.message.slice(error.message.indexOf(': ') + 2)) as Record<
        string,
        unknown
      >;
      return { status: error.status, body };
    }
    throw error;
  }
  throw new Error('the call succeeded');
}

async function deliver(url: string, d: Delivery): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Connection {
  id: string;
  provider: string;
  mode: string;
  environment: string;
  webhook_url: string;
  has_signing_secret: boolean;
  reconciles: boolean;
  waiting: number;
}

interface Report {
  kpis: { visitors: number; revenue: number; customers: number };
  breakdowns: { referrer: { value: string; revenue: number }[] };
}

describe.each(PROVIDER_IDS)('%s', (provider) => {
  let site: string;
  let connection: Connection;
  let secret: string;
  const fake = () => apis[provider];
  const base = () => `/api/v1/sites/${site}`;
  const report = () => owner.call<Report>('GET', `${base()}/report`);
  const referrerRevenue = async (host: string) =>
    (await report()).breakdowns.referrer.find((r) => r.value === host)?.revenue ?? 0;

  beforeAll(async () => {
    const domain = `${provider}.localhost`;
    site = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain, currency: 'EUR' }))
      .site.id;
    // two buyers' visits: one from a search engine, one from a forum
    for (const [visitor, referrer] of [
      [`${provider}-buyer-1`, 'https://www.google.com/'],
      [`${provider}-buyer-2`, 'https://news.ycombinator.com/'],
    ] as const) {
      const res = await fetch(`${footfall.url}/api/e`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
        body: JSON.stringify({ s: site, k: 'pv', u: `http://${domain}/pricing`, r: referrer, v: visitor }),
      });
      expect(res.status, await res.text()).toBe(202);
    }
    for (let i = 0; i < 100 && (await report()).kpis.visitors < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await report()).kpis.visitors).toBe(2);
  }, 30_000);

  it('refuses a key the provider does not accept, and one without the webhook permission, naming it', async () => {
    const rejected = await refusal(
      owner.call('POST', `${base()}/payments/connections`, { provider, api_key: fake().keys.rejected }),
    );
    expect(rejected).toMatchObject({
      status: 400,
      body: { code: 'provider_key_rejected', field: 'api_key' },
    });
    // a provider with scoped keys: a key without the webhook permission is refused, naming it
    const { noWebhookPermission } = fake().keys;
    if (noWebhookPermission !== undefined) {
      const limited = await refusal(
        owner.call('POST', `${base()}/payments/connections`, { provider, api_key: noWebhookPermission }),
      );
      expect(limited).toMatchObject({
        status: 400,
        body: { code: 'provider_permission_missing', permission: fake().missingPermission },
      });
      expect(String(limited.body.message)).toContain(fake().missingPermission);
    }
    const listed = await owner.call<{ connections: unknown[] }>('GET', `${base()}/payments/connections`);
    expect(listed.connections).toEqual([]);
  });

  it('connects with a pasted key: the key decides live or sandbox, the endpoint is created', async () => {
    const sandbox = await owner.call<Connection>('POST', `${base()}/payments/connections`, {
      provider,
      api_key: ` '${fake().keys.sandbox}'\n`,
    });
    expect(sandbox).toMatchObject({
      provider,
      mode: 'automatic',
      environment: 'sandbox',
      has_signing_secret: true,
    });
    await owner.call('DELETE', `${base()}/payments/connections/${sandbox.id}`);
    connection = await owner.call<Connection>('POST', `${base()}/payments/connections`, {
      provider,
      api_key: `"${fake().keys.live}"`,
    });
    expect(connection).toMatchObject({ provider, mode: 'automatic', environment: 'live', reconciles: true });
    expect(connection.webhook_url).toBe(`${footfall.url}/webhooks/${provider}/${connection.id}`);
    // the sandbox connection's endpoint was removed with it; the live one is there
    expect(
      fake()
        .endpoints()
        .map((e) => e.url),
    ).toEqual([connection.webhook_url]);
    expect(fake().endpoints()[0]!.events.length).toBeGreaterThan(0);
    secret = fake().secretFor(connection.webhook_url);
    // only an owner reads the secret, and an API key is refused before the connection is looked up
    expect(await owner.call('GET', `${base()}/payments/connections/${connection.id}/secret`)).toEqual({
      signing_secret: secret,
    });
    for (const id of [connection.id, 'no-such-connection']) {
      const res = await fetch(`${footfall.url}${base()}/payments/connections/${id}/secret`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(403);
    }
  });

  it('turns a signed webhook into revenue credited to the visit that earned it, once', async () => {
    // a provider dates a payment to the second: the visit, moments earlier, may be in the same one
    const sale = fake().sale(
      {
        amount: 5900,
        tax: 1000,
        currency: 'EUR',
        visitor: `${provider}-buyer-1`,
        at: Date.now(),
        kind: 'one_time',
        email: 'buyer1@example.com',
      },
      secret,
    );
    for (const d of sale.deliveries) {
      const r = await deliver(connection.webhook_url, d);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    expect(await referrerRevenue('google.com')).toBe(4900);
    // the provider sends it again (a retry, a replay): counted once
    for (const d of sale.deliveries) {
      const r = await deliver(connection.webhook_url, d);
      expect(r.status).toBe(200);
      expect(r.body.duplicate).toBe(true);
    }
    expect((await report()).kpis.revenue).toBe(4900);
    // a tampered delivery is refused and changes nothing
    const first = sale.deliveries[0]!;
    const tampered = await deliver(connection.webhook_url, {
      ...first,
      body: first.body.replace('5900', '9900'),
    });
    expect(tampered.status).toBe(401);
    expect((await report()).kpis.revenue).toBe(4900);
  });

  it('recovers a missed webhook by reconciliation, and a second run adds nothing', async () => {
    // a subscription paid while the webhook was lost (never delivered)
    fake().sale(
      {
        amount: 12000,
        tax: 0,
        currency: 'EUR',
        visitor: `${provider}-buyer-2`,
        at: Date.now(),
        kind: 'subscription',
      },
      secret,
    );
    const first = await owner.call<{ added: number; read: number }>(
      'POST',
      `${base()}/payments/connections/${connection.id}/sync`,
      {},
    );
    expect(first.added).toBeGreaterThan(0);
    expect((await report()).kpis.revenue).toBe(4900 + 12000);
    // the visitor comes back with it where the provider's API keeps the checkout's metadata
    expect(await referrerRevenue('news.ycombinator.com')).toBe(fake().syncCarriesVisitor ? 12000 : 0);
    const again = await owner.call<{ added: number }>(
      'POST',
      `${base()}/payments/connections/${connection.id}/sync`,
      {
        days: 30,
      },
    );
    expect(again.added).toBe(0);
    expect((await report()).kpis.revenue).toBe(4900 + 12000);
  });

  it('takes back each partial refund once, whether from a webhook or reconciliation', async () => {
    const sale = fake().sale(
      {
        amount: 10000,
        tax: 0,
        currency: 'EUR',
        visitor: `${provider}-buyer-1`,
        at: Date.now(),
        kind: 'one_time',
      },
      secret,
    );
    for (const d of sale.deliveries) expect((await deliver(connection.webhook_url, d)).status).toBe(200);
    const before = (await report()).kpis.revenue;
    const one = fake().refund(sale.paymentId, 2500, Date.now(), secret);
    for (const d of one.deliveries) expect((await deliver(connection.webhook_url, d)).status).toBe(200);
    expect((await report()).kpis.revenue).toBe(before - 2500);
    // a second partial refund whose webhook is missed: reconciliation brings it, never the first again
    fake().refund(sale.paymentId, 1500, Date.now(), secret);
    await owner.call('POST', `${base()}/payments/connections/${connection.id}/sync`, {});
    expect((await report()).kpis.revenue).toBe(before - 4000);
  });

  it('sets up by hand: the URL first, deliveries wait for the secret, then pass', async () => {
    const manual = await owner.call<Connection>('POST', `${base()}/payments/connections`, {
      provider,
      mode: 'manual',
    });
    expect(manual).toMatchObject({ mode: 'manual', has_signing_secret: false, reconciles: false });
    // the endpoint the owner made by hand at the provider, and its secret
    const handSecret = fake().secretFor(connection.webhook_url);
    const sale = fake().sale(
      {
        amount: 3000,
        tax: 0,
        currency: 'EUR',
        visitor: `${provider}-buyer-2`,
        at: Date.now(),
        kind: 'one_time',
      },
      handSecret,
    );
    const early = await deliver(manual.webhook_url, sale.deliveries[0]!);
    expect(early.status).toBe(503);
    const listed = await owner.call<{ connections: Connection[] }>('GET', `${base()}/payments/connections`);
    expect(listed.connections.find((x) => x.id === manual.id)?.waiting).toBe(1);
    const patched = await owner.call<Connection>('PATCH', `${base()}/payments/connections/${manual.id}`, {
      signing_secret: `  ${handSecret} `,
    });
    expect(patched).toMatchObject({ has_signing_secret: true, waiting: 0 });
    for (const d of sale.deliveries) expect((await deliver(manual.webhook_url, d)).status).toBe(200);
    await owner.call('DELETE', `${base()}/payments/connections/${manual.id}`);
  });

  it('shows each connection in Health, and says so when the provider cannot be reached', async () => {
    await fake().close();
    const failed = await refusal(
      owner.call('POST', `${base()}/payments/connections/${connection.id}/sync`, {}),
    );
    expect(failed).toMatchObject({ status: 502, body: { code: 'provider_sync_failed' } });
    const unreachable = await refusal(
      owner.call('POST', `${base()}/payments/connections`, { provider, api_key: fake().keys.live }),
    );
    expect(unreachable).toMatchObject({ status: 502, body: { code: 'provider_unreachable' } });
    const health = await owner.call<{
      payments: {
        sources: { id: string; provider: string; reconciliation: { error: string | null } | null }[];
      };
    }>('GET', '/api/v1/health');
    const mine = health.payments.sources.find((s) => s.id === connection.id);
    expect(mine).toMatchObject({ provider, reconciliation: { error: expect.stringContaining('reached') } });
  });
});
