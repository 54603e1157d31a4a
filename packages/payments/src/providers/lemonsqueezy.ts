import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CustomEvent } from '../custom-event.ts';
import type { SignatureProblem } from '../signature.ts';
import {
  answerOf,
  currencyCode,
  fetchJson,
  idOf,
  isoMs,
  minorUnits,
  obj,
  objects,
  redactPersonal,
  str,
  unreachable,
} from './common.ts';
import {
  type ApiTarget,
  type Environment,
  type ProviderAdapter,
  ProviderError,
  type SyncRecord,
} from './types.ts';

/**
 * The events the webhook is created with. Orders carry one-time payments and a subscription's first
 * payment; subscription invoices carry the renewals (their `initial` invoice is the first order
 * again, so it is skipped); the two `*_refunded` events carry refunds.
 */
export const LEMONSQUEEZY_EVENTS = [
  'order_created',
  'order_refunded',
  'subscription_payment_success',
  'subscription_payment_refunded',
] as const;

/**
 * Lemon Squeezy's API keys carry every permission of the user who made them; a key of a store
 * member who may not manage webhooks is answered 403, named here as the dashboard's setting.
 */
export const LEMONSQUEEZY_PERMISSIONS = { webhooks: 'Settings → Webhooks (store admin)' };

const PRODUCTION = 'https://api.lemonsqueezy.com';

/** Refunds come after their order: an order this much older than the window is still read back. */
const REFUND_SLACK_MS = 60 * 86_400_000;

/**
 * One JSON:API call. Lemon Squeezy has one host for both modes: the key decides (a test-mode key
 * sees only test-mode data).
 */
async function call(
  target: ApiTarget,
  permission: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetchJson('Lemon Squeezy', `${(target.base ?? PRODUCTION).replace(/\/$/, '')}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${target.apiKey}`,
      accept: 'application/vnd.api+json',
      'content-type': 'application/vnd.api+json',
    },
    body,
  });
  return answerOf('Lemon Squeezy', res, permission, (json) => {
    const first = objects(json.errors)[0];
    return first && { detail: str(first.detail) ?? str(first.title) ?? 'no detail' };
  });
}

/** Every resource of a list, newest first, page by page (`page[number]`, up to 100 a page). */
async function* pages(target: ApiTarget, path: string, filter: Record<string, string>) {
  for (let page = 1; page <= 10_000; page++) {
    const query = new URLSearchParams({ ...filter, 'page[number]': String(page), 'page[size]': '100' });
    const answer = await call(target, 'read', 'GET', `${path}?${query}`);
    const data = objects(answer.data);
    yield data;
    const last = obj(obj(answer.meta)?.page)?.lastPage;
    if (data.length === 0 || typeof last !== 'number' || page >= last) return;
  }
}

/** The stores the key sees (a webhook belongs to one store). */
async function stores(target: ApiTarget): Promise<string[]> {
  const answer = await call(target, 'read', 'GET', '/v1/stores');
  return objects(answer.data)
    .map((s) => idOf(s.id))
    .filter((id) => id !== undefined);
}

/**
 * The payment an order or a subscription invoice stands for, and its refunds. Lemon Squeezy keeps
 * no refund objects: an order says how much of it was refunded in all (`refunded_amount`), so the
 * refunds of one payment are one ledger refund (`<payment>:refunds`) whose amount follows that
 * total and whose date is the latest refund's: never added up twice, but two partial refunds on
 * different days show on the later day (docs/payments/lemonsqueezy.md).
 */
function fromResource(
  resource: Record<string, unknown>,
  context: { visitor: string | undefined; test: boolean },
): CustomEvent[] {
  const type = str(resource.type);
  const id = idOf(resource.id);
  const a = obj(resource.attributes);
  if (!a || !id || (type !== 'orders' && type !== 'subscription-invoices')) return [];
  const invoice = type === 'subscription-invoices';
  // a subscription's first payment is its order; the invoice that repeats it is skipped
  if (invoice && str(a.billing_reason) === 'initial') return [];
  const paymentId = invoice ? `subinv_${id}` : `order_${id}`;
  const amount = minorUnits(a.total);
  const tax = minorUnits(a.tax) ?? 0;
  const currency = currencyCode(a.currency);
  const at = isoMs(a.created_at);
  const test = context.test || a.test_mode === true;
  if (!amount || !currency || at === undefined) return [];
  const status = str(a.status);
  const events: CustomEvent[] = [];
  if (status === 'paid' || status === 'refunded' || status === 'partial_refund') {
    events.push({
      id: paymentId,
      at,
      test,
      type: 'payment',
      payment: {
        id: paymentId,
        amount,
        // tax-exclusive prices add the tax to the total; inclusive ones have it inside: either way in `total`
        tax: Math.min(tax, amount),
        currency,
        kind: invoice ? 'renewal' : 'one_time',
        customer_id: idOf(a.customer_id),
        subscription_id: invoice ? idOf(a.subscription_id) : undefined,
        email: str(a.user_email),
        visitor: context.visitor,
      },
    });
  }
  const refunded =
    minorUnits(a.refunded_amount) ?? (a.refunded === true || status === 'refunded' ? amount : 0);
  if (refunded > 0) {
    const refundAt = isoMs(a.refunded_at) ?? isoMs(a.updated_at) ?? at;
    const refundId = `${paymentId}:refunds`;
    events.push({
      id: refundId,
      at: refundAt,
      test,
      type: 'refund',
      refund: { id: refundId, payment_id: paymentId, amount: Math.min(refunded, amount), currency },
    });
  }
  return events;
}

/** Lemon Squeezy: orders, subscription renewals and their refunds. */
export const lemonsqueezy: ProviderAdapter = {
  id: 'lemonsqueezy',
  name: 'Lemon Squeezy',
  signatureHeader: 'X-Signature',
  // a key does not say its mode: /v1/users/me does
  environmentOfKey: () => null,

  /**
   * `X-Signature`: the hex HMAC-SHA256 of the raw body with the webhook's signing secret. The
   * scheme has no timestamp, so a replay verifies; the inbox keys each delivery by what it
   * announces, so a replay changes nothing.
   */
  verify({ secret, header, body }): SignatureProblem | null {
    const given = header('x-signature');
    if (!given) return { code: 'missing', message: 'X-Signature is required' };
    const expected = createHmac('sha256', secret).update(body).digest();
    const mac = /^[0-9a-f]+$/i.test(given.trim()) ? Buffer.from(given.trim(), 'hex') : Buffer.alloc(0);
    const ok =
      mac.length === expected.length ? timingSafeEqual(mac, expected) : !timingSafeEqual(expected, expected);
    return ok ? null : { code: 'mismatch', message: 'X-Signature does not match the body' };
  },

  /** Lemon Squeezy's deliveries have no id: what they announce and its state is the key. */
  deliveryId(payload) {
    const p = obj(payload);
    const event = str(obj(p?.meta)?.event_name);
    const data = obj(p?.data);
    const id = idOf(data?.id);
    const type = str(data?.type);
    if (!event || !id || !type) return null;
    const key = `${event}:${type}:${id}:${str(obj(data?.attributes)?.updated_at) ?? ''}`;
    return key.length <= 250 ? key : null;
  },

  toLedger(payload, source) {
    const p = obj(payload);
    if (!p) return [];
    if (source === 'sync') {
      return fromResource(obj(p.resource) ?? {}, { visitor: undefined, test: p.test_mode === true });
    }
    const meta = obj(p.meta);
    const event = str(meta?.event_name);
    if (!event || !(LEMONSQUEEZY_EVENTS as readonly string[]).includes(event)) return [];
    return fromResource(obj(p.data) ?? {}, {
      visitor: idOf(obj(meta?.custom_data)?.footfall_vid),
      test: meta?.test_mode === true,
    });
  },

  redact(payload) {
    return redactPersonal(payload, [
      'customer_id',
      'subscription_id',
      'custom_data',
      'user_name',
      'user_email',
      'card_brand',
      'card_last_four',
      'identifier',
      'urls',
    ]);
  },

  async connect(target, webhookUrl) {
    const me = await call(target, 'read', 'GET', '/v1/users/me');
    const environment: Environment = obj(me.meta)?.test_mode === true ? 'sandbox' : 'live';
    const ids = await stores(target);
    if (ids.length === 0) {
      throw new ProviderError({
        reason: 'key_rejected',
        message: 'the Lemon Squeezy account of this API key has no store yet: create one, then connect',
      });
    }
    // Lemon Squeezy lets the caller choose the secret (6 to 40 characters); one for every store
    const signingSecret = randomBytes(30).toString('base64url');
    const made: string[] = [];
    try {
      for (const store of ids) {
        const created = await call(target, LEMONSQUEEZY_PERMISSIONS.webhooks, 'POST', '/v1/webhooks', {
          data: {
            type: 'webhooks',
            attributes: {
              url: webhookUrl,
              events: [...LEMONSQUEEZY_EVENTS],
              secret: signingSecret,
              test_mode: environment === 'sandbox',
            },
            relationships: { store: { data: { type: 'stores', id: store } } },
          },
        });
        const id = idOf(obj(created.data)?.id);
        if (!id) throw unreachable('Lemon Squeezy', new Error('the webhook came back without its id'));
        made.push(id);
      }
    } catch (error) {
      // a half-made set-up is taken back: nothing stays at Lemon Squeezy for a connection that failed
      for (const id of made) await call(target, 'webhooks', 'DELETE', `/v1/webhooks/${id}`).catch(() => {});
      throw error;
    }
    return { environment, signingSecret, endpointId: made.join(',') };
  },

  async disconnect(target, endpointId) {
    for (const id of endpointId.split(',').filter(Boolean)) {
      await call(
        target,
        LEMONSQUEEZY_PERMISSIONS.webhooks,
        'DELETE',
        `/v1/webhooks/${encodeURIComponent(id)}`,
      );
    }
  },

  async reconcile(target, sinceMs) {
    const records: SyncRecord[] = [];
    const test = target.environment === 'sandbox';
    for (const store of await stores(target)) {
      for (const path of ['/v1/orders', '/v1/subscription-invoices']) {
        // newest first: read until the resources are older than the window and its refund slack
        read: for await (const page of pages(target, path, { 'filter[store_id]': store })) {
          for (const resource of page) {
            const a = obj(resource.attributes);
            const created = isoMs(a?.created_at) ?? 0;
            if (created < sinceMs - REFUND_SLACK_MS) break read;
            if (Math.max(created, isoMs(a?.updated_at) ?? 0) < sinceMs) continue;
            records.push({
              key: `${str(resource.type)}:${idOf(resource.id)}:${str(a?.updated_at)}`,
              payload: { resource, test_mode: test },
            });
          }
        }
      }
    }
    return records;
  },
};
