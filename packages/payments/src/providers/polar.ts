import type { CustomEvent } from '../custom-event.ts';
import {
  answerOf,
  currencyCode,
  fetchJson,
  idOf,
  isoMs,
  keyRejected,
  minorUnits,
  obj,
  objects,
  redactPersonal,
  str,
  unreachable,
} from './common.ts';
import { standardWebhookId, verifyStandardWebhook, Webhook } from './standard-webhooks.ts';
import {
  type ApiTarget,
  type Environment,
  type ProviderAdapter,
  ProviderError,
  type SyncRecord,
} from './types.ts';

/**
 * The API version Footfall sends (`Polar-Version`) and pins on the webhook endpoint it creates, so
 * the payloads keep the shapes read here.
 */
export const POLAR_API_VERSION = '2026-10';

/** The events the endpoint is created with: paid orders (every payment) and refunds, one by one. */
export const POLAR_EVENTS = ['order.paid', 'refund.created', 'refund.updated'] as const;

/** The scopes the Organization Access Token needs, as Polar names them. */
export const POLAR_SCOPES = {
  orders: 'orders:read',
  refunds: 'refunds:read',
  webhooks: 'webhooks:write',
};

const PRODUCTION = 'https://api.polar.sh';
const SANDBOX = 'https://sandbox-api.polar.sh';

/** A refund is read back while it is this recent (it may still move from pending to succeeded). */
const REFUND_SLACK_MS = 7 * 86_400_000;

const apiBase = (base: string | undefined, environment: Environment) =>
  base === undefined
    ? environment === 'live'
      ? PRODUCTION
      : SANDBOX
    : `${base.replace(/\/$/, '')}${environment === 'live' ? '' : '/sandbox'}`;

/** One call. 401: the token is refused; 403: a scope is missing (named); 5xx, 429, no JSON: unreachable. */
async function call(
  target: ApiTarget,
  environment: Environment,
  scope: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetchJson('Polar', `${apiBase(target.base, environment)}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${target.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'polar-version': POLAR_API_VERSION,
    },
    body,
  });
  return answerOf('Polar', res, scope, (json) => {
    const detail = json.detail;
    const text =
      typeof detail === 'string'
        ? detail
        : objects(detail)
            .map((d) => str(d.msg))
            .filter(Boolean)
            .join('; ');
    return { detail: text };
  });
}

/** Every item of a list, newest first, page by page (`{ items, pagination: { max_page } }`). */
async function* pages(
  target: ApiTarget,
  environment: Environment,
  scope: string,
  path: string,
  filter: Record<string, string> = {},
) {
  for (let page = 1; page <= 10_000; page++) {
    const query = new URLSearchParams({
      ...filter,
      page: String(page),
      limit: '100',
      sorting: '-created_at',
    });
    const answer = await call(target, environment, scope, 'GET', `${path}?${query}`);
    const items = objects(answer.items);
    yield items;
    const max = obj(answer.pagination)?.max_page;
    if (items.length === 0 || typeof max !== 'number' || page >= max) return;
  }
}

const KINDS: Record<string, 'one_time' | 'subscription' | 'renewal'> = {
  purchase: 'one_time',
  subscription_create: 'subscription',
  subscription_cycle: 'renewal',
  subscription_update: 'renewal',
  subscription_meter_cycle: 'renewal',
};

/**
 * A paid order as a payment: `total_amount` (tax included; older payloads: `amount` + `tax_amount`).
 * The visitor comes from the order's metadata, which Polar copies from the checkout: `footfall_vid`
 * when a server passed it, `reference_id` when the tracker added it to a Checkout Link.
 */
function order(o: Record<string, unknown>): CustomEvent[] {
  const id = idOf(o.id);
  const tax = minorUnits(o.tax_amount) ?? 0;
  const net = minorUnits(o.net_amount) ?? minorUnits(o.amount);
  const amount = minorUnits(o.total_amount) ?? (net === undefined ? undefined : net + tax);
  const currency = currencyCode(o.currency);
  const at = isoMs(o.created_at);
  const status = str(o.status);
  const paid =
    o.paid === true || status === 'paid' || status === 'refunded' || status === 'partially_refunded';
  if (!id || !amount || !currency || at === undefined || !paid) return [];
  const metadata = obj(o.metadata);
  return [
    {
      id,
      at,
      test: false,
      type: 'payment',
      payment: {
        id,
        amount,
        tax: Math.min(tax, amount),
        currency,
        kind: KINDS[str(o.billing_reason) ?? ''] ?? 'one_time',
        customer_id: idOf(o.customer_id),
        subscription_id: idOf(o.subscription_id),
        email: str(obj(o.customer)?.email),
        visitor: idOf(metadata?.footfall_vid) ?? idOf(metadata?.reference_id),
      },
    },
  ];
}

/**
 * A refund, one by one: what it gave back (`amount` plus its `tax_amount`) once it succeeded; a
 * refund that failed or was canceled is the same refund at zero.
 */
function refund(r: Record<string, unknown>): CustomEvent[] {
  const id = idOf(r.id);
  const paymentId = idOf(r.order_id);
  const amount = (minorUnits(r.amount) ?? 0) + (minorUnits(r.tax_amount) ?? 0);
  const currency = currencyCode(r.currency);
  const at = isoMs(r.modified_at) ?? isoMs(r.created_at);
  const status = str(r.status);
  if (!id || !paymentId || !currency || at === undefined) return [];
  if (status !== 'succeeded' && status !== 'failed' && status !== 'canceled') return [];
  return [
    {
      id,
      at,
      test: false,
      type: 'refund',
      refund: { id, payment_id: paymentId, amount: status === 'succeeded' ? amount : 0, currency },
    },
  ];
}

/** Polar: paid orders (one-time, a subscription's first, renewals) and refunds. */
export const polar: ProviderAdapter = {
  id: 'polar',
  name: 'Polar',
  signatureHeader: 'webhook-signature',
  // Organization Access Tokens look the same in production and the sandbox: the API says which
  environmentOfKey: () => null,

  /**
   * Standard Webhooks, keyed as Polar's SDK keys it: the secret's UTF-8 bytes (`polar_whs_…`), or,
   * for a `whsec_…` secret, its base64 body as well.
   */
  verify({ secret, header, body, nowMs }) {
    const input = { header, body, nowMs };
    const first = verifyStandardWebhook(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }), input);
    if (first === null || first.code !== 'mismatch') return first;
    const rest = secret.startsWith('whsec_') ? secret.slice(6) : secret;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(rest)) return first;
    return verifyStandardWebhook(new Webhook(rest), input) === null ? null : first;
  },

  deliveryId: (payload, header) => (str(obj(payload)?.type) ? standardWebhookId(header) : null),

  toLedger(payload, source) {
    const p = obj(payload);
    if (!p) return [];
    if (source === 'sync') {
      const data = obj(p.data) ?? {};
      return p.object === 'order' ? order(data) : p.object === 'refund' ? refund(data) : [];
    }
    const type = str(p.type);
    const data = obj(p.data);
    if (!data || !type || !(POLAR_EVENTS as readonly string[]).includes(type)) return [];
    return type === 'order.paid' ? order(data) : refund(data);
  },

  redact(payload) {
    return redactPersonal(payload, [
      'customer_id',
      'subscription_id',
      'customer',
      'metadata',
      'custom_field_data',
      'billing_name',
      'user_id',
      'user',
    ]);
  },

  async connect(target, webhookUrl) {
    let environment: Environment | undefined;
    for (const candidate of ['live', 'sandbox'] as const) {
      try {
        await call(target, candidate, POLAR_SCOPES.orders, 'GET', '/v1/orders/?limit=1');
        environment = candidate;
        break;
      } catch (error) {
        const refused = error instanceof ProviderError && error.failure.reason === 'key_rejected';
        if (candidate === 'sandbox' || !refused) throw error;
      }
    }
    if (!environment) throw keyRejected('Polar');
    await call(target, environment, POLAR_SCOPES.refunds, 'GET', '/v1/refunds/?limit=1');
    const created = await call(target, environment, POLAR_SCOPES.webhooks, 'POST', '/v1/webhooks/endpoints', {
      url: webhookUrl,
      name: 'Footfall',
      api_version: POLAR_API_VERSION,
      format: 'raw',
      events: [...POLAR_EVENTS],
    });
    const endpointId = str(created.id);
    const signingSecret = str(created.secret);
    if (!endpointId || !signingSecret) {
      throw unreachable('Polar', new Error('the webhook endpoint came back without its secret'));
    }
    return { environment, signingSecret, endpointId };
  },

  async disconnect(target, endpointId) {
    await call(
      target,
      target.environment ?? 'live',
      POLAR_SCOPES.webhooks,
      'DELETE',
      `/v1/webhooks/endpoints/${encodeURIComponent(endpointId)}`,
    );
  },

  async reconcile(target, sinceMs) {
    const environment = target.environment ?? 'live';
    const records: SyncRecord[] = [];
    const created_after = new Date(sinceMs).toISOString();
    orders: for await (const page of pages(target, environment, POLAR_SCOPES.orders, '/v1/orders/', {
      created_after,
    })) {
      for (const o of page) {
        if ((isoMs(o.created_at) ?? 0) < sinceMs) break orders;
        records.push({ key: `order:${str(o.id)}:${str(o.status)}`, payload: { object: 'order', data: o } });
      }
    }
    refunds: for await (const page of pages(target, environment, POLAR_SCOPES.refunds, '/v1/refunds/')) {
      for (const r of page) {
        const created = isoMs(r.created_at) ?? 0;
        if (created < sinceMs - REFUND_SLACK_MS) break refunds;
        if (Math.max(created, isoMs(r.modified_at) ?? 0) < sinceMs) continue;
        records.push({ key: `refund:${str(r.id)}:${str(r.status)}`, payload: { object: 'refund', data: r } });
      }
    }
    return records;
  },
};
