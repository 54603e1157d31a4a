import DodoPayments from 'dodopayments';
import type { CustomEvent } from '../custom-event.ts';
import {
  currencyCode,
  idOf,
  isoMs,
  keyRejected,
  minorUnits,
  missingPermission,
  obj,
  PROVIDER_TIMEOUT_MS,
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

/** The events the webhook is created with: succeeded payments, succeeded refunds, every dispute step. */
export const DODO_EVENTS = [
  'payment.succeeded',
  'refund.succeeded',
  'dispute.opened',
  'dispute.challenged',
  'dispute.accepted',
  'dispute.cancelled',
  'dispute.expired',
  'dispute.won',
  'dispute.lost',
] as const;

/**
 * Where Footfall tells the owner to look when Dodo Payments answers 403: its API keys carry the
 * business's full access, so a 403 means the key's business may not manage webhooks.
 */
export const DODO_PERMISSIONS = { webhooks: 'Developer → Webhooks (manage)' };

/** Dodo's largest page. */
const PAGE_SIZE = 100;

/**
 * The official client, on Dodo's test-mode or live-mode host (in tests: `${base}` and
 * `${base}/sandbox`). One retry: a set-up that waits on Dodo tells the owner soon.
 */
function client(target: ApiTarget, environment: Environment): DodoPayments {
  const base = target.base?.replace(/\/$/, '');
  return new DodoPayments({
    bearerToken: target.apiKey,
    ...(base === undefined
      ? { environment: environment === 'live' ? 'live_mode' : 'test_mode' }
      : { baseURL: environment === 'live' ? base : `${base}/sandbox` }),
    timeout: PROVIDER_TIMEOUT_MS,
    maxRetries: 1,
    logLevel: 'off',
  });
}

/** A client error as the owner's answer: key refused, permission missing, or Dodo unreachable. */
function failure(error: unknown): Error {
  if (error instanceof DodoPayments.AuthenticationError) return keyRejected('Dodo Payments');
  if (error instanceof DodoPayments.PermissionDeniedError) {
    return missingPermission('Dodo Payments', DODO_PERMISSIONS.webhooks);
  }
  if (
    error instanceof DodoPayments.APIConnectionError ||
    error instanceof DodoPayments.InternalServerError ||
    error instanceof DodoPayments.RateLimitError ||
    !(error instanceof DodoPayments.APIError)
  ) {
    return unreachable('Dodo Payments', error);
  }
  const body = obj(error.error);
  return new ProviderError({
    reason: 'unreachable',
    message: `Dodo Payments refused the request (${error.status}): ${str(body?.message) ?? str(body?.code) ?? 'no detail'}`,
  });
}

/** Runs one client call, its failures as the owner's answer. */
async function calling<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw failure(error);
  }
}

/** The list query of everything created since `sinceMs`, from the first page (Dodo counts from 0). */
const since = (sinceMs: number) => ({
  created_at_gte: new Date(sinceMs).toISOString(),
  page_size: PAGE_SIZE,
  page_number: 0,
});

/** The items of a list as plain JSON objects, page after page (the client pages until one is empty). */
async function collect(list: AsyncIterable<unknown>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const item of list) {
    const o = obj(item);
    if (o) out.push(o);
  }
  return out;
}

/**
 * A succeeded payment: `total_amount` (tax included) and its `tax`. A payment of a subscription is
 * recorded as a renewal: Dodo does not say which payment was a subscription's first, and the
 * attribution credits every payment of a subscription like its earliest one anyway.
 */
function payment(p: Record<string, unknown>): CustomEvent[] {
  const id = idOf(p.payment_id);
  const amount = minorUnits(p.total_amount);
  const tax = minorUnits(p.tax) ?? 0;
  const currency = currencyCode(p.currency);
  const at = isoMs(p.created_at);
  if (!id || !amount || !currency || at === undefined || str(p.status) !== 'succeeded') return [];
  const subscription = idOf(p.subscription_id);
  const customer = obj(p.customer);
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
        kind: subscription ? 'renewal' : 'one_time',
        customer_id: idOf(customer?.customer_id),
        subscription_id: subscription,
        email: str(customer?.email),
        visitor: idOf(obj(p.metadata)?.footfall_vid),
      },
    },
  ];
}

/** A refund, one by one; a refund that did not succeed gives nothing back. */
function refund(r: Record<string, unknown>): CustomEvent[] {
  const id = idOf(r.refund_id);
  const paymentId = idOf(r.payment_id);
  const amount = minorUnits(r.amount);
  const currency = currencyCode(r.currency);
  const at = isoMs(r.created_at);
  if (!id || !paymentId || amount === undefined || !currency || at === undefined) return [];
  const status = str(r.status);
  if (status !== 'succeeded' && status !== 'failed') return [];
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

/** Dodo's dispute statuses as the ledger's: the money is held while open, lost once lost or accepted. */
const DISPUTE_STATUS: Record<string, 'open' | 'won' | 'lost'> = {
  dispute_opened: 'open',
  dispute_challenged: 'open',
  dispute_accepted: 'lost',
  dispute_lost: 'lost',
  dispute_won: 'won',
  dispute_cancelled: 'won',
  dispute_expired: 'won',
};

function dispute(d: Record<string, unknown>, at: number | undefined): CustomEvent[] {
  const id = idOf(d.dispute_id);
  const paymentId = idOf(d.payment_id);
  const amount = minorUnits(d.amount);
  const currency = currencyCode(d.currency);
  const status = DISPUTE_STATUS[str(d.dispute_status) ?? ''];
  const when = at ?? isoMs(d.created_at);
  if (!id || !paymentId || amount === undefined || !currency || !status || when === undefined) return [];
  return [
    {
      id,
      at: when,
      test: false,
      type: 'dispute',
      dispute: { id, payment_id: paymentId, amount, currency, status },
    },
  ];
}

/** A payload's data by its `payload_type`; a dispute dated by the event (its status changes, its creation does not). */
function fromData(data: Record<string, unknown>, at: number | undefined): CustomEvent[] {
  const type = str(data.payload_type);
  if (type === 'Payment') return payment(data);
  if (type === 'Refund') return refund(data);
  if (type === 'Dispute') return dispute(data, at);
  return [];
}

/** Dodo Payments: succeeded payments (one-time and subscriptions), refunds, disputes. */
export const dodo: ProviderAdapter = {
  id: 'dodo',
  name: 'Dodo Payments',
  signatureHeader: 'webhook-signature',
  // a key does not say its mode: test and live mode are two hosts, and a key works on one
  environmentOfKey: () => null,

  /** Standard Webhooks with the endpoint's `whsec_…` secret. */
  verify({ secret, header, body, nowMs }) {
    let webhook: Webhook;
    try {
      webhook = new Webhook(secret);
    } catch {
      return { code: 'mismatch', message: 'the stored signing secret is not a whsec_ secret' };
    }
    return verifyStandardWebhook(webhook, { header, body, nowMs });
  },

  deliveryId: (payload, header) => (str(obj(payload)?.type) ? standardWebhookId(header) : null),

  toLedger(payload, source) {
    const p = obj(payload);
    if (!p) return [];
    const data = obj(p.data);
    if (!data) return [];
    if (source === 'sync') return fromData(data, isoMs(p.at));
    const type = str(p.type);
    if (!type || !(DODO_EVENTS as readonly string[]).includes(type)) return [];
    return fromData(data, isoMs(p.timestamp));
  },

  redact(payload) {
    return redactPersonal(payload, ['customer', 'customer_id', 'subscription_id', 'metadata', 'billing']);
  },

  async connect(target, webhookUrl) {
    let environment: Environment | undefined;
    for (const candidate of ['live', 'sandbox'] as const) {
      try {
        await calling(() => client(target, candidate).payments.list({ page_size: 1, page_number: 0 }));
        environment = candidate;
        break;
      } catch (error) {
        const refused = error instanceof ProviderError && error.failure.reason === 'key_rejected';
        if (candidate === 'sandbox' || !refused) throw error;
      }
    }
    if (!environment) throw keyRejected('Dodo Payments');
    const api = client(target, environment);
    const created = await calling(() =>
      api.webhooks.create({
        url: webhookUrl,
        description: 'Footfall: payments for revenue attribution',
        filter_types: [...DODO_EVENTS],
        disabled: false,
      }),
    );
    const endpointId = str(created.id);
    if (!endpointId) throw unreachable('Dodo Payments', new Error('the webhook came back without its id'));
    try {
      const secret = str((await calling(() => api.webhooks.retrieveSecret(endpointId))).secret);
      if (!secret) throw unreachable('Dodo Payments', new Error('the webhook secret came back empty'));
      return { environment, signingSecret: secret, endpointId };
    } catch (error) {
      // the endpoint without its secret is useless: take it back
      await api.webhooks.delete(endpointId).catch(() => {});
      throw error;
    }
  },

  async disconnect(target, endpointId) {
    await calling(() => client(target, target.environment ?? 'live').webhooks.delete(endpointId));
  },

  async reconcile(target, sinceMs) {
    const api = client(target, target.environment ?? 'live');
    const records: SyncRecord[] = [];
    const payments = await calling(() =>
      collect(api.payments.list({ ...since(sinceMs), status: 'succeeded' })),
    );
    for (const listed of payments) {
      const id = idOf(listed.payment_id);
      if (!id || str(listed.status) !== 'succeeded') continue;
      // the list leaves out the tax: read the payment whole
      const full = obj(await calling(() => api.payments.retrieve(id))) ?? {};
      records.push({ key: `payment:${id}`, payload: { data: { payload_type: 'Payment', ...full } } });
    }
    for (const r of await calling(() => collect(api.refunds.list(since(sinceMs))))) {
      records.push({
        key: `refund:${idOf(r.refund_id)}:${str(r.status)}`,
        payload: { data: { payload_type: 'Refund', ...r } },
      });
    }
    for (const d of await calling(() => collect(api.disputes.list(since(sinceMs))))) {
      // a dispute's status changes without a date of its own: the reconciliation's time dates it
      records.push({
        key: `dispute:${idOf(d.dispute_id)}:${str(d.dispute_status)}`,
        payload: { data: { payload_type: 'Dispute', ...d }, at: new Date().toISOString() },
      });
    }
    return records;
  },
};
