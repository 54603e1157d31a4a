import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEMONSQUEEZY_EVENTS, lemonsqueezy } from './lemonsqueezy.ts';
import { salesBothWays } from './testing/agreement.ts';
import { type FakeApi, headerOf, providerFailure, startJsonServer } from './testing/kit.ts';
import { lemonsqueezyKit } from './testing/lemonsqueezy.ts';

let fake: FakeApi;
beforeAll(async () => {
  fake = await lemonsqueezyKit.start();
});
afterAll(() => fake.close());

const target = (apiKey: string, base = fake.url) => ({ apiKey, base });
const T = Date.UTC(2026, 10, 20, 12);

describe('the Lemon Squeezy adapter', () => {
  it("connects: the user's test_mode decides, a webhook per store with the fixed events and a secret Footfall chose", async () => {
    const live = await lemonsqueezy.connect(
      target(fake.keys.live),
      'https://stats.example.com/webhooks/lemonsqueezy/a',
    );
    expect(live.environment).toBe('live');
    expect(live.signingSecret).toMatch(/^[\w-]{40}$/);
    const test = await lemonsqueezy.connect(
      target(fake.keys.sandbox),
      'https://stats.example.com/webhooks/lemonsqueezy/b',
    );
    expect(test.environment).toBe('sandbox');
    expect(test.signingSecret).not.toBe(live.signingSecret);
    expect(fake.endpoints().map((e) => e.events)).toEqual([
      [...LEMONSQUEEZY_EVENTS],
      [...LEMONSQUEEZY_EVENTS],
    ]);
    expect(fake.secretFor('https://stats.example.com/webhooks/lemonsqueezy/a')).toBe(live.signingSecret);
    await lemonsqueezy.disconnect(target(fake.keys.sandbox), test.endpointId);
    await lemonsqueezy.disconnect(target(fake.keys.live), live.endpointId);
    expect(fake.endpoints()).toEqual([]);
  });

  it('says which: key refused, a forbidden webhook, an account without a store, Lemon Squeezy unreachable', async () => {
    expect(
      await providerFailure(lemonsqueezy.connect(target(fake.keys.rejected), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
      message: expect.stringContaining('Lemon Squeezy did not accept'),
    });
    const api = (webhook: number, stores: unknown[]) =>
      startJsonServer((req) =>
        req.path === '/v1/webhooks'
          ? {
              status: webhook,
              body: { errors: [{ status: String(webhook), title: 'Forbidden', detail: 'no' }] },
            }
          : req.path === '/v1/stores'
            ? { status: 200, body: { data: stores } }
            : { status: 200, body: { meta: { test_mode: false }, data: {} } },
      );
    const forbidden = await api(403, [{ type: 'stores', id: '1' }]);
    expect(
      await providerFailure(lemonsqueezy.connect(target('k', forbidden.url), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'missing_permission',
    });
    await forbidden.close();
    const empty = await api(201, []);
    expect(
      await providerFailure(lemonsqueezy.connect(target('k', empty.url), 'https://x.example/w')),
    ).toMatchObject({
      message: expect.stringContaining('no store'),
    });
    await empty.close();
    const closed = await startJsonServer(() => ({ status: 200 }));
    await closed.close();
    expect(
      await providerFailure(lemonsqueezy.connect(target(fake.keys.live, closed.url), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'unreachable',
      message: expect.stringContaining('Lemon Squeezy could not be reached'),
    });
    expect(fake.endpoints()).toEqual([]);
  });

  it('verifies X-Signature by the documented scheme, and refuses tampered or foreign ones', () => {
    const secret = 'footfall-lemon-secret';
    const sale = fake.sale({ amount: 1000, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, secret);
    const d = sale.deliveries[0]!;
    const body = new TextEncoder().encode(d.body);
    // the documented scheme, computed here independently of the kit
    expect(d.headers['x-signature']).toBe(createHmac('sha256', secret).update(d.body).digest('hex'));
    expect(lemonsqueezy.verify({ secret, header: headerOf(d.headers), body, nowMs: Date.now() })).toBeNull();
    expect(
      lemonsqueezy.verify({ secret: 'other', header: headerOf(d.headers), body, nowMs: Date.now() }),
    ).toMatchObject({ code: 'mismatch' });
    const tampered = new TextEncoder().encode(d.body.replace('"total":1000', '"total":9000'));
    expect(
      lemonsqueezy.verify({ secret, header: headerOf(d.headers), body: tampered, nowMs: Date.now() }),
    ).toMatchObject({ code: 'mismatch' });
    expect(
      lemonsqueezy.verify({ secret, header: headerOf({ 'x-signature': 'zz' }), body, nowMs: Date.now() }),
    ).toMatchObject({ code: 'mismatch' });
    expect(lemonsqueezy.verify({ secret, header: () => undefined, body, nowMs: Date.now() })).toMatchObject({
      code: 'missing',
    });
    // no delivery id in the scheme: what is announced, and its state, keys the inbox
    const payload = JSON.parse(d.body);
    const id = lemonsqueezy.deliveryId(payload, headerOf(d.headers));
    expect(id).toMatch(/^order_created:orders:\d+:/);
    expect(lemonsqueezy.deliveryId(JSON.parse(d.body), headerOf(d.headers))).toBe(id);
    const refunded = fake.refund(sale.paymentId, 100, T + 1000, secret).deliveries[0]!;
    expect(lemonsqueezy.deliveryId(JSON.parse(refunded.body), headerOf(refunded.headers))).not.toBe(id);
    expect(lemonsqueezy.deliveryId({ meta: {} }, headerOf(d.headers))).toBeNull();
  });

  it('maps orders, renewals (not the initial invoice) and refunds as a running total; reconciliation agrees, without the visitor', async () => {
    const both = await salesBothWays(lemonsqueezy, lemonsqueezyKit, T, 'footfall-lemon-map');
    const refunds = `${both.one.paymentId}:refunds`;
    // each order_refunded carries the whole order again (the same payment) and its refunded total
    const latest = both.hooksById.filter((e, i, all) => all.findLastIndex((x) => x.id === e.id) === i);
    expect(latest).toEqual([
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
          customer_id: expect.stringMatching(/^\d+$/),
          subscription_id: undefined,
          email: 'ada@example.com',
          visitor: 'vid-1',
        },
      },
      // one refund per order, its amount the refunded total, dated at the latest refund
      {
        id: refunds,
        at: T + 7_200_000,
        test: false,
        type: 'refund',
        refund: { id: refunds, payment_id: both.one.paymentId, amount: 7000, currency: 'EUR' },
      },
      // the subscription's first payment is its order; the "initial" invoice repeating it is skipped
      expect.objectContaining({
        payment: expect.objectContaining({ id: both.first.paymentId, visitor: 'vid-2' }),
      }),
      expect.objectContaining({
        at: T + 30 * 86_400_000,
        payment: expect.objectContaining({
          id: both.renewal.paymentId,
          kind: 'renewal',
          subscription_id: both.first.subscription,
          visitor: 'vid-2',
        }),
      }),
    ]);
    expect(
      both.fromHooks
        .filter((e) => e.type === 'refund')
        .map((e) => [e.at, e.type === 'refund' && e.refund.amount]),
    ).toEqual([
      [T + 3_600_000, 5000],
      [T + 7_200_000, 7000],
    ]);
    // read back, the same payments (the API's objects carry no custom data, so no visitor) and the
    // refund at its latest total
    const strip = (events: typeof both.syncById) =>
      events.map((e) => (e.type === 'payment' ? { ...e, payment: { ...e.payment, visitor: undefined } } : e));
    expect(both.syncById).toEqual(strip(latest));
    expect(both.keysAgain).toEqual(both.keys);
    expect(both.laterRecords).toEqual([]);
  });

  it('ignores what moves no money, marks test-mode payloads, redacts the payer', () => {
    const sale = fake.sale(
      { amount: 500, tax: 0, currency: 'EUR', visitor: 'vid-9', at: T, kind: 'one_time', email: 'x@y.z' },
      'footfall-lemon-r',
    );
    const event = JSON.parse(sale.deliveries[0]!.body);
    expect(
      lemonsqueezy.toLedger({ ...event, meta: { ...event.meta, event_name: 'order_updated' } }, 'webhook'),
    ).toEqual([]);
    const pending = { ...event.data, attributes: { ...event.data.attributes, status: 'pending' } };
    expect(lemonsqueezy.toLedger({ ...event, data: pending }, 'webhook')).toEqual([]);
    expect(lemonsqueezy.toLedger('not an event', 'webhook')).toEqual([]);
    expect(
      lemonsqueezy.toLedger({ ...event, meta: { ...event.meta, test_mode: true } }, 'webhook'),
    ).toMatchObject([{ test: true }]);
    expect(JSON.stringify(event)).toMatch(/vid-9|x@y\.z|Ada Buyer/);
    const redacted = JSON.stringify(lemonsqueezy.redact(event));
    expect(redacted).not.toMatch(/vid-9|x@y\.z|Ada Buyer|4242/);
    expect(lemonsqueezy.toLedger(JSON.parse(redacted), 'webhook')).toMatchObject([
      {
        payment: {
          amount: 500,
          id: sale.paymentId,
          visitor: undefined,
          email: undefined,
          customer_id: undefined,
        },
      },
    ]);
  });
});
