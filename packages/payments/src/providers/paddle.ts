import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CustomEvent } from '../custom-event.ts';
import type { SignatureProblem } from '../signature.ts';
import {
  minorUnits as amountOf,
  answerOf,
  fetchJson,
  idOf,
  keyRejected,
  isoMs as ms,
  obj,
  objects,
  redactPersonal,
  str,
  unreachable,
  currencyCode as upper,
} from './common.ts';
import {
  type ApiTarget,
  type Environment,
  type ProviderAdapter,
  ProviderError,
  type SyncRecord,
} from './types.ts';

/**
 * Paddle Billing. The API version Footfall sends (`Paddle-Version`) and pins on the notification
 * destination it creates, so the payloads keep the shapes read here.
 */
export const PADDLE_API_VERSION = 1;

/**
 * The events the notification destination is created with: completed transactions carry every
 * payment (one-time, a subscription's first, renewals), adjustments carry refunds and chargebacks.
 * transaction.paid is left out on purpose: it announces the same payments as transaction.completed.
 */
export const PADDLE_EVENTS = ['transaction.completed', 'adjustment.created', 'adjustment.updated'] as const;

/** The permissions the key needs, as Paddle's dashboard names them (Developer tools → Authentication). */
export const PADDLE_PERMISSIONS = {
  transactions: 'Transactions (Read)',
  adjustments: 'Adjustments (Read)',
  notifications: 'Notification settings (Write)',
};

/**
 * How far a `Paddle-Signature` timestamp may be from the server's clock. Paddle's SDK allows only
 * 5 s, which a self-hosted server with a drifting clock misses; a replay inside the window changes
 * nothing, because the inbox keys each delivery by its `event_id`. Five minutes, as for Stripe and
 * the custom webhook.
 */
const TOLERANCE_SECONDS = 300;

/** Refunds wait for Paddle's approval: an adjustment created this long before the window is still read. */
const APPROVAL_SLACK_MS = 30 * 86_400_000;

const PRODUCTION = 'https://api.paddle.com';
const SANDBOX = 'https://sandbox-api.paddle.com';

/** Where an environment's API is: Paddle's two hosts, or `${base}` and `${base}/sandbox` in tests. */
const apiBase = (base: string | undefined, environment: Environment) =>
  base === undefined
    ? environment === 'live'
      ? PRODUCTION
      : SANDBOX
    : `${base.replace(/\/$/, '')}${environment === 'live' ? '' : '/sandbox'}`;

const environmentOfKey = (key: string): Environment | null =>
  key.startsWith('pdl_live_apikey_') ? 'live' : key.startsWith('pdl_sdbx_apikey_') ? 'sandbox' : null;

/** Paddle's error codes that mean the key itself is refused (Paddle answers them with 401 or 403). */
const KEY_ERRORS = new Set(['invalid_token', 'authentication_malformed', 'authentication_missing']);

/**
 * One API call. Paddle's answers become the owner's: the key refused, the permission missing
 * (named), or Paddle unreachable (network, timeout, 5xx, 429, or an answer that is not Paddle's).
 */
async function call(
  target: ApiTarget,
  environment: Environment,
  permission: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetchJson('Paddle', `${apiBase(target.base, environment)}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${target.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'paddle-version': String(PADDLE_API_VERSION),
    },
    body,
  });
  return answerOf('Paddle', res, permission, (json) => {
    const error = obj(json.error);
    if (!error) return undefined;
    // a request Paddle refused for what it says (a destination that is not https, for example)
    const code = str(error.code) ?? '';
    return { code, detail: str(error.detail) ?? 'no detail', keyRejected: KEY_ERRORS.has(code) };
  });
}

/** Every page of a list: Paddle pages with `after`, named in `meta.pagination.next`. */
async function* pages(
  target: ApiTarget,
  environment: Environment,
  permission: string,
  path: string,
  query: Record<string, string>,
): AsyncGenerator<Record<string, unknown>[]> {
  let params = new URLSearchParams(query);
  for (let page = 0; page < 10_000; page++) {
    const answer = await call(target, environment, permission, 'GET', `${path}?${params}`);
    const data = objects(answer.data);
    yield data;
    const pagination = obj(obj(answer.meta)?.pagination);
    const next = str(pagination?.next);
    const after = next ? new URL(next, 'https://api.paddle.com').searchParams.get('after') : null;
    if (pagination?.has_more !== true || !after || data.length === 0) return;
    params = new URLSearchParams({ ...query, after });
  }
}

/**
 * A completed transaction as a payment: what the customer paid (`grand_total`, after any credit
 * from their balance; `total` on payloads without it), tax included. A transaction for recurring
 * items (it has a billing period) is a subscription's first payment when the customer bought it
 * (origin web or api) and a later one otherwise (renewals, upgrades, one-off charges).
 */
function payment(t: Record<string, unknown>): CustomEvent[] {
  const id = idOf(t.id);
  const totals = obj(obj(t.details)?.totals);
  const amount = amountOf(totals?.grand_total) ?? amountOf(totals?.total);
  const tax = amountOf(totals?.grand_total_tax) ?? amountOf(totals?.tax) ?? 0;
  const currency = upper(totals?.currency_code) ?? upper(t.currency_code);
  const at = ms(t.billed_at) ?? ms(t.updated_at) ?? ms(t.created_at);
  // zero-amount transactions (a trial's start, a payment method change) move no money
  if (t.status !== 'completed' || !id || !amount || !currency || at === undefined) return [];
  const origin = str(t.origin);
  const recurring =
    obj(t.billing_period) !== undefined ||
    str(t.subscription_id) !== undefined ||
    (Array.isArray(t.items) && t.items.some((item) => obj(obj(obj(item)?.price)?.billing_cycle)));
  const kind = !recurring ? 'one_time' : origin === 'web' || origin === 'api' ? 'subscription' : 'renewal';
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
        kind,
        customer_id: idOf(t.customer_id),
        subscription_id: idOf(t.subscription_id),
        email: undefined,
        visitor: idOf(obj(t.custom_data)?.footfall_vid),
      },
    },
  ];
}

/**
 * An adjustment as a refund or a dispute. A refund counts once Paddle approved it (its own id, its
 * own `totals.total`); a reversed refund is the same refund at zero. Chargebacks of a transaction
 * are one dispute (`<transaction>:chargeback`): a warning opens it, a chargeback loses it (Paddle
 * takes the money back), a chargeback reversal wins it. Credits return nothing to the customer's card.
 */
function adjustment(a: Record<string, unknown>): CustomEvent[] {
  const id = idOf(a.id);
  const paymentId = idOf(a.transaction_id);
  const total = amountOf(obj(a.totals)?.total);
  const currency = upper(a.currency_code) ?? upper(obj(a.totals)?.currency_code);
  const created = ms(a.created_at);
  const at = ms(a.updated_at) ?? created;
  if (!id || !paymentId || total === undefined || !currency || at === undefined || created === undefined)
    return [];
  const action = str(a.action);
  if (action === 'refund') {
    if (a.status !== 'approved' && a.status !== 'reversed') return [];
    const amount = a.status === 'approved' ? total : 0;
    return [{ id, at, test: false, type: 'refund', refund: { id, payment_id: paymentId, amount, currency } }];
  }
  const status =
    action === 'chargeback_warning'
      ? 'open'
      : action === 'chargeback'
        ? 'lost'
        : action === 'chargeback_reverse'
          ? 'won'
          : undefined;
  if (!status || a.status !== 'approved') return [];
  const dispute = `${paymentId}:chargeback`;
  return [
    {
      id,
      at: created,
      test: false,
      type: 'dispute',
      dispute: { id: dispute, payment_id: paymentId, amount: total, currency, status },
    },
  ];
}

/** A transaction (`txn_…`) or an adjustment (`adj_…`), whether from a webhook or read back. */
function fromEntity(entity: Record<string, unknown>): CustomEvent[] {
  const id = str(entity.id) ?? '';
  if (id.startsWith('txn_')) return payment(entity);
  if (id.startsWith('adj_')) return adjustment(entity);
  return [];
}

/** `ts=<unix seconds>;h1=<hex>` (several h1 while Paddle rotates a secret). */
function parseSignature(header: string): { ts: string; h1: string[] } | null {
  let ts = '';
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (at < 0) continue;
    if (key === 'ts') ts = value;
    else if (key === 'h1') h1.push(value);
  }
  return /^\d{1,12}$/.test(ts) && h1.length > 0 ? { ts, h1 } : null;
}

/** Paddle Billing: completed transactions, refunds and chargebacks (adjustments). */
export const paddle: ProviderAdapter = {
  id: 'paddle',
  name: 'Paddle',
  signatureHeader: 'Paddle-Signature',
  environmentOfKey,

  verify({ secret, header, body, nowMs }): SignatureProblem | null {
    const raw = header('paddle-signature');
    if (!raw) return { code: 'missing', message: 'Paddle-Signature is required' };
    const parsed = parseSignature(raw);
    if (!parsed) return { code: 'mismatch', message: 'Paddle-Signature is not ts=…;h1=…' };
    if (Math.abs(Number(parsed.ts) * 1000 - nowMs) > TOLERANCE_SECONDS * 1000) {
      return { code: 'stale', message: 'Paddle-Signature is more than five minutes from the server clock' };
    }
    const expected = createHmac('sha256', secret).update(`${parsed.ts}:`).update(body).digest();
    const ok = parsed.h1.some((hex) => {
      const given = /^[0-9a-f]+$/i.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
      // a wrong length compares against the expected value anyway, so timing says nothing
      return given.length === expected.length
        ? timingSafeEqual(given, expected)
        : !timingSafeEqual(expected, expected);
    });
    return ok ? null : { code: 'mismatch', message: 'Paddle-Signature does not match the body' };
  },

  deliveryId(payload) {
    const p = obj(payload);
    const id = str(p?.event_id);
    return id?.startsWith('evt_') && str(p?.event_type) ? id : null;
  },

  toLedger(payload, source) {
    const p = obj(payload);
    if (!p) return [];
    if (source === 'sync') return fromEntity(p);
    const type = str(p.event_type);
    const data = obj(p.data);
    if (!type || !data || !(PADDLE_EVENTS as readonly string[]).includes(type)) return [];
    return fromEntity(data);
  },

  redact(payload) {
    return redactPersonal(payload, [
      'customer_id',
      'subscription_id',
      'address_id',
      'business_id',
      'custom_data',
      'billing_details',
      'method_details',
      'customer',
      'business',
    ]);
  },

  async connect(target, webhookUrl) {
    const byKey = environmentOfKey(target.apiKey);
    // a key made before May 2025 has no pdl_ prefix: it works on one of the two hosts only
    const candidates: Environment[] = byKey ? [byKey] : ['live', 'sandbox'];
    let environment: Environment | undefined;
    for (const candidate of candidates) {
      try {
        await call(target, candidate, PADDLE_PERMISSIONS.transactions, 'GET', '/transactions?per_page=1');
        environment = candidate;
        break;
      } catch (error) {
        const last = candidate === candidates[candidates.length - 1];
        if (last || !(error instanceof ProviderError) || error.failure.reason !== 'key_rejected') throw error;
      }
    }
    if (!environment) throw keyRejected('Paddle');
    await call(target, environment, PADDLE_PERMISSIONS.adjustments, 'GET', '/adjustments?per_page=1');
    const created = await call(
      target,
      environment,
      PADDLE_PERMISSIONS.notifications,
      'POST',
      '/notification-settings',
      {
        description: 'Footfall: payments for revenue attribution',
        type: 'url',
        destination: webhookUrl,
        api_version: PADDLE_API_VERSION,
        include_sensitive_fields: false,
        subscribed_events: [...PADDLE_EVENTS],
        traffic_source: 'platform',
      },
    );
    const data = obj(created.data);
    const endpointId = str(data?.id);
    const signingSecret = str(data?.endpoint_secret_key);
    if (!endpointId || !signingSecret) {
      throw unreachable('Paddle', new Error('the notification destination came back without its secret key'));
    }
    return { environment, signingSecret, endpointId };
  },

  async disconnect(target, endpointId) {
    const environment = target.environment ?? environmentOfKey(target.apiKey) ?? 'live';
    await call(
      target,
      environment,
      PADDLE_PERMISSIONS.notifications,
      'DELETE',
      `/notification-settings/${encodeURIComponent(endpointId)}`,
    );
  },

  async reconcile(target, sinceMs) {
    const environment = target.environment ?? environmentOfKey(target.apiKey) ?? 'live';
    const records: SyncRecord[] = [];
    const since = new Date(sinceMs).toISOString();
    for await (const page of pages(target, environment, PADDLE_PERMISSIONS.transactions, '/transactions', {
      status: 'completed',
      'updated_at[GTE]': since,
      per_page: '200',
    })) {
      for (const t of page) records.push({ key: `txn:${str(t.id)}:${str(t.status)}`, payload: t });
    }
    // adjustments have no date filter: newest first, until they are older than the window
    pagesOfAdjustments: for await (const page of pages(
      target,
      environment,
      PADDLE_PERMISSIONS.adjustments,
      '/adjustments',
      { order_by: 'id[DESC]', per_page: '50' },
    )) {
      for (const a of page) {
        const created = ms(a.created_at) ?? 0;
        if (created < sinceMs - APPROVAL_SLACK_MS) break pagesOfAdjustments;
        if (Math.max(created, ms(a.updated_at) ?? 0) < sinceMs) continue;
        records.push({ key: `adj:${str(a.id)}:${str(a.status)}`, payload: a });
      }
    }
    return records;
  },
};
