import type { ControlDb } from '@footfall/control';
import type { ConnectionMode, Provider } from './connections.ts';
import { type CustomEvent, parseCustomEvent } from './custom-event.ts';
import { loadProvider } from './providers/index.ts';
import type { ProviderAdapter, ProviderId } from './providers/types.ts';

/**
 * The ledger: payments, refunds and disputes, derived from the webhook inbox. Every rule here is
 * order-independent (README.md, Invariants): applying the inbox rows in any order, or again, gives
 * the same ledger, so `reprocess` can rebuild it at any time.
 */

/** One stored webhook, as the ledger reads it. */
export interface InboxEvent {
  seq: number;
  connectionId: string;
  siteId: string;
  mode: ConnectionMode;
  event: CustomEvent;
  /** the payer's e-mail as a keyed hash (never the address) */
  emailHash: string | null;
}

/** What the e-mail of a payload becomes in the ledger and the inbox index. */
export const emailHashOf = (ctl: ControlDb, email: string | undefined): string | null =>
  email?.trim() ? ctl.cipher.keyedHash(email.trim().toLowerCase(), 'payer-email') : null;

/** Applies one inbox row to the ledger (call inside the transaction that stored the row). */
export function applyToLedger(raw: ControlDb['raw'], row: InboxEvent): void {
  const { event } = row;
  const test = event.test || row.mode === 'sandbox' ? 1 : 0;
  const common = {
    connection_id: row.connectionId,
    site_id: row.siteId,
    test,
    inbox_seq: row.seq,
    at: event.at,
  };
  if (event.type === 'payment') {
    const p = event.payment;
    // the event with the later time wins, but who paid is kept from whichever event knew it (a
    // checkout event carries the visitor, the charge read back by reconciliation may not)
    raw
      .prepare(
        `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind,
           test, customer_id, subscription_id, email_hash, visitor, inbox_seq)
         VALUES (@connection_id, @payment_id, @site_id, @at, @amount, @tax, @currency, @kind, @test,
           @customer_id, @subscription_id, @email_hash, @visitor, @inbox_seq)
         ON CONFLICT (connection_id, payment_id) DO UPDATE SET
           ${(['at', 'amount', 'tax', 'currency', 'kind', 'test', 'inbox_seq'] as const)
             .map((c) => `${c} = CASE WHEN ${PAYMENT_LATER} THEN excluded.${c} ELSE ledger_payments.${c} END`)
             .join(', ')},
           ${(['customer_id', 'subscription_id', 'email_hash', 'visitor'] as const)
             .map(
               (c) => `${c} = CASE WHEN ${PAYMENT_LATER} THEN coalesce(excluded.${c}, ledger_payments.${c})
                 ELSE coalesce(ledger_payments.${c}, excluded.${c}) END`,
             )
             .join(', ')}`,
      )
      .run({
        ...common,
        payment_id: p.id,
        amount: p.amount,
        tax: p.tax,
        currency: p.currency,
        kind: p.kind,
        customer_id: p.customer_id ?? null,
        subscription_id: p.subscription_id ?? null,
        email_hash: row.emailHash,
        visitor: p.visitor?.trim() || null,
      });
    return;
  }
  if (event.type === 'refund') {
    const r = event.refund;
    // per refund id: a refund sent twice (or corrected) is one refund, never added up
    raw
      .prepare(
        `INSERT INTO ledger_refunds (connection_id, refund_id, payment_id, site_id, at, amount, currency,
           test, inbox_seq)
         VALUES (@connection_id, @refund_id, @payment_id, @site_id, @at, @amount, @currency, @test, @inbox_seq)
         ON CONFLICT (connection_id, refund_id) DO UPDATE SET
           payment_id = excluded.payment_id, at = excluded.at, amount = excluded.amount,
           currency = excluded.currency, test = excluded.test, inbox_seq = excluded.inbox_seq
         WHERE excluded.at >= ledger_refunds.at`,
      )
      .run({ ...common, refund_id: r.id, payment_id: r.payment_id, amount: r.amount, currency: r.currency });
    return;
  }
  const d = event.dispute;
  // opened at its earliest event; its status is the one of its latest event, and at the same time
  // a decision (won, lost) outranks `open`
  raw
    .prepare(
      `INSERT INTO ledger_disputes (connection_id, dispute_id, payment_id, site_id, amount, currency, test,
         opened_at, status, status_at, inbox_seq)
       VALUES (@connection_id, @dispute_id, @payment_id, @site_id, @amount, @currency, @test, @at, @status,
         @at, @inbox_seq)
       ON CONFLICT (connection_id, dispute_id) DO UPDATE SET
         opened_at = min(ledger_disputes.opened_at, excluded.opened_at),
         payment_id = CASE WHEN ${LATER} THEN excluded.payment_id ELSE ledger_disputes.payment_id END,
         amount = CASE WHEN ${LATER} THEN excluded.amount ELSE ledger_disputes.amount END,
         currency = CASE WHEN ${LATER} THEN excluded.currency ELSE ledger_disputes.currency END,
         test = CASE WHEN ${LATER} THEN excluded.test ELSE ledger_disputes.test END,
         inbox_seq = CASE WHEN ${LATER} THEN excluded.inbox_seq ELSE ledger_disputes.inbox_seq END,
         status = CASE WHEN ${LATER} THEN excluded.status ELSE ledger_disputes.status END,
         status_at = CASE WHEN ${LATER} THEN excluded.status_at ELSE ledger_disputes.status_at END`,
    )
    .run({
      ...common,
      dispute_id: d.id,
      payment_id: d.payment_id,
      amount: d.amount,
      currency: d.currency,
      status: d.status,
    });
}

/** Whether a payment event replaces the stored line's amounts: as late or later. */
const PAYMENT_LATER = 'excluded.at >= ledger_payments.at';

/** Whether a dispute event replaces the stored status: later, or as late and a decision. */
const LATER = `(excluded.status_at > ledger_disputes.status_at
  OR (excluded.status_at = ledger_disputes.status_at AND excluded.status <> 'open'))`;

/** The provider adapters a rebuild needs, loaded before its (synchronous) transaction starts. */
export type Adapters = ReadonlyMap<ProviderId, ProviderAdapter>;

/** Loads the adapters of the providers a site's connections use (every site's when none is named). */
export async function adaptersFor(ctl: ControlDb, siteId?: string): Promise<Adapters> {
  const rows = (
    siteId === undefined
      ? ctl.raw.prepare('SELECT DISTINCT provider FROM payment_connections').all()
      : ctl.raw.prepare('SELECT DISTINCT provider FROM payment_connections WHERE site_id = ?').all(siteId)
  ) as { provider: Provider }[];
  const ids = rows.map((r) => r.provider).filter((p): p is ProviderId => p !== 'custom');
  return new Map(await Promise.all(ids.map(async (id) => [id, await loadProvider(id)] as const)));
}

/**
 * Reads a stored payload back into the events it was acknowledged as; null when it no longer
 * parses (or its provider's adapter was not loaded).
 */
export function readStored(
  adapters: Adapters,
  provider: Provider,
  source: 'webhook' | 'sync',
  body: Buffer,
): CustomEvent[] | null {
  try {
    const json: unknown = JSON.parse(body.toString('utf8'));
    if (provider === 'custom') return [parseCustomEvent(json)];
    const adapter = adapters.get(provider);
    return adapter ? adapter.toLedger(json, source) : null;
  } catch {
    // counted by the caller
  }
  return null;
}

interface StoredRow {
  seq: number;
  connection_id: string;
  site_id: string;
  body: Buffer;
  email_hash: string | null;
  source: 'webhook' | 'sync';
  provider: Provider;
  mode: ConnectionMode;
}

export interface ReprocessResult {
  events: number;
  payments: number;
  refunds: number;
  disputes: number;
  /** stored payloads this version cannot read (kept in the inbox, left out of the ledger) */
  unreadable: number;
}

/**
 * Rebuilds a site's ledger from its inbox, in one transaction: the old ledger of the site is
 * dropped and every stored payload applied again. Webhooks arriving meanwhile wait for it.
 */
export async function reprocessLedger(ctl: ControlDb, siteId: string): Promise<ReprocessResult> {
  const adapters = await adaptersFor(ctl, siteId);
  return ctl.raw.transaction(() => rebuildLedger(ctl.raw, siteId, adapters)).immediate();
}

/** reprocessLedger's work, to run inside a transaction the caller holds. */
export function rebuildLedger(raw: ControlDb['raw'], siteId: string, adapters: Adapters): ReprocessResult {
  // read in pages by seq: a statement being iterated cannot share the connection with the writes
  const page = raw.prepare(
    `SELECT i.seq, i.connection_id, i.site_id, i.body, i.email_hash, i.source, c.provider, c.mode
     FROM webhook_inbox i JOIN payment_connections c ON c.id = i.connection_id
     WHERE i.site_id = ? AND i.seq > ? ORDER BY i.seq LIMIT 500`,
  );
  for (const table of ['ledger_payments', 'ledger_refunds', 'ledger_disputes']) {
    raw.prepare(`DELETE FROM ${table} WHERE site_id = ?`).run(siteId);
  }
  let events = 0;
  let unreadable = 0;
  for (let after = 0; ; ) {
    const rows = page.all(siteId, after) as StoredRow[];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.seq;
    for (const r of rows) {
      const read = readStored(adapters, r.provider, r.source, r.body);
      if (read === null) {
        unreadable++;
        continue;
      }
      for (const event of read) {
        applyToLedger(raw, {
          seq: r.seq,
          connectionId: r.connection_id,
          siteId: r.site_id,
          mode: r.mode,
          event,
          emailHash: r.email_hash,
        });
      }
      events++;
    }
  }
  const count = (table: string) =>
    (raw.prepare(`SELECT count(*) AS n FROM ${table} WHERE site_id = ?`).get(siteId) as { n: number }).n;
  return {
    events,
    payments: count('ledger_payments'),
    refunds: count('ledger_refunds'),
    disputes: count('ledger_disputes'),
    unreadable,
  };
}
