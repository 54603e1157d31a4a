import type { ControlDb } from '@footfall/control';
import { emailHashOf, rebuildLedger } from './ledger.ts';

/** What a payload keeps after its payer is erased: the money, not the person. */
const PERSONAL = ['email', 'customer_id', 'subscription_id', 'visitor'] as const;

export interface Erasure {
  /** stored webhooks whose personal fields were removed */
  payloads: number;
  /** sites whose ledger was rebuilt */
  sites: string[];
}

/**
 * Answers a data request for an e-mail: every stored webhook of that payer (found by the keyed
 * hash of the address, then by the customer and subscription ids those payments carried) loses
 * its e-mail, customer id, subscription id and visitor id, and the ledgers of the sites concerned
 * are rebuilt. The amounts stay, so revenue totals do not change, but the payments can no longer
 * be tied to the person or to their visits (they count as unattributed).
 */
export function erasePayer(ctl: ControlDb, email: string): Erasure {
  const hash = emailHashOf(ctl, email);
  if (hash === null) return { payloads: 0, sites: [] };
  const raw = ctl.raw;
  const run = raw.transaction((): Erasure => {
    const own = raw
      .prepare(
        'SELECT DISTINCT site_id, customer_id, subscription_id FROM ledger_payments WHERE email_hash = ?',
      )
      .all(hash) as { site_id: string; customer_id: string | null; subscription_id: string | null }[];
    const customers = new Set(
      own.flatMap((p) => (p.customer_id ? [`${p.site_id}\u0000${p.customer_id}`] : [])),
    );
    const subscriptions = new Set(
      own.flatMap((p) => (p.subscription_id ? [`${p.site_id}\u0000${p.subscription_id}`] : [])),
    );
    const candidates = raw
      .prepare(
        `SELECT seq, site_id, body, email_hash FROM webhook_inbox
         WHERE email_hash = ? OR site_id IN (SELECT DISTINCT site_id FROM ledger_payments WHERE email_hash = ?)`,
      )
      .all(hash, hash) as { seq: number; site_id: string; body: Buffer; email_hash: string | null }[];
    const update = raw.prepare('UPDATE webhook_inbox SET body = ?, email_hash = NULL WHERE seq = ?');
    const sites = new Set<string>();
    let payloads = 0;
    for (const row of candidates) {
      let body: { payment?: Record<string, unknown> };
      try {
        body = JSON.parse(row.body.toString('utf8'));
      } catch {
        continue;
      }
      const p = body.payment;
      const theirs =
        row.email_hash === hash ||
        (p !== undefined &&
          ((typeof p.customer_id === 'string' && customers.has(`${row.site_id}\u0000${p.customer_id}`)) ||
            (typeof p.subscription_id === 'string' &&
              subscriptions.has(`${row.site_id}\u0000${p.subscription_id}`))));
      if (!theirs || p === undefined) continue;
      for (const field of PERSONAL) delete p[field];
      update.run(Buffer.from(JSON.stringify(body)), row.seq);
      sites.add(row.site_id);
      payloads++;
    }
    // in the same transaction: no moment where the ledger still holds what the inbox lost
    for (const site of sites) rebuildLedger(raw, site);
    return { payloads, sites: [...sites].sort() };
  });
  return run.immediate();
}
