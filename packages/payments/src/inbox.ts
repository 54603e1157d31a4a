import type { ControlDb } from '@footfall/control';
import type { WebhookTarget } from './connections.ts';
import type { CustomEvent } from './custom-event.ts';
import { applyToLedger, emailHashOf } from './ledger.ts';

/**
 * Stores one verified webhook in the inbox and applies it to the ledger, in one SQLite transaction
 * (app.db runs with synchronous = FULL: the commit is fsynced before this returns, so the answer
 * that follows is a promise kept). The same event id twice on one connection is one event: the
 * second is acknowledged and changes nothing.
 */
export function receiveWebhook(
  ctl: ControlDb,
  target: WebhookTarget,
  event: CustomEvent,
  body: Uint8Array,
): { duplicate: boolean } {
  const raw = ctl.raw;
  const email = event.type === 'payment' ? event.payment.email : undefined;
  const emailHash = emailHashOf(ctl, email);
  const store = raw.transaction((): { duplicate: boolean } => {
    const now = ctl.now();
    const inserted = raw
      .prepare(
        `INSERT INTO webhook_inbox (connection_id, site_id, event_id, received_at, body, email_hash)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (connection_id, event_id) DO NOTHING`,
      )
      .run(target.id, target.siteId, event.id, now, Buffer.from(body), emailHash);
    if (inserted.changes === 0) return { duplicate: true };
    applyToLedger(raw, {
      seq: Number(inserted.lastInsertRowid),
      connectionId: target.id,
      siteId: target.siteId,
      mode: target.mode,
      event,
      emailHash,
    });
    raw.prepare('UPDATE payment_connections SET last_event_at = ? WHERE id = ?').run(now, target.id);
    return { duplicate: false };
  });
  return store.immediate();
}
