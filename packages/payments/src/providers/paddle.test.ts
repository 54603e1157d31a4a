import { Paddle } from '@paddle/paddle-node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomEvent } from '../custom-event.ts';
import { PADDLE_EVENTS, PADDLE_PERMISSIONS, paddle } from './paddle.ts';
import { type FakeApi, headerOf, providerFailure, startJsonServer } from './testing/kit.ts';
import { PADDLE_LEGACY_SANDBOX_KEY, paddleKit, signPaddle } from './testing/paddle.ts';

let fake: FakeApi;
beforeAll(async () => {
  fake = await paddleKit.start();
});
afterAll(() => fake.close());

const target = (apiKey: string) => ({ apiKey, base: fake.url });
const T = Date.UTC(2026, 10, 20, 12);
const ids = (events: CustomEvent[]) =>
  events
    .map((e) => (e.type === 'payment' ? e.payment.id : e.type === 'refund' ? e.refund.id : e.dispute.id))
    .sort();
const hooks = (deliveries: { body: string }[]) =>
  deliveries.flatMap((d) => paddle.toLedger(JSON.parse(d.body), 'webhook'));

/** A Paddle notification around an adjustment, as adjustment.created / adjustment.updated carry it. */
const adjustment = (
  eventType: 'adjustment.created' | 'adjustment.updated',
  data: { id: string; action: string; status: string; total: string; created: string; updated?: string },
) => ({
  event_id: `evt_${data.id.slice(4)}${eventType.length}`,
  event_type: eventType,
  occurred_at: data.updated ?? data.created,
  notification_id: 'ntf_01h8c6tcaga3vyfv0w5x9mznhg',
  data: {
    id: data.id,
    action: data.action,
    type: 'full',
    transaction_id: 'txn_01h8bxpvx398a7zbawb77y0kp5',
    subscription_id: null,
    customer_id: 'ctm_01h8441jn5pcwrfhwh78jqt8hk',
    reason: 'chargeback',
    credit_applied_to_balance: false,
    currency_code: 'EUR',
    status: data.status,
    items: [],
    totals: {
      subtotal: '4118',
      tax: '782',
      total: data.total,
      fee: '0',
      earnings: '4118',
      currency_code: 'EUR',
    },
    payout_totals: null,
    created_at: data.created,
    updated_at: data.updated ?? data.created,
  },
});

describe('the Paddle adapter', () => {
  it('connects: the key decides live or sandbox, the destination gets the fixed events and API version 1', async () => {
    const live = await paddle.connect(target(fake.keys.live), 'https://stats.example.com/webhooks/paddle/a');
    expect(live).toMatchObject({
      environment: 'live',
      signingSecret: expect.stringMatching(/^pdl_ntfset_/),
      endpointId: expect.stringMatching(/^ntfset_/),
    });
    const sandbox = await paddle.connect(
      target(fake.keys.sandbox),
      'https://stats.example.com/webhooks/paddle/b',
    );
    expect(sandbox.environment).toBe('sandbox');
    expect(fake.endpoints().map((e) => e.events)).toEqual([[...PADDLE_EVENTS], [...PADDLE_EVENTS]]);
    expect(fake.secretFor('https://stats.example.com/webhooks/paddle/b')).toBe(sandbox.signingSecret);
    await paddle.disconnect({ ...target(fake.keys.sandbox), environment: 'sandbox' }, sandbox.endpointId);
    expect(fake.endpoints().map((e) => e.id)).toEqual([live.endpointId]);
    await paddle.disconnect({ ...target(fake.keys.live), environment: 'live' }, live.endpointId);
    expect(fake.endpoints()).toEqual([]);
  });

  it('asks the API which environment a key without the pdl_ prefix belongs to', async () => {
    expect(paddle.environmentOfKey(PADDLE_LEGACY_SANDBOX_KEY)).toBeNull();
    const made = await paddle.connect(target(PADDLE_LEGACY_SANDBOX_KEY), 'https://x.example/legacy');
    expect(made.environment).toBe('sandbox');
    await paddle.disconnect(
      { ...target(PADDLE_LEGACY_SANDBOX_KEY), environment: 'sandbox' },
      made.endpointId,
    );
  });

  it('says which: key not accepted, the missing permission named as the dashboard names it, Paddle unreachable', async () => {
    expect(
      await providerFailure(paddle.connect(target(fake.keys.rejected), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
    });
    // a live key is unknown to the sandbox host, and a made-up key to both
    expect(
      await providerFailure(paddle.connect(target('not-a-paddle-key'), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
    });
    expect(
      await providerFailure(paddle.connect(target(fake.keys.noWebhookPermission!), 'https://x.example/w')),
    ).toEqual({
      reason: 'missing_permission',
      permission: 'Notification settings (Write)',
      message: expect.stringContaining('"Notification settings (Write)"'),
    });
    expect(fake.missingPermission).toBe(PADDLE_PERMISSIONS.notifications);
    const closed = await startJsonServer(() => ({ status: 200 }));
    await closed.close();
    expect(
      await providerFailure(
        paddle.connect({ apiKey: fake.keys.live, base: closed.url }, 'https://x.example/w'),
      ),
    ).toMatchObject({
      reason: 'unreachable',
      message: expect.stringContaining('Paddle could not be reached'),
    });
    const broken = await startJsonServer(() => ({ status: 503, body: { error: 'maintenance' } }));
    expect(
      await providerFailure(
        paddle.connect({ apiKey: fake.keys.live, base: broken.url }, 'https://x.example/w'),
      ),
    ).toMatchObject({ reason: 'unreachable' });
    await broken.close();
    expect(fake.endpoints()).toEqual([]);
  });

  it("verifies Paddle-Signature as Paddle's SDK does, and refuses tampered, stale or foreign ones", async () => {
    const secret = 'pdl_ntfset_01hfootfall_secret';
    const sale = fake.sale({ amount: 1000, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, secret);
    const d = sale.deliveries[0]!;
    const body = new TextEncoder().encode(d.body);
    // the kit signs by the documented scheme; Paddle's own SDK accepts that signature
    const sdk = new Paddle('pdl_sdbx_apikey_signature_check_only').webhooks;
    expect(await sdk.isSignatureValid(d.body, secret, d.headers['paddle-signature']!)).toBe(true);
    expect(await sdk.isSignatureValid(`${d.body} `, secret, d.headers['paddle-signature']!)).toBe(false);
    expect(paddle.verify({ secret, header: headerOf(d), body, nowMs: Date.now() })).toBeNull();
    expect(
      paddle.verify({ secret: 'pdl_ntfset_other', header: headerOf(d), body, nowMs: Date.now() }),
    ).toMatchObject({ code: 'mismatch' });
    const tampered = new TextEncoder().encode(d.body.replace('"1000"', '"9000"'));
    expect(tampered).not.toEqual(body);
    expect(paddle.verify({ secret, header: headerOf(d), body: tampered, nowMs: Date.now() })).toMatchObject({
      code: 'mismatch',
    });
    // five minutes and a second from the signature's own time, either way (never from the test's
    // clock, which a slow machine moves on between signing and checking)
    const signedMs = Number(/ts=(\d+)/.exec(d.headers['paddle-signature']!)![1]) * 1000;
    expect(paddle.verify({ secret, header: headerOf(d), body, nowMs: signedMs + 301_000 })).toMatchObject({
      code: 'stale',
    });
    expect(paddle.verify({ secret, header: headerOf(d), body, nowMs: signedMs - 301_000 })).toMatchObject({
      code: 'stale',
    });
    // a minute late is inside Footfall's tolerance (Paddle's SDK would refuse it after 5 s)
    const late = { 'paddle-signature': signPaddle(secret, d.body, Date.now() - 60_000) };
    expect(
      paddle.verify({ secret, header: headerOf({ headers: late }), body, nowMs: Date.now() }),
    ).toBeNull();
    // while Paddle rotates a secret, one h1 of several matching is enough
    const [ts, h1] = d.headers['paddle-signature']!.split(';');
    const rotating = { 'paddle-signature': `${ts};h1=${'0'.repeat(64)};${h1}` };
    expect(
      paddle.verify({ secret, header: headerOf({ headers: rotating }), body, nowMs: Date.now() }),
    ).toBeNull();
    const garbled = { 'paddle-signature': 'ts=abc;h1=zz' };
    expect(
      paddle.verify({ secret, header: headerOf({ headers: garbled }), body, nowMs: Date.now() }),
    ).toMatchObject({ code: 'mismatch' });
    expect(paddle.verify({ secret, header: () => undefined, body, nowMs: Date.now() })).toMatchObject({
      code: 'missing',
    });
    expect(paddle.deliveryId(JSON.parse(d.body), headerOf(d))).toBe(JSON.parse(d.body).event_id);
    expect(paddle.deliveryId({ id: 'evt_1' }, headerOf(d))).toBeNull();
  });

  it('maps a one-time payment, a first subscription payment, a renewal and two partial refunds; reconciliation gives the same ids', async () => {
    // a fresh Paddle account, so reconciliation reads exactly these sales
    const own = await paddleKit.start();
    const secret = 'pdl_ntfset_map';
    const one = own.sale(
      {
        amount: 11900,
        tax: 1900,
        currency: 'eur',
        visitor: 'vid-1',
        email: 'ada@example.com',
        at: T,
        kind: 'one_time',
      },
      secret,
    );
    const first = own.sale(
      { amount: 2000, tax: 0, currency: 'USD', visitor: 'vid-2', at: T, kind: 'subscription' },
      secret,
    );
    const renewal = own.sale(
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
    const refund1 = own.refund(one.paymentId, 5000, T + 3_600_000, secret);
    const refund2 = own.refund(one.paymentId, 2000, T + 7_200_000, secret);
    const fromHooks = hooks([one, first, renewal, refund1, refund2].flatMap((x) => x.deliveries));
    expect(fromHooks).toEqual([
      {
        id: one.paymentId,
        at: T,
        test: false,
        type: 'payment',
        payment: {
          id: one.paymentId,
          amount: 11900,
          tax: 1900,
          currency: 'EUR',
          kind: 'one_time',
          customer_id: expect.stringMatching(/^ctm_/),
          subscription_id: undefined,
          email: undefined,
          visitor: 'vid-1',
        },
      },
      expect.objectContaining({
        type: 'payment',
        payment: expect.objectContaining({
          id: first.paymentId,
          kind: 'subscription',
          visitor: 'vid-2',
          subscription_id: first.subscription,
        }),
      }),
      // Paddle copies the subscription's custom data to its renewals: the visitor comes along
      expect.objectContaining({
        type: 'payment',
        at: T + 30 * 86_400_000,
        payment: expect.objectContaining({
          id: renewal.paymentId,
          kind: 'renewal',
          subscription_id: first.subscription,
          visitor: 'vid-2',
        }),
      }),
      // each refund once, on its approval (adjustment.created is still pending_approval)
      {
        id: refund1.refundId,
        at: T + 3_600_000,
        test: false,
        type: 'refund',
        refund: { id: refund1.refundId, payment_id: one.paymentId, amount: 5000, currency: 'EUR' },
      },
      {
        id: refund2.refundId,
        at: T + 7_200_000,
        test: false,
        type: 'refund',
        refund: { id: refund2.refundId, payment_id: one.paymentId, amount: 2000, currency: 'EUR' },
      },
    ]);
    expect(refund1.deliveries.map((d) => JSON.parse(d.body).event_type)).toEqual([
      'adjustment.created',
      'adjustment.updated',
    ]);
    expect(paddle.toLedger(JSON.parse(refund1.deliveries[0]!.body), 'webhook')).toEqual([]);

    const at = { apiKey: own.keys.live, base: own.url };
    const records = await paddle.reconcile(at, T - 86_400_000);
    const fromSync = records.flatMap((r) => paddle.toLedger(r.payload, 'sync'));
    expect(ids(fromSync)).toEqual(ids(fromHooks));
    // the same events, field for field: nothing differs between a webhook and a reconciliation
    expect([...fromSync].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
      [...fromHooks].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    // a second read of the same states gives the same keys: nothing is stored twice
    const again = await paddle.reconcile(at, T - 86_400_000);
    expect(again.map((r) => r.key)).toEqual(records.map((r) => r.key));
    // the sandbox host has none of the live payments; a window after them reads none
    expect(await paddle.reconcile({ ...at, apiKey: own.keys.sandbox, environment: 'sandbox' }, 0)).toEqual(
      [],
    );
    expect(await paddle.reconcile(at, T + 60 * 86_400_000)).toEqual([]);
    await own.close();
  });

  it('reads every page of adjustments, and stops at the ones older than the window', async () => {
    const secret = 'pdl_ntfset_pages';
    const at = T + 100 * 86_400_000;
    const sale = fake.sale({ amount: 100_000, tax: 0, currency: 'GBP', at, kind: 'one_time' }, secret);
    const refunds = Array.from({ length: 60 }, (_, i) =>
      fake.refund(sale.paymentId, 100, at + i * 1000, secret),
    );
    const records = await paddle.reconcile(target(fake.keys.live), at - 1000);
    const fromSync = records.flatMap((r) => paddle.toLedger(r.payload, 'sync'));
    expect(
      fromSync
        .filter((e) => e.type === 'refund')
        .map((e) => e.id)
        .sort(),
    ).toEqual(refunds.map((r) => r.refundId).sort());
    expect(fromSync.filter((e) => e.type === 'payment').map((e) => e.id)).toEqual([sale.paymentId]);
  });

  it('maps chargebacks to one dispute per transaction: warned and open, then lost, or won back', () => {
    const warning = adjustment('adjustment.created', {
      id: 'adj_01hwarning00000000000000000',
      action: 'chargeback_warning',
      status: 'approved',
      total: '4900',
      created: '2026-11-01T10:00:00.123456Z',
    });
    const chargeback = adjustment('adjustment.created', {
      id: 'adj_01hchargeback0000000000000',
      action: 'chargeback',
      status: 'approved',
      total: '4900',
      created: '2026-11-08T10:00:00Z',
    });
    const reversal = adjustment('adjustment.created', {
      id: 'adj_01hreverse000000000000000',
      action: 'chargeback_reverse',
      status: 'approved',
      total: '4900',
      created: '2026-11-20T10:00:00Z',
    });
    const dispute = {
      id: 'txn_01h8bxpvx398a7zbawb77y0kp5:chargeback',
      payment_id: 'txn_01h8bxpvx398a7zbawb77y0kp5',
      amount: 4900,
      currency: 'EUR',
    };
    expect(paddle.toLedger(warning, 'webhook')).toEqual([
      {
        id: 'adj_01hwarning00000000000000000',
        at: Date.parse('2026-11-01T10:00:00.123Z'),
        test: false,
        type: 'dispute',
        dispute: { ...dispute, status: 'open' },
      },
    ]);
    expect(paddle.toLedger(chargeback, 'webhook')).toMatchObject([
      { type: 'dispute', at: Date.parse('2026-11-08T10:00:00Z'), dispute: { ...dispute, status: 'lost' } },
    ]);
    expect(paddle.toLedger(reversal, 'webhook')).toMatchObject([
      { type: 'dispute', dispute: { ...dispute, status: 'won' } },
    ]);
    // read back by reconciliation, the adjustment is the same dispute
    expect(paddle.toLedger(chargeback.data, 'sync')).toEqual(paddle.toLedger(chargeback, 'webhook'));
  });

  it('ignores what moves no money: pending or rejected refunds, credits, other events, zero totals, foreign shapes', () => {
    const pending = adjustment('adjustment.created', {
      id: 'adj_01hpending0000000000000000',
      action: 'refund',
      status: 'pending_approval',
      total: '1000',
      created: '2026-11-01T10:00:00Z',
    });
    expect(paddle.toLedger(pending, 'webhook')).toEqual([]);
    const rejected = adjustment('adjustment.updated', {
      id: 'adj_01hpending0000000000000000',
      action: 'refund',
      status: 'rejected',
      total: '1000',
      created: '2026-11-01T10:00:00Z',
      updated: '2026-11-02T10:00:00Z',
    });
    expect(paddle.toLedger(rejected, 'webhook')).toEqual([]);
    const credit = adjustment('adjustment.created', {
      id: 'adj_01hcredit00000000000000000',
      action: 'credit',
      status: 'approved',
      total: '1000',
      created: '2026-11-01T10:00:00Z',
    });
    expect(paddle.toLedger(credit, 'webhook')).toEqual([]);
    // a reversed refund is the same refund at zero, so it stops counting
    const reversed = adjustment('adjustment.updated', {
      id: 'adj_01hreversed000000000000000',
      action: 'refund',
      status: 'reversed',
      total: '1000',
      created: '2026-11-01T10:00:00Z',
      updated: '2026-11-05T10:00:00Z',
    });
    expect(paddle.toLedger(reversed, 'webhook')).toMatchObject([
      { type: 'refund', at: Date.parse('2026-11-05T10:00:00Z'), refund: { amount: 0 } },
    ]);
    const sale = fake.sale({ amount: 700, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, 'pdl_ntfset_x');
    const event = JSON.parse(sale.deliveries[0]!.body);
    expect(paddle.toLedger({ ...event, event_type: 'transaction.paid' }, 'webhook')).toEqual([]);
    expect(paddle.toLedger({ ...event, event_type: 'subscription.updated' }, 'webhook')).toEqual([]);
    const trial = {
      ...event.data,
      details: { totals: { ...event.data.details.totals, grand_total: '0', total: '0' } },
    };
    expect(paddle.toLedger({ ...event, data: trial }, 'webhook')).toEqual([]);
    expect(paddle.toLedger({ ...event, data: { ...event.data, status: 'billed' } }, 'webhook')).toEqual([]);
    expect(paddle.toLedger('not an event', 'webhook')).toEqual([]);
    expect(paddle.toLedger({ event_type: 'transaction.completed', data: null }, 'webhook')).toEqual([]);
    // sandbox payloads look like live ones: the connection's environment marks them as test
    expect(paddle.toLedger(event, 'webhook')).toMatchObject([{ test: false }]);
  });

  it('redacts the payer: custom data (the visitor), customer, card holder go; amounts and ids stay', () => {
    const sale = fake.sale(
      { amount: 500, tax: 0, currency: 'EUR', visitor: 'vid-9', at: T, kind: 'subscription' },
      'pdl_ntfset_r',
    );
    const body = JSON.parse(sale.deliveries[0]!.body);
    expect(JSON.stringify(body)).toMatch(/vid-9|ctm_|Ada Buyer/);
    const redacted = JSON.stringify(paddle.redact(body));
    expect(redacted).not.toMatch(/vid-9|ctm_|sub_|Ada Buyer|4242/);
    expect(paddle.toLedger(JSON.parse(redacted), 'webhook')).toMatchObject([
      { payment: { amount: 500, id: sale.paymentId, kind: 'subscription', visitor: undefined } },
    ]);
  });
});
