import type { CustomEvent } from '../../custom-event.ts';
import type { ProviderAdapter } from '../types.ts';
import type { FakeProviderKit, SaleResult } from './kit.ts';

/** The id of a ledger event's object: its payment, refund or dispute. */
export const objectId = (e: CustomEvent) =>
  e.type === 'payment' ? e.payment.id : e.type === 'refund' ? e.refund.id : e.dispute.id;

const byId = (events: CustomEvent[]) =>
  [...events].sort((a, b) => (objectId(a) < objectId(b) ? -1 : objectId(a) > objectId(b) ? 1 : 0));

/**
 * The same sales seen both ways, on a fresh fake account: a one-time payment (with the visitor and
 * an e-mail), a subscription's first payment (with the visitor), its renewal 30 days later, and two
 * partial refunds of the one-time payment. Answers the ledger events of the webhooks (in delivery
 * order) and of a reconciliation from just before the sales, each sorted by object id, plus the
 * keys of two reconciliations in a row (which must be equal: nothing is stored twice).
 */
export async function salesBothWays(
  adapter: ProviderAdapter,
  kit: FakeProviderKit,
  at: number,
  secret: string,
) {
  const api = await kit.start();
  try {
    const one = api.sale(
      {
        amount: 11900,
        tax: 1900,
        currency: 'eur',
        visitor: 'vid-1',
        email: 'ada@example.com',
        at,
        kind: 'one_time',
      },
      secret,
    );
    const first = api.sale(
      { amount: 2000, tax: 0, currency: 'EUR', visitor: 'vid-2', at: at + 1000, kind: 'subscription' },
      secret,
    );
    const renewal = api.sale(
      {
        amount: 2000,
        tax: 0,
        currency: 'EUR',
        at: at + 30 * 86_400_000,
        kind: 'renewal',
        subscription: first.subscription,
      },
      secret,
    );
    const refund1 = api.refund(one.paymentId, 5000, at + 3_600_000, secret);
    const refund2 = api.refund(one.paymentId, 2000, at + 7_200_000, secret);
    const deliveries = [one, first, renewal].flatMap((s: SaleResult) => s.deliveries);
    const refundDeliveries = [refund1, refund2].flatMap((r) => r.deliveries);
    const fromHooks = [...deliveries, ...refundDeliveries].flatMap((d) =>
      adapter.toLedger(JSON.parse(d.body), 'webhook'),
    );
    const target = { apiKey: api.keys.live, base: api.url, environment: 'live' as const };
    const records = await adapter.reconcile(target, at - 86_400_000);
    const again = await adapter.reconcile(target, at - 86_400_000);
    const fromSync = records.flatMap((r) => adapter.toLedger(r.payload, 'sync'));
    const later = await adapter.reconcile(target, at + 60 * 86_400_000);
    return {
      one,
      first,
      renewal,
      refund1,
      refund2,
      fromHooks,
      hooksById: byId(fromHooks),
      syncById: byId(fromSync),
      keys: records.map((r) => r.key),
      keysAgain: again.map((r) => r.key),
      laterRecords: later,
    };
  } finally {
    await api.close();
  }
}
