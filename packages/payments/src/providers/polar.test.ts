import { webhooks as polarWebhooks } from '@polar-sh/sdk/2026-10';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLAR_API_VERSION, POLAR_EVENTS, POLAR_SCOPES, polar } from './polar.ts';
import { salesBothWays } from './testing/agreement.ts';
import { type FakeApi, headerOf, providerFailure, startJsonServer } from './testing/kit.ts';
import { polarKit, signPolar } from './testing/polar.ts';

let fake: FakeApi;
beforeAll(async () => {
  fake = await polarKit.start();
});
afterAll(() => fake.close());

const target = (apiKey: string, base = fake.url) => ({ apiKey, base });
const T = Date.UTC(2026, 10, 20, 12);

describe('the Polar adapter', () => {
  it('connects: production or sandbox found by asking, the endpoint made with the fixed events and the pinned API version', async () => {
    const live = await polar.connect(target(fake.keys.live), 'https://stats.example.com/webhooks/polar/a');
    expect(live).toMatchObject({ environment: 'live', signingSecret: expect.stringMatching(/^polar_whs_/) });
    const sandbox = await polar.connect(
      target(fake.keys.sandbox),
      'https://stats.example.com/webhooks/polar/b',
    );
    expect(sandbox.environment).toBe('sandbox');
    expect(fake.endpoints().map((e) => e.events)).toEqual([[...POLAR_EVENTS], [...POLAR_EVENTS]]);
    expect(POLAR_API_VERSION).toBe('2026-10');
    await polar.disconnect({ ...target(fake.keys.sandbox), environment: 'sandbox' }, sandbox.endpointId);
    await polar.disconnect({ ...target(fake.keys.live), environment: 'live' }, live.endpointId);
    expect(fake.endpoints()).toEqual([]);
  });

  it('says which: token refused, the scope missing named as Polar names it, Polar unreachable', async () => {
    expect(
      await providerFailure(polar.connect(target(fake.keys.rejected), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
      message: expect.stringContaining('Polar did not accept'),
    });
    expect(
      await providerFailure(polar.connect(target(fake.keys.noWebhookPermission!), 'https://x.example/w')),
    ).toEqual({
      reason: 'missing_permission',
      permission: POLAR_SCOPES.webhooks,
      message: expect.stringContaining('"webhooks:write"'),
    });
    const closed = await startJsonServer(() => ({ status: 200 }));
    await closed.close();
    expect(
      await providerFailure(polar.connect(target(fake.keys.live, closed.url), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'unreachable',
      message: expect.stringContaining('Polar could not be reached'),
    });
    const broken = await startJsonServer(() => ({ status: 502, body: { detail: 'Bad gateway' } }));
    expect(
      await providerFailure(polar.connect(target(fake.keys.live, broken.url), 'https://x.example/w')),
    ).toMatchObject({ reason: 'unreachable' });
    await broken.close();
    expect(fake.endpoints()).toEqual([]);
  });

  it("verifies Standard Webhooks keyed as Polar's own SDK keys them, and refuses tampered, stale or foreign ones", async () => {
    const secret = 'polar_whs_FootfallSecret0123456789abcdefghijklmnop';
    const sale = fake.sale({ amount: 1000, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, secret);
    const d = sale.deliveries[0]!;
    const body = new TextEncoder().encode(d.body);
    // Polar's SDK accepts what the kit signs, and so does the adapter
    await expect(polarWebhooks.validateEvent(d.body, d.headers, secret)).resolves.toMatchObject({
      type: 'order.paid',
    });
    await expect(polarWebhooks.validateEvent(`${d.body} `, d.headers, secret)).rejects.toThrow();
    const now = Date.now();
    expect(polar.verify({ secret, header: headerOf(d.headers), body, nowMs: now })).toBeNull();
    expect(
      polar.verify({ secret: `${secret}x`, header: headerOf(d.headers), body, nowMs: now }),
    ).toMatchObject({
      code: 'mismatch',
    });
    const tampered = new TextEncoder().encode(d.body.replace('"total_amount":1000', '"total_amount":9000'));
    expect(polar.verify({ secret, header: headerOf(d.headers), body: tampered, nowMs: now })).toMatchObject({
      code: 'mismatch',
    });
    const signedMs = Number(d.headers['webhook-timestamp']) * 1000;
    expect(
      polar.verify({ secret, header: headerOf(d.headers), body, nowMs: signedMs + 301_000 }),
    ).toMatchObject({
      code: 'stale',
    });
    expect(polar.verify({ secret, header: () => undefined, body, nowMs: now })).toMatchObject({
      code: 'missing',
    });
    // a whsec_ secret is keyed by its base64 body, as Polar's SDK also accepts
    const whsec = `whsec_${Buffer.from('another polar secret').toString('base64')}`;
    const msg = 'msg_2ZpMqRvFootfall';
    const ts = new Date();
    const signed = {
      'webhook-id': msg,
      'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
      'webhook-signature': new Webhook(whsec).sign(msg, ts, d.body),
    };
    await expect(polarWebhooks.validateEvent(d.body, signed, whsec)).resolves.toBeTruthy();
    expect(polar.verify({ secret: whsec, header: headerOf(signed), body, nowMs: now })).toBeNull();
    // the delivery's webhook-id keys the inbox: a retry of the same message is the same key
    expect(polar.deliveryId(JSON.parse(d.body), headerOf(d.headers))).toBe(d.headers['webhook-id']);
    expect(polar.deliveryId({ data: {} }, headerOf(d.headers))).toBeNull();
    const again = signPolar(secret, d.headers['webhook-id']!, d.body);
    expect(polar.deliveryId(JSON.parse(d.body), headerOf(again))).toBe(d.headers['webhook-id']);
  });

  it('maps paid orders (one-time, first, renewal) and each refund; reconciliation gives the same events', async () => {
    const both = await salesBothWays(polar, polarKit, T, 'polar_whs_map');
    expect(both.fromHooks).toEqual([
      {
        id: both.one.paymentId,
        at: T,
        test: false,
        type: 'payment',
        payment: {
          id: both.one.paymentId,
          amount: 11900,
          tax: 1900,
          currency: 'EUR',
          kind: 'one_time',
          customer_id: expect.any(String),
          subscription_id: undefined,
          email: 'ada@example.com',
          visitor: 'vid-1',
        },
      },
      expect.objectContaining({
        payment: expect.objectContaining({ kind: 'subscription', visitor: 'vid-2' }),
      }),
      // the subscription's metadata comes along to its renewals
      expect.objectContaining({
        at: T + 30 * 86_400_000,
        payment: expect.objectContaining({
          kind: 'renewal',
          subscription_id: both.first.subscription,
          visitor: 'vid-2',
        }),
      }),
      // each refund once it succeeded (refund.created is still pending), tax included
      {
        id: both.refund1.refundId,
        at: T + 3_600_000,
        test: false,
        type: 'refund',
        refund: { id: both.refund1.refundId, payment_id: both.one.paymentId, amount: 5000, currency: 'EUR' },
      },
      expect.objectContaining({ refund: expect.objectContaining({ amount: 2000 }) }),
    ]);
    expect(both.syncById).toEqual(both.hooksById);
    expect(both.keysAgain).toEqual(both.keys);
    expect(both.laterRecords).toEqual([]);
  });

  it('ignores what moves no money and reads a failed refund as zero', () => {
    const sale = fake.sale({ amount: 700, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, 'polar_whs_x');
    const event = JSON.parse(sale.deliveries[0]!.body);
    expect(polar.toLedger({ ...event, type: 'order.created' }, 'webhook')).toEqual([]);
    expect(
      polar.toLedger({ ...event, data: { ...event.data, status: 'pending', paid: false } }, 'webhook'),
    ).toEqual([]);
    expect(polar.toLedger({ ...event, data: { ...event.data, total_amount: 0 } }, 'webhook')).toEqual([]);
    expect(polar.toLedger('not an event', 'webhook')).toEqual([]);
    const refund = {
      type: 'refund.updated',
      data: {
        id: 'c4a6f8b2-0000-4000-8000-000000000001',
        created_at: '2026-11-01T10:00:00Z',
        modified_at: '2026-11-01T11:00:00Z',
        status: 'failed',
        amount: 500,
        tax_amount: 0,
        currency: 'eur',
        order_id: 'order-1',
      },
    };
    expect(polar.toLedger(refund, 'webhook')).toMatchObject([{ type: 'refund', refund: { amount: 0 } }]);
    expect(polar.toLedger({ ...refund, data: { ...refund.data, status: 'pending' } }, 'webhook')).toEqual([]);
  });

  it('redacts the payer: metadata (the visitor), customer and billing name go; amounts and ids stay', () => {
    const sale = fake.sale(
      { amount: 500, tax: 0, currency: 'EUR', visitor: 'vid-9', at: T, kind: 'subscription', email: 'x@y.z' },
      'polar_whs_r',
    );
    const body = JSON.parse(sale.deliveries[0]!.body);
    expect(JSON.stringify(body)).toMatch(/vid-9|x@y\.z|Ada Buyer/);
    const redacted = JSON.stringify(polar.redact(body));
    expect(redacted).not.toMatch(/vid-9|x@y\.z|Ada Buyer/);
    expect(redacted).not.toContain(String(body.data.customer_id));
    expect(polar.toLedger(JSON.parse(redacted), 'webhook')).toMatchObject([
      { payment: { amount: 500, id: sale.paymentId, visitor: undefined, customer_id: undefined } },
    ]);
  });
});
