import type { ControlDb } from '@footfall/control';
import type { WebhookTarget } from './connections.ts';
import type { CustomEvent } from './custom-event.ts';
import { applyToLedger, emailHashOf } from './ledger.ts';

/** One payload to keep: a verified webhook, or an object reconciliation read from the provider's API. */
export interface Delivery {
  /** the inbox key: a provider's event id, the custom event's id, or `sync:<object state>` */
  eventId: string;
  body: Uint8Array;
  /** what the payload means for the ledger (possibly nothing) */
  events: CustomEvent[];
  source: 'webhook' | 'sync';
  /**
   * the payer's e-mail address when no payment event of the payload names one (an event that moves
   * no money): kept as its keyed hash, so erasing that person finds the payload
   */
  email?: string | undefined;
}

/**
 * Stores one payload in the inbox and applies its events to the ledger, in one SQLite transaction
 * (app.db runs with synchronous = FULL: the commit is fsynced before this returns, so the answer
 * that follows is a promise kept). The same event id twice on one connection is one event: the
 * second is acknowledged and changes nothing.
 */
export function storeDelivery(
  ctl: ControlDb,
  target: Pick<WebhookTarget, 'id' | 'siteId' | 'environment'>,
  delivery: Delivery,
): { duplicate: boolean } {
  const raw = ctl.raw;
  let email: string | undefined;
  for (const e of delivery.events) if (e.type === 'payment' && e.payment.email) email ??= e.payment.email;
  email ??= delivery.email;
  const emailHash = emailHashOf(ctl, email);
  const store = raw.transaction((): { duplicate: boolean } => {
    const now = ctl.now();
    const inserted = raw
      .prepare(
        `INSERT INTO webhook_inbox (connection_id, site_id, event_id, received_at, body, email_hash, source)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (connection_id, event_id) DO NOTHING`,
      )
      .run(
        target.id,
        target.siteId,
        delivery.eventId,
        now,
        Buffer.from(delivery.body),
        emailHash,
        delivery.source,
      );
    if (inserted.changes === 0) return { duplicate: true };
    for (const event of delivery.events) {
      applyToLedger(raw, {
        seq: Number(inserted.lastInsertRowid),
        connectionId: target.id,
        siteId: target.siteId,
        mode: target.environment,
        event,
        emailHash,
      });
    }
    if (delivery.source === 'webhook') {
      raw.prepare('UPDATE payment_connections SET last_event_at = ? WHERE id = ?').run(now, target.id);
    }
    return { duplicate: false };
  });
  return store.immediate();
}

/** A custom event, verified by the gateway: stored under its own id. */
export function receiveWebhook(
  ctl: ControlDb,
  target: WebhookTarget,
  event: CustomEvent,
  body: Uint8Array,
): { duplicate: boolean } {
  return storeDelivery(ctl, target, { eventId: event.id, body, events: [event], source: 'webhook' });
}
