import type { ControlDb } from '@footfall/control';
import type { Provider } from './connections.ts';
import { type Adapters, adaptersFor, emailHashOf, readStored, rebuildLedger } from './ledger.ts';

/** What a custom payload keeps after its payer is erased: the money, not the person. */
const PERSONAL = ['email', 'customer_id', 'subscription_id', 'visitor'] as const;

export interface Erasure {
  /** stored webhooks whose personal fields were removed */
  payloads: number;
  /** sites whose ledger was rebuilt */
  sites: string[];
  /** the payer's payments: their amounts stay in the ledger, tied to no person or visit */
  payments: number;
}

interface Candidate {
  seq: number;
  site_id: string;
  body: Buffer;
  email_hash: string | null;
  source: 'webhook' | 'sync';
  provider: Provider;
}

/** A stored payload without its payer's personal data; null when it cannot be read. */
function redacted(adapters: Adapters, row: Candidate): Buffer | null {
  let body: unknown;
  try {
    body = JSON.parse(row.body.toString('utf8'));
  } catch {
    return null;
  }
  if (row.provider !== 'custom') {
    const adapter = adapters.get(row.provider);
    return adapter ? Buffer.from(JSON.stringify(adapter.redact(body))) : null;
  }
  const p = (body as { payment?: Record<string, unknown> }).payment;
  if (p !== undefined) for (const field of PERSONAL) delete p[field];
  return Buffer.from(JSON.stringify(body));
}

/** The stored payloads of a payer (by the keyed hash of their e-mail) and their payments. */
function payerPayloads(
  raw: ControlDb['raw'],
  hash: string,
  adapters: Adapters,
): { rows: Candidate[]; payments: Set<string> } {
  const own = raw
    .prepare(
      `SELECT DISTINCT site_id, connection_id, payment_id, customer_id, subscription_id FROM ledger_payments
       WHERE email_hash = ?`,
    )
    .all(hash) as {
    site_id: string;
    connection_id: string;
    payment_id: string;
    customer_id: string | null;
    subscription_id: string | null;
  }[];
  const keys = new Set<string>();
  for (const p of own) {
    if (p.customer_id) keys.add(`${p.site_id}\u0000c\u0000${p.customer_id}`);
    if (p.subscription_id) keys.add(`${p.site_id}\u0000s\u0000${p.subscription_id}`);
  }
  const candidates = raw
    .prepare(
      `SELECT i.seq, i.site_id, i.body, i.email_hash, i.source, c.provider
       FROM webhook_inbox i JOIN payment_connections c ON c.id = i.connection_id
       WHERE i.email_hash = ?
         OR i.site_id IN (SELECT DISTINCT site_id FROM ledger_payments WHERE email_hash = ?)`,
    )
    .all(hash, hash) as Candidate[];
  // the person's payments: those of their e-mail, and of the customers and subscriptions it had
  const payments = new Set(own.map((p) => `${p.site_id}\u0000${p.payment_id}`));
  const events = new Map(
    candidates.map((row) => [row, readStored(adapters, row.provider, row.source, row.body) ?? []]),
  );
  for (const [row, list] of events) {
    for (const e of list) {
      if (e.type !== 'payment') continue;
      const linked =
        (e.payment.customer_id && keys.has(`${row.site_id}\u0000c\u0000${e.payment.customer_id}`)) ||
        (e.payment.subscription_id && keys.has(`${row.site_id}\u0000s\u0000${e.payment.subscription_id}`));
      if (linked) payments.add(`${row.site_id}\u0000${e.payment.id}`);
    }
  }
  const rows = [...events]
    .filter(
      ([row, list]) =>
        row.email_hash === hash ||
        list.some((e) => {
          const paymentId =
            e.type === 'payment'
              ? e.payment.id
              : e.type === 'refund'
                ? e.refund.payment_id
                : e.dispute.payment_id;
          return payments.has(`${row.site_id}\u0000${paymentId}`);
        }),
    )
    .map(([row]) => row);
  return { rows, payments };
}

/**
 * What a data request for an e-mail would erase, changing nothing: the stored payloads of that
 * payer (as erasePayer finds them), their sites and their payments.
 */
export async function findPayer(ctl: ControlDb, email: string): Promise<Erasure> {
  const hash = emailHashOf(ctl, email);
  if (hash === null) return { payloads: 0, sites: [], payments: 0 };
  const adapters = await adaptersFor(ctl);
  const { rows, payments } = ctl.raw.transaction(() => payerPayloads(ctl.raw, hash, adapters))();
  return {
    payloads: rows.length,
    sites: [...new Set(rows.map((r) => r.site_id))].sort(),
    payments: payments.size,
  };
}

/**
 * Answers a data request for an e-mail: every stored payload of that payer (found by the keyed
 * hash of the address, then by the customer and subscription ids those payments carried, and the
 * refunds and disputes of their payments) loses its personal fields (a provider's payloads through
 * its adapter's `redact`: e-mail, name, address, customer and subscription ids, the visitor id), and
 * the ledgers of the sites concerned are rebuilt. The amounts stay, so revenue totals do not
 * change, but the payments can no longer be tied to the person or to their visits (they count as
 * unattributed).
 */
export async function erasePayer(ctl: ControlDb, email: string): Promise<Erasure> {
  const hash = emailHashOf(ctl, email);
  if (hash === null) return { payloads: 0, sites: [], payments: 0 };
  const adapters = await adaptersFor(ctl);
  const raw = ctl.raw;
  const run = raw.transaction((): Erasure => {
    const { rows, payments } = payerPayloads(raw, hash, adapters);
    const update = raw.prepare('UPDATE webhook_inbox SET body = ?, email_hash = NULL WHERE seq = ?');
    const sites = new Set<string>();
    let payloads = 0;
    for (const row of rows) {
      const body = redacted(adapters, row);
      if (body === null) continue;
      update.run(body, row.seq);
      sites.add(row.site_id);
      payloads++;
    }
    // in the same transaction: no moment where the ledger still holds what the inbox lost
    for (const site of sites) rebuildLedger(raw, site, adapters);
    return { payloads, sites: [...sites].sort(), payments: payments.size };
  });
  return run.immediate();
}
