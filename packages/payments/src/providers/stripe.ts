import Stripe from 'stripe';
import type { CustomEvent } from '../custom-event.ts';
import type { SignatureProblem } from '../signature.ts';
import {
  keyRejected,
  missingPermission,
  num,
  obj,
  PROVIDER_TIMEOUT_MS,
  redactPersonal,
  str,
  unreachable,
} from './common.ts';
import type { ApiTarget, Environment, ProviderAdapter, SyncRecord } from './types.ts';

/**
 * The API version Footfall pins for its requests and for the webhook endpoint it creates, so the
 * payloads keep the shapes read here (invoices still name their `payment_intent` and
 * `subscription` at the top level).
 */
export const STRIPE_API_VERSION = '2024-06-20';

/** The events the endpoint is created with: what moves money, nothing else. */
export const STRIPE_EVENTS = [
  'checkout.session.completed',
  'invoice.paid',
  'refund.created',
  'refund.updated',
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
] as const;

/** How Stripe's dashboard names the permissions the key needs (restricted keys). */
export const STRIPE_PERMISSIONS = {
  read: 'Checkout Sessions: Read',
  webhooks: 'Webhook Endpoints: Write',
};

/** Stripe's default tolerance for a signature's timestamp. */
const TOLERANCE_SECONDS = 300;

function client(target: ApiTarget): Stripe {
  const options: Record<string, unknown> = {
    apiVersion: STRIPE_API_VERSION,
    timeout: PROVIDER_TIMEOUT_MS,
    maxNetworkRetries: 1,
    telemetry: false,
  };
  if (target.base) {
    const u = new URL(target.base);
    options.host = u.hostname;
    options.port = u.port || (u.protocol === 'https:' ? '443' : '80');
    options.protocol = u.protocol.replace(':', '');
  }
  return new Stripe(target.apiKey, options as ConstructorParameters<typeof Stripe>[1]);
}

/** A Stripe SDK error as the owner's answer: key refused, permission missing, or Stripe unreachable. */
function failure(error: unknown, permission: string): Error {
  const e = error as { type?: string; statusCode?: number };
  if (e.type === 'StripeAuthenticationError' || e.statusCode === 401) return keyRejected('Stripe');
  if (e.type === 'StripePermissionError' || e.statusCode === 403)
    return missingPermission('Stripe', permission);
  return unreachable('Stripe', error);
}

const ms = (seconds: unknown) => {
  const s = num(seconds);
  return s === undefined ? undefined : s * 1000;
};
const upper = (c: unknown) => str(c)?.toUpperCase();
const id = (v: unknown) => str(v) ?? str(obj(v)?.id);

/** One Stripe object (a checkout session, an invoice, a refund, a dispute) as ledger events. */
function fromObject(o: Record<string, unknown>, eventAt: number | undefined): CustomEvent[] {
  const test = o.livemode === false;
  const base = (eventId: string, at: number | undefined) => ({ id: eventId, at: at ?? 0, test });
  const kind = str(o.object);
  if (kind === 'checkout.session') {
    // a one-time payment; a subscription's payments come from its invoices
    const pi = id(o.payment_intent);
    const amount = num(o.amount_total);
    const currency = upper(o.currency);
    if (o.mode !== 'payment' || o.payment_status !== 'paid' || !pi || amount === undefined || !currency)
      return [];
    const details = obj(o.customer_details);
    const at = ms(o.created);
    if (at === undefined) return [];
    return [
      {
        ...base(str(o.id) ?? pi, at),
        type: 'payment',
        payment: {
          id: pi,
          amount,
          tax: Math.min(num(obj(o.total_details)?.amount_tax) ?? 0, amount),
          currency,
          kind: 'one_time',
          customer_id: id(o.customer),
          subscription_id: undefined,
          email: str(details?.email),
          visitor: str(o.client_reference_id) ?? str(obj(o.metadata)?.footfall_vid),
        },
      },
    ];
  }
  if (kind === 'invoice') {
    const pi = id(o.payment_intent);
    const subscription = id(o.subscription);
    const amount = num(o.amount_paid);
    const currency = upper(o.currency);
    // a subscription's first payment or renewal; one-time invoices of a checkout are its session
    if (o.status !== 'paid' || !subscription || !pi || !amount || !currency) return [];
    const at = ms(obj(o.status_transitions)?.paid_at) ?? ms(o.created);
    if (at === undefined) return [];
    return [
      {
        ...base(str(o.id) ?? pi, at),
        type: 'payment',
        payment: {
          id: pi,
          amount,
          tax: Math.min(num(o.tax) ?? 0, amount),
          currency,
          kind: o.billing_reason === 'subscription_create' ? 'subscription' : 'renewal',
          customer_id: id(o.customer),
          subscription_id: subscription,
          email: str(o.customer_email),
          visitor:
            str(obj(obj(o.subscription_details)?.metadata)?.footfall_vid) ??
            str(obj(o.metadata)?.footfall_vid),
        },
      },
    ];
  }
  if (kind === 'refund') {
    const pi = id(o.payment_intent);
    const amount = num(o.amount);
    const currency = upper(o.currency);
    const at = ms(o.created);
    if (
      o.status !== 'succeeded' ||
      !pi ||
      !str(o.id) ||
      amount === undefined ||
      !currency ||
      at === undefined
    ) {
      return [];
    }
    return [
      {
        ...base(str(o.id)!, at),
        type: 'refund',
        refund: { id: str(o.id)!, payment_id: pi, amount, currency },
      },
    ];
  }
  if (kind === 'dispute') {
    const pi = id(o.payment_intent);
    const amount = num(o.amount);
    const currency = upper(o.currency);
    const at = eventAt ?? ms(o.created);
    if (!pi || !str(o.id) || amount === undefined || !currency || at === undefined) return [];
    const status = o.status === 'won' ? 'won' : o.status === 'lost' ? 'lost' : 'open';
    return [
      {
        ...base(str(o.id)!, at),
        type: 'dispute',
        dispute: { id: str(o.id)!, payment_id: pi, amount, currency, status },
      },
    ];
  }
  return [];
}

const environmentOfKey = (key: string): Environment | null =>
  /^(sk|rk)_live_/.test(key) ? 'live' : /^(sk|rk)_test_/.test(key) ? 'sandbox' : null;

/** Stripe: Checkout (and Payment Links), subscriptions' invoices, refunds, disputes. */
export const stripe: ProviderAdapter = {
  id: 'stripe',
  name: 'Stripe',
  signatureHeader: 'Stripe-Signature',
  environmentOfKey,

  verify({ secret, header, body, nowMs }): SignatureProblem | null {
    const signature = header('stripe-signature');
    if (!signature) return { code: 'missing', message: 'Stripe-Signature is required' };
    const scheme = Stripe.webhooks.signature;
    if (!scheme) return { code: 'mismatch', message: 'Stripe-Signature cannot be checked' };
    try {
      scheme.verifyHeader(
        Buffer.from(body).toString('utf8'),
        signature,
        secret,
        TOLERANCE_SECONDS,
        undefined,
        nowMs,
      );
      return null;
    } catch (error) {
      const message = (error as Error).message ?? '';
      return /tolerance/i.test(message)
        ? { code: 'stale', message: 'Stripe-Signature is older than five minutes' }
        : { code: 'mismatch', message: 'Stripe-Signature does not match the body' };
    }
  },

  deliveryId(payload) {
    const p = obj(payload);
    return p?.object === 'event' && str(p.id)?.startsWith('evt_') ? str(p.id)! : null;
  },

  toLedger(payload, source) {
    const p = obj(payload);
    if (!p) return [];
    if (source === 'sync') return fromObject(p, undefined);
    const type = str(p.type);
    const object = obj(obj(p.data)?.object);
    if (!type || !object || !(STRIPE_EVENTS as readonly string[]).includes(type)) return [];
    // a dispute's status changes are events about the same object: each is dated by its event
    return fromObject(object, type.startsWith('charge.dispute.') ? ms(p.created) : undefined);
  },

  redact(payload) {
    return redactPersonal(payload, [
      'customer',
      'client_reference_id',
      'subscription_details',
      'metadata',
      'customer_address',
      'customer_phone',
      'customer_shipping',
    ]);
  },

  async connect(target, webhookUrl) {
    const environment = environmentOfKey(target.apiKey);
    if (environment === null) {
      throw keyRejected('Stripe');
    }
    const api = client(target);
    try {
      await api.checkout.sessions.list({ limit: 1 });
    } catch (error) {
      throw failure(error, STRIPE_PERMISSIONS.read);
    }
    try {
      const endpoint = await api.webhookEndpoints.create({
        url: webhookUrl,
        enabled_events: [...STRIPE_EVENTS],
        api_version: STRIPE_API_VERSION as never,
        description: 'Footfall: payments for revenue attribution',
      });
      if (!endpoint.secret) throw new Error('Stripe answered no signing secret');
      return { environment, signingSecret: endpoint.secret, endpointId: endpoint.id };
    } catch (error) {
      throw failure(error, STRIPE_PERMISSIONS.webhooks);
    }
  },

  async disconnect(target, endpointId) {
    try {
      await client(target).webhookEndpoints.del(endpointId);
    } catch (error) {
      throw failure(error, STRIPE_PERMISSIONS.webhooks);
    }
  },

  async reconcile(target, sinceMs) {
    const api = client(target);
    const created = { gte: Math.floor(sinceMs / 1000) };
    const records: SyncRecord[] = [];
    const add = (prefix: string, o: { id: string; status?: string | null }) =>
      records.push({ key: `${prefix}:${o.id}:${o.status ?? ''}`, payload: o });
    try {
      for await (const s of api.checkout.sessions.list({ created, status: 'complete', limit: 100 }))
        add('cs', s);
      for await (const i of api.invoices.list({ created, status: 'paid', limit: 100 })) add('in', i);
      for await (const r of api.refunds.list({ created, limit: 100 })) add('re', r);
      for await (const d of api.disputes.list({ created, limit: 100 })) add('dp', d);
    } catch (error) {
      throw failure(error, STRIPE_PERMISSIONS.read);
    }
    return records;
  },
};
