import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { STRIPE_API_VERSION } from '../stripe.ts';
import type { Delivery, FakeApi, FakeProviderKit, FakeRequest, FakeResponse, SaleInput } from './kit.ts';
import { startJsonServer } from './kit.ts';

type Obj = Record<string, unknown> & { id: string; created: number };

const KEYS = {
  live: 'rk_live_footfall_all_access',
  sandbox: 'rk_test_footfall_all_access',
  noWebhookPermission: 'rk_test_footfall_read_only',
  rejected: 'rk_live_footfall_revoked',
};

/** Stripe's error body for a request the key may not make (as documented for restricted keys). */
const permissionError = (key: string) => ({
  status: 403,
  body: {
    error: {
      type: 'invalid_request_error',
      message: `The provided key '${key.slice(0, 12)}***' does not have the required permissions for this endpoint on account 'acct_1Footfall'. Having the 'rak_webhook_write' permission would allow this request to continue.`,
    },
  },
});

/**
 * Stripe's API as Footfall uses it (API version pinned by the adapter): checkout sessions, invoices,
 * refunds and disputes as lists with `created[gte]`, webhook endpoints created and deleted; bearer
 * keys; webhook deliveries signed by the `stripe` package's own test header.
 */
export const stripeKit: FakeProviderKit = {
  provider: 'stripe',
  async start(): Promise<FakeApi> {
    let n = 0;
    const next = (prefix: string) => `${prefix}_${String(++n).padStart(6, '0')}Ffl`;
    const endpoints: { id: string; url: string; events: string[]; secret: string; livemode: boolean }[] = [];
    const store: Record<'checkout/sessions' | 'invoices' | 'refunds' | 'disputes', Obj[]> = {
      'checkout/sessions': [],
      invoices: [],
      refunds: [],
      disputes: [],
    };
    const signer = new Stripe('sk_test_signing_only');

    const handle = (req: FakeRequest): FakeResponse => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!Object.values(KEYS).includes(key) || key === KEYS.rejected) {
        return {
          status: 401,
          body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } },
        };
      }
      if (req.path === '/v1/webhook_endpoints' && req.method === 'POST') {
        if (key === KEYS.noWebhookPermission) return permissionError(key);
        const form = new URLSearchParams(req.body);
        const endpoint = {
          id: next('we'),
          url: form.get('url') ?? '',
          events: form.getAll('enabled_events[]').concat(form.getAll('enabled_events[0]')),
          secret: `whsec_${randomBytes(24).toString('base64url')}`,
          livemode: key.startsWith('rk_live_'),
        };
        for (const [k, v] of form)
          if (/^enabled_events\[\d+\]$/.test(k) && !endpoint.events.includes(v)) endpoint.events.push(v);
        endpoints.push(endpoint);
        return {
          status: 200,
          body: {
            id: endpoint.id,
            object: 'webhook_endpoint',
            api_version: form.get('api_version'),
            url: endpoint.url,
            enabled_events: endpoint.events,
            livemode: endpoint.livemode,
            secret: endpoint.secret,
            status: 'enabled',
            created: Math.floor(Date.now() / 1000),
          },
        };
      }
      const del = /^\/v1\/webhook_endpoints\/(\w+)$/.exec(req.path);
      if (del && req.method === 'DELETE') {
        const at = endpoints.findIndex((e) => e.id === del[1]);
        if (at < 0)
          return {
            status: 404,
            body: { error: { type: 'invalid_request_error', message: 'No such webhook endpoint' } },
          };
        endpoints.splice(at, 1);
        return { status: 200, body: { id: del[1], object: 'webhook_endpoint', deleted: true } };
      }
      const list = /^\/v1\/(checkout\/sessions|invoices|refunds|disputes)$/.exec(req.path);
      if (list && req.method === 'GET') {
        const since = Number(req.query.get('created[gte]') ?? 0);
        const status = req.query.get('status');
        const livemode = key.startsWith('rk_live_');
        const data = store[list[1] as keyof typeof store].filter(
          (o) => o.created >= since && o.livemode === livemode && (status === null || o.status === status),
        );
        return { status: 200, body: { object: 'list', url: req.path, has_more: false, data } };
      }
      return {
        status: 404,
        body: {
          error: {
            type: 'invalid_request_error',
            message: `Unrecognized request URL (${req.method}: ${req.path})`,
          },
        },
      };
    };
    const server = await startJsonServer(handle);

    const event = (type: string, object: Obj, secret: string, livemode: boolean): Delivery => {
      const body = JSON.stringify({
        id: next('evt'),
        object: 'event',
        api_version: STRIPE_API_VERSION,
        created: Math.floor(Date.now() / 1000),
        livemode,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object },
      });
      const header = signer.webhooks.generateTestHeaderString({ payload: body, secret });
      return {
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header },
        body,
      };
    };

    return {
      url: server.url,
      close: server.close,
      keys: KEYS,
      missingPermission: 'Webhook Endpoints: Write',
      syncCarriesVisitor: true,
      endpoints: () => endpoints.map(({ id, url, events, secret }) => ({ id, url, events, secret })),
      secretFor(url) {
        const found = endpoints.find((e) => e.url === url);
        if (!found) throw new Error(`no endpoint for ${url}`);
        return found.secret;
      },
      sale(input: SaleInput, secret: string) {
        const created = Math.floor(input.at / 1000);
        const pi = next('pi');
        const customer = next('cus');
        const livemode = true;
        if (input.kind === 'one_time') {
          const session: Obj = {
            id: next('cs_live'),
            object: 'checkout.session',
            mode: 'payment',
            status: 'complete',
            payment_status: 'paid',
            amount_total: input.amount,
            amount_subtotal: input.amount - input.tax,
            total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: input.tax },
            currency: input.currency.toLowerCase(),
            client_reference_id: input.visitor ?? null,
            customer,
            customer_details: { email: input.email ?? null, name: 'Ada Buyer', address: { country: 'DE' } },
            payment_intent: pi,
            subscription: null,
            invoice: null,
            metadata: {},
            livemode,
            created,
          };
          store['checkout/sessions'].push(session);
          return {
            paymentId: pi,
            deliveries: [event('checkout.session.completed', session, secret, livemode)],
          };
        }
        const subscription = input.subscription ?? next('sub');
        const invoice: Obj = {
          id: next('in'),
          object: 'invoice',
          status: 'paid',
          billing_reason: input.kind === 'subscription' ? 'subscription_create' : 'subscription_cycle',
          amount_due: input.amount,
          amount_paid: input.amount,
          tax: input.tax,
          total: input.amount,
          currency: input.currency.toLowerCase(),
          customer,
          customer_email: input.email ?? null,
          subscription,
          subscription_details: { metadata: input.visitor ? { footfall_vid: input.visitor } : {} },
          payment_intent: pi,
          charge: next('ch'),
          status_transitions: { paid_at: created, finalized_at: created },
          metadata: {},
          livemode,
          created,
        };
        store.invoices.push(invoice);
        return {
          paymentId: pi,
          subscription,
          deliveries: [event('invoice.paid', invoice, secret, livemode)],
        };
      },
      refund(paymentId, amount, at, secret) {
        const payment =
          store['checkout/sessions'].find((s) => s.payment_intent === paymentId) ??
          store.invoices.find((i) => i.payment_intent === paymentId);
        const refund: Obj = {
          id: next('re'),
          object: 'refund',
          amount,
          currency: (payment?.currency as string) ?? 'eur',
          payment_intent: paymentId,
          charge: next('ch'),
          status: 'succeeded',
          reason: 'requested_by_customer',
          metadata: {},
          livemode: true,
          created: Math.floor(at / 1000),
        };
        store.refunds.push(refund);
        return { refundId: refund.id, deliveries: [event('refund.created', refund, secret, true)] };
      },
    };
  },
};
