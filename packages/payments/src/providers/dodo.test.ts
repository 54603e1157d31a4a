import DodoPayments from 'dodopayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DODO_EVENTS, dodo } from './dodo.ts';
import { salesBothWays } from './testing/agreement.ts';
import { dodoKit } from './testing/dodo.ts';
import { type FakeApi, headerOf, providerFailure, startJsonServer } from './testing/kit.ts';

let fake: FakeApi;
beforeAll(async () => {
  fake = await dodoKit.start();
});
afterAll(() => fake.close());

const target = (apiKey: string, base = fake.url) => ({ apiKey, base });
const T = Date.UTC(2026, 10, 20, 12);

/** A Dodo dispute webhook, as `dispute.*` events carry it. */
const disputeEvent = (type: string, status: string, timestamp: string) => ({
  business_id: 'bus_Ffl',
  type,
  timestamp,
  data: {
    payload_type: 'Dispute',
    dispute_id: 'dsp_Ffl1',
    payment_id: 'pay_Ffl1',
    business_id: 'bus_Ffl',
    amount: '4900',
    currency: 'EUR',
    dispute_status: status,
    dispute_stage: 'dispute',
    created_at: '2026-11-01T10:00:00Z',
    remarks: null,
  },
});

describe('the Dodo Payments adapter', () => {
  it('connects through the official client: live or test mode found by asking, the webhook made with the fixed events, its secret read', async () => {
    const live = await dodo.connect(target(fake.keys.live), 'https://stats.example.com/webhooks/dodo/a');
    expect(live).toMatchObject({
      environment: 'live',
      signingSecret: expect.stringMatching(/^whsec_/),
      endpointId: expect.stringMatching(/^whk_/),
    });
    const test = await dodo.connect(target(fake.keys.sandbox), 'https://stats.example.com/webhooks/dodo/b');
    expect(test.environment).toBe('sandbox');
    expect(fake.endpoints().map((e) => e.events)).toEqual([[...DODO_EVENTS], [...DODO_EVENTS]]);
    expect(fake.secretFor('https://stats.example.com/webhooks/dodo/b')).toBe(test.signingSecret);
    await dodo.disconnect({ ...target(fake.keys.sandbox), environment: 'sandbox' }, test.endpointId);
    await dodo.disconnect({ ...target(fake.keys.live), environment: 'live' }, live.endpointId);
    expect(fake.endpoints()).toEqual([]);
  });

  it('says which: key refused in both modes, a forbidden request, Dodo unreachable', async () => {
    expect(
      await providerFailure(dodo.connect(target(fake.keys.rejected), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'key_rejected',
      message: expect.stringContaining('Dodo Payments did not accept'),
    });
    const forbidden = await startJsonServer((req) =>
      req.method === 'POST'
        ? { status: 403, body: { code: 'FORBIDDEN', message: 'Forbidden' } }
        : { status: 200, body: { items: [] } },
    );
    expect(
      await providerFailure(dodo.connect(target('any', forbidden.url), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'missing_permission',
    });
    await forbidden.close();
    const closed = await startJsonServer(() => ({ status: 200 }));
    await closed.close();
    expect(
      await providerFailure(dodo.connect(target(fake.keys.live, closed.url), 'https://x.example/w')),
    ).toMatchObject({
      reason: 'unreachable',
      message: expect.stringContaining('Dodo Payments could not be reached'),
    });
    expect(fake.endpoints()).toEqual([]);
  });

  it("verifies Standard Webhooks as Dodo's own client does, and refuses tampered, stale or foreign ones", () => {
    const secret = `whsec_${Buffer.from('a dodo secret of 24 bytes').toString('base64')}`;
    const sale = fake.sale({ amount: 1000, tax: 0, currency: 'EUR', at: T, kind: 'one_time' }, secret);
    const d = sale.deliveries[0]!;
    const body = new TextEncoder().encode(d.body);
    const sdk = new DodoPayments({ bearerToken: 'unused', webhookKey: secret });
    expect(sdk.webhooks.unwrap(d.body, { headers: d.headers })).toMatchObject({ type: 'payment.succeeded' });
    expect(() => sdk.webhooks.unwrap(`${d.body} `, { headers: d.headers })).toThrow();
    const now = Date.now();
    expect(dodo.verify({ secret, header: headerOf(d.headers), body, nowMs: now })).toBeNull();
    const other = `whsec_${Buffer.from('another secret').toString('base64')}`;
    expect(dodo.verify({ secret: other, header: headerOf(d.headers), body, nowMs: now })).toMatchObject({
      code: 'mismatch',
    });
    const tampered = new TextEncoder().encode(d.body.replace('"total_amount":1000', '"total_amount":9000'));
    expect(dodo.verify({ secret, header: headerOf(d.headers), body: tampered, nowMs: now })).toMatchObject({
      code: 'mismatch',
    });
    // five minutes and a second before the signature's own time (not the test's clock)
    const signedMs = Number(d.headers['webhook-timestamp']) * 1000;
    expect(
      dodo.verify({ secret, header: headerOf(d.headers), body, nowMs: signedMs - 301_000 }),
    ).toMatchObject({
      code: 'stale',
    });
    expect(dodo.verify({ secret, header: () => undefined, body, nowMs: now })).toMatchObject({
      code: 'missing',
    });
    expect(dodo.verify({ secret: 'whsec_!!', header: headerOf(d.headers), body, nowMs: now })).toMatchObject({
      code: 'mismatch',
    });
    expect(dodo.deliveryId(JSON.parse(d.body), headerOf(d.headers))).toBe(d.headers['webhook-id']);
  });

  it('maps payments (one-time, subscription) and each refund; reconciliation through the client gives the same events', async () => {
    const both = await salesBothWays(dodo, dodoKit, T, `whsec_${Buffer.from('map').toString('base64')}`);
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
          customer_id: expect.stringMatching(/^cus_/),
          subscription_id: undefined,
          email: 'ada@example.com',
          visitor: 'vid-1',
        },
      },
      // Dodo does not say which payment of a subscription is its first: each is a renewal, and the
      // earliest one anchors the credit
      expect.objectContaining({
        payment: expect.objectContaining({
          kind: 'renewal',
          subscription_id: both.first.subscription,
          visitor: 'vid-2',
        }),
      }),
      expect.objectContaining({
        at: T + 30 * 86_400_000,
        payment: expect.objectContaining({ kind: 'renewal', subscription_id: both.first.subscription }),
      }),
      {
        id: both.refund1.refundId,
        at: T + 3_600_000,
        test: false,
        type: 'refund',
        refund: { id: both.refund1.refundId, payment_id: both.one.paymentId, amount: 5000, currency: 'EUR' },
      },
      expect.objectContaining({ refund: expect.objectContaining({ amount: 2000 }) }),
    ]);
    // the list leaves the tax out: reconciliation reads each payment whole, so nothing differs
    expect(both.syncById).toEqual(both.hooksById);
    expect(both.keysAgain).toEqual(both.keys);
    expect(both.laterRecords).toEqual([]);
  });

  it('maps a dispute through its steps: opened and challenged hold, lost or accepted take back, won keeps', () => {
    const statuses = [
      ['dispute.opened', 'dispute_opened', 'open'],
      ['dispute.challenged', 'dispute_challenged', 'open'],
      ['dispute.lost', 'dispute_lost', 'lost'],
      ['dispute.accepted', 'dispute_accepted', 'lost'],
      ['dispute.won', 'dispute_won', 'won'],
      ['dispute.expired', 'dispute_expired', 'won'],
    ] as const;
    for (const [type, status, ledger] of statuses) {
      expect(dodo.toLedger(disputeEvent(type, status, '2026-11-08T10:00:00Z'), 'webhook')).toEqual([
        {
          id: 'dsp_Ffl1',
          at: Date.parse('2026-11-08T10:00:00Z'),
          test: false,
          type: 'dispute',
          dispute: { id: 'dsp_Ffl1', payment_id: 'pay_Ffl1', amount: 4900, currency: 'EUR', status: ledger },
        },
      ]);
    }
  });

  it('ignores what moves no money, and redacts the payer', () => {
    const sale = fake.sale(
      { amount: 500, tax: 0, currency: 'EUR', visitor: 'vid-9', at: T, kind: 'one_time', email: 'x@y.z' },
      `whsec_${Buffer.from('r').toString('base64')}`,
    );
    const event = JSON.parse(sale.deliveries[0]!.body);
    expect(dodo.toLedger({ ...event, type: 'payment.failed' }, 'webhook')).toEqual([]);
    expect(dodo.toLedger({ ...event, data: { ...event.data, status: 'failed' } }, 'webhook')).toEqual([]);
    expect(dodo.toLedger({ ...event, type: 'subscription.active' }, 'webhook')).toEqual([]);
    expect(dodo.toLedger('not an event', 'webhook')).toEqual([]);
    expect(JSON.stringify(event)).toMatch(/vid-9|x@y\.z|Ada Buyer|Hauptstr/);
    const redacted = JSON.stringify(dodo.redact(event));
    expect(redacted).not.toMatch(/vid-9|x@y\.z|Ada Buyer|Hauptstr|cus_/);
    expect(dodo.toLedger(JSON.parse(redacted), 'webhook')).toMatchObject([
      { payment: { amount: 500, id: sale.paymentId, visitor: undefined, email: undefined } },
    ]);
  });
});
