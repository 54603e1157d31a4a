import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_EVENTS, stripe } from './stripe.ts';
import { type FakeApi, headerOf, providerFailure, startJsonServer } from './testing/kit.ts';
import { stripeKit } from './testing/stripe.ts';

let fake: FakeApi;
beforeAll(async () => {
  fake = await stripeKit.start();
});
afterAll(() => fake.close());

const target = (apiKey: string) => ({ apiKey, base: fake.url });
const T = Date.UTC(2026, 10, 20, 12);

describe('the Stripe adapter', () => {
  it('connects: the key decides live or sandbox, the endpoint gets the fixed events and the pinned version', async () => {
    const live = await stripe.connect(target(fake.keys.live), 'https://stats.example.com/webhooks/stripe/a');
    expect(live).toMatchObject({ environment: 'live', signingSecret: expect.stringMatching(/^whsec_/) });
    const sandbox = await stripe.connect(
      target(fake.keys.sandbox),
      'https://stats.example.com/webhooks/stripe/b',
    );
    expect(sandbox.environment).toBe('sandbox');
    expect(fake.endpoints().map((e) => e.events)).toEqual([[...STRIPE_EVENTS], [...STRIPE_EVENTS]]);
    await stripe.disconnect(target(fake.keys.sandbox), sandbox.endpointId);
    expect(fake.endpoints()).toHaveLength(1);
  });

  it('says which: key not accepted, the missing permission named, Stripe unreachable', async () => {
    expect(
      await providerFailure(stripe.connect(target(fake.keys.rejected), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
    });
    expect(
      await providerFailure(stripe.connect(target('pk_live_publishable'), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
    });
    expect(
      await providerFailure(stripe.connect(target(fake.keys.noWebhookPermission!), 'https://x.example/w')),
    ).toMatchObject({ reason: 'missing_permission', permission: 'Webhook Endpoints: Write' });
    const closed = await startJsonServer(() => ({ status: 200 }));
    await closed.close();
    expect(
      await providerFailure(
        stripe.connect({ apiKey: fake.keys.live, base: closed.url }, 'https://x.example/w'),
      ),
    ).toMatchObject({ reason: 'unreachable' });
  });

  it('verifies Stripe-Signature as the stripe package signs it, and refuses tampered, stale or foreign ones', () => {
    const secret = 'whsec_test_secret';
    const sale = fake.sale({ amount: 1000, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, secret);
    const d = sale.deliveries[0]!;
    const body = new TextEncoder().encode(d.body);
    expect(stripe.verify({ secret, header: headerOf(d), body, nowMs: Date.now() })).toBeNull();
    expect(
      stripe.verify({ secret: 'whsec_other', header: headerOf(d), body, nowMs: Date.now() }),
    ).toMatchObject({
      code: 'mismatch',
    });
    const tampered = new TextEncoder().encode(d.body.replace('1000', '9000'));
    expect(stripe.verify({ secret, header: headerOf(d), body: tampered, nowMs: Date.now() })).toMatchObject({
      code: 'mismatch',
    });
    expect(stripe.verify({ secret, header: headerOf(d), body, nowMs: Date.now() + 600_000 })).toMatchObject({
      code: 'stale',
    });
    expect(stripe.verify({ secret, header: () => undefined, body, nowMs: Date.now() })).toMatchObject({
      code: 'missing',
    });
    expect(stripe.deliveryId(JSON.parse(d.body), headerOf(d))).toMatch(/^evt_/);
  });

  it('maps a checkout, a first subscription payment, a renewal and a refund; the same ids come back from reconciliation', async () => {
    const secret = 'whsec_map';
    const one = fake.sale(
      {
        amount: 11900,
        tax: 1900,
        currency: 'EUR',
        visitor: 'vid-1',
        email: 'ada@example.com',
        at: T,
        kind: 'one_time',
      },
      secret,
    );
    const first = fake.sale(
      { amount: 2000, tax: 0, currency: 'USD', visitor: 'vid-2', at: T, kind: 'subscription' },
      secret,
    );
    const renewal = fake.sale(
      {
        amount: 2000,
        tax: 0,
        currency: 'USD',
        at: T + 30 * 86_400_000,
        kind: 'renewal',
        subscription: first.subscription,
      },
      secret,
    );
    const refund = fake.refund(one.paymentId, 5000, T + 3_600_000, secret);
    const fromHooks = [one, first, renewal, refund].flatMap((x) =>
      x.deliveries.flatMap((d) => stripe.toLedger(JSON.parse(d.body), 'webhook')),
    );
    expect(fromHooks).toMatchObject([
      {
        type: 'payment',
        test: false,
        payment: {
          id: one.paymentId,
          amount: 11900,
          tax: 1900,
          currency: 'EUR',
          kind: 'one_time',
          visitor: 'vid-1',
          email: 'ada@example.com',
        },
      },
      {
        type: 'payment',
        payment: {
          id: first.paymentId,
          kind: 'subscription',
          visitor: 'vid-2',
          subscription_id: first.subscription,
        },
      },
      {
        type: 'payment',
        payment: { id: renewal.paymentId, kind: 'renewal', subscription_id: first.subscription },
      },
      {
        type: 'refund',
        refund: { id: refund.refundId, payment_id: one.paymentId, amount: 5000, currency: 'EUR' },
      },
    ]);
    const records = await stripe.reconcile(target(fake.keys.live), T - 86_400_000);
    const fromSync = records.flatMap((r) => stripe.toLedger(r.payload, 'sync'));
    const ids = (events: typeof fromSync) =>
      events
        .map((e) => (e.type === 'payment' ? e.payment.id : e.type === 'refund' ? e.refund.id : e.dispute.id))
        .sort();
    expect(ids(fromSync)).toEqual(expect.arrayContaining(ids(fromHooks)));
    // a second read of the same states gives the same keys: nothing is stored twice
    const again = await stripe.reconcile(target(fake.keys.live), T - 86_400_000);
    expect(again.map((r) => r.key)).toEqual(records.map((r) => r.key));
  });

  it('maps disputes opened, then lost or won, marks test mode, and ignores events that move no money', () => {
    const dispute = (type: string, status: string, created: number, livemode = true) => ({
      id: `evt_${type}_${status}`,
      object: 'event',
      created,
      livemode,
      type,
      data: {
        object: {
          id: 'dp_1',
          object: 'dispute',
          amount: 4900,
          currency: 'eur',
          payment_intent: 'pi_9',
          status,
          livemode,
          created: 1_700_000_000,
        },
      },
    });
    expect(
      stripe.toLedger(dispute('charge.dispute.created', 'needs_response', 1_700_000_000), 'webhook'),
    ).toMatchObject([
      {
        type: 'dispute',
        at: 1_700_000_000_000,
        dispute: { id: 'dp_1', payment_id: 'pi_9', status: 'open', currency: 'EUR' },
      },
    ]);
    expect(stripe.toLedger(dispute('charge.dispute.closed', 'lost', 1_700_100_000), 'webhook')).toMatchObject(
      [{ dispute: { status: 'lost' }, at: 1_700_100_000_000 }],
    );
    expect(
      stripe.toLedger(dispute('charge.dispute.closed', 'won', 1_700_100_000, false), 'webhook'),
    ).toMatchObject([{ test: true, dispute: { status: 'won' } }]);
    expect(
      stripe.toLedger(
        { id: 'evt_x', object: 'event', type: 'customer.updated', data: { object: { object: 'customer' } } },
        'webhook',
      ),
    ).toEqual([]);
    expect(stripe.toLedger('not an event', 'webhook')).toEqual([]);
  });

  it('redacts the payer: e-mail, name, address, customer and visitor go, the amounts stay', () => {
    const sale = fake.sale(
      {
        amount: 500,
        tax: 0,
        currency: 'EUR',
        visitor: 'vid-9',
        email: 'eve@example.com',
        at: T,
        kind: 'one_time',
      },
      'whsec_r',
    );
    const redacted = JSON.stringify(stripe.redact(JSON.parse(sale.deliveries[0]!.body)));
    expect(redacted).not.toMatch(/eve@example|vid-9|Ada Buyer|cus_/);
    expect(stripe.toLedger(JSON.parse(redacted), 'webhook')).toMatchObject([
      { payment: { amount: 500, id: sale.paymentId } },
    ]);
  });
});

// the SDK is what signs the deliveries above
expect(typeof new Stripe('sk_test_x').webhooks.generateTestHeaderString).toBe('function');
