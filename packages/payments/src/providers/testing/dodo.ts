import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Environment } from '../types.ts';
import type { Delivery, FakeApi, FakeProviderKit, FakeRequest, FakeResponse, SaleInput } from './kit.ts';
import { startJsonServer } from './kit.ts';

type Entity = Record<string, unknown> & { created_at: string };

/** Dodo Payments API keys: one is made in test mode or live mode, and works on that host only. */
const KEYS = {
  live: 'dodo_live_Ffl.9Qn3R1kZk0oF2hV7sL4pX8cW6yT5uB3m',
  sandbox: 'dodo_test_Ffl.2Lm8Q4vN7xC1bZ9kP5hR3tW6yJ0sD4f',
  rejected: 'dodo_live_Ffl.revoked00000000000000000000000',
};
const ENVIRONMENT: Record<string, Environment> = { [KEYS.live]: 'live', [KEYS.sandbox]: 'sandbox' };

const iso = (ms: number) => new Date(ms).toISOString();
const id = (prefix: string) => `${prefix}_${randomBytes(11).toString('base64url').replace(/[-_]/g, 'x')}`;

/** A delivery signed by the `standardwebhooks` package with the endpoint's `whsec_…` secret. */
export function signDodo(
  secret: string,
  msgId: string,
  body: string,
  at = new Date(),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(msgId, at, body),
  };
}

/**
 * Dodo Payments' API as Footfall uses it (https://docs.dodopayments.com/api-reference): payments,
 * refunds and disputes as lists with `created_at_gte` and zero-based `page_number`, one payment read
 * whole, webhooks created (`filter_types`), their secret read, deleted; a test-mode host at
 * `/sandbox`. Deliveries are shaped like its webhook payloads (`business_id`, `type`, `timestamp`,
 * `data.payload_type`) and signed by the Standard Webhooks library.
 */
export const dodoKit: FakeProviderKit = {
  provider: 'dodo',
  async start(): Promise<FakeApi> {
    const BUSINESS = id('bus');
    const endpoints: {
      id: string;
      url: string;
      events: string[];
      secret: string;
      environment: Environment;
    }[] = [];
    const store: Record<'payments' | 'refunds' | 'disputes', { environment: Environment; entity: Entity }[]> =
      {
        payments: [],
        refunds: [],
        disputes: [],
      };
    const subscriptions = new Map<string, { customer: Record<string, unknown>; metadata: unknown }>();
    const sales = new Map<string, Entity>();

    const list = (req: FakeRequest, kind: 'payments' | 'refunds' | 'disputes', environment: Environment) => {
      const size = Math.min(Number(req.query.get('page_size') ?? 10), 100);
      const page = Number(req.query.get('page_number') ?? 0);
      const since = req.query.get('created_at_gte');
      const rows = store[kind]
        .filter((r) => r.environment === environment)
        .map((r) => r.entity)
        .filter((e) => !since || Date.parse(e.created_at) >= Date.parse(since))
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
      // the payments list answers a summary of each payment (no tax, no billing)
      const items = rows.slice(page * size, (page + 1) * size).map((e) => {
        if (kind !== 'payments') return e;
        const { tax: _tax, billing: _billing, product_cart: _cart, ...summary } = e;
        return summary;
      });
      return { status: 200, body: { items } };
    };

    const handle = (req: FakeRequest): FakeResponse => {
      const sandbox = req.path === '/sandbox' || req.path.startsWith('/sandbox/');
      const environment: Environment = sandbox ? 'sandbox' : 'live';
      const path = sandbox ? req.path.slice('/sandbox'.length) || '/' : req.path;
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (ENVIRONMENT[key] !== environment) return { status: 401, body: {} };
      if (path === '/payments' && req.method === 'GET') return list(req, 'payments', environment);
      if (path === '/refunds' && req.method === 'GET') return list(req, 'refunds', environment);
      if (path === '/disputes' && req.method === 'GET') return list(req, 'disputes', environment);
      const payment = /^\/payments\/(pay_\w+)$/.exec(path);
      if (payment && req.method === 'GET') {
        const found = store.payments.find(
          (r) => r.entity.payment_id === payment[1] && r.environment === environment,
        );
        return found
          ? { status: 200, body: found.entity }
          : { status: 404, body: { code: 'NOT_FOUND', message: 'Payment not found' } };
      }
      if (path === '/webhooks' && req.method === 'POST') {
        const input = JSON.parse(req.body) as { url?: string; filter_types?: string[]; description?: string };
        if (!input.url) return { status: 422, body: { code: 'INVALID_REQUEST', message: 'url is required' } };
        const now = iso(Date.now());
        const endpoint = {
          id: id('whk'),
          url: input.url,
          events: input.filter_types ?? [],
          secret: `whsec_${randomBytes(24).toString('base64')}`,
          environment,
        };
        endpoints.push(endpoint);
        return {
          status: 200,
          body: {
            id: endpoint.id,
            url: endpoint.url,
            description: input.description ?? '',
            created_at: now,
            updated_at: now,
            disabled: false,
            filter_types: endpoint.events,
            metadata: {},
            rate_limit: null,
          },
        };
      }
      const secret = /^\/webhooks\/(whk_\w+)\/secret$/.exec(path);
      if (secret && req.method === 'GET') {
        const found = endpoints.find((e) => e.id === secret[1] && e.environment === environment);
        return found
          ? { status: 200, body: { secret: found.secret } }
          : { status: 404, body: { code: 'NOT_FOUND', message: 'Webhook not found' } };
      }
      const one = /^\/webhooks\/(whk_\w+)$/.exec(path);
      if (one && req.method === 'DELETE') {
        const at = endpoints.findIndex((e) => e.id === one[1] && e.environment === environment);
        if (at < 0) return { status: 404, body: { code: 'NOT_FOUND', message: 'Webhook not found' } };
        endpoints.splice(at, 1);
        return { status: 200, body: {} };
      }
      return {
        status: 404,
        body: { code: 'NOT_FOUND', message: `${req.method} ${path} is not a Dodo Payments API operation` },
      };
    };
    const server = await startJsonServer(handle);

    const deliver = (type: string, data: Entity, atMs: number, secret: string): Delivery => {
      const body = JSON.stringify({ business_id: BUSINESS, type, timestamp: iso(atMs), data });
      return { headers: signDodo(secret, `msg_${randomBytes(14).toString('base64url')}`, body), body };
    };

    return {
      url: server.url,
      close: server.close,
      keys: KEYS,
      // Dodo's API keys carry their business's full access: there is no key without a permission
      missingPermission: undefined,
      syncCarriesVisitor: true,
      endpoints: () => endpoints.map(({ id, url, events, secret }) => ({ id, url, events, secret })),
      secretFor(url) {
        const found = endpoints.find((e) => e.url === url);
        if (!found) throw new Error(`no webhook for ${url}`);
        return found.secret;
      },
      sale(input: SaleInput, secret: string) {
        const paymentId = id('pay');
        const recurring = input.kind !== 'one_time';
        const subscription = recurring ? (input.subscription ?? id('sub')) : null;
        const known = subscription ? subscriptions.get(subscription) : undefined;
        const customer = known?.customer ?? {
          customer_id: id('cus'),
          name: 'Ada Buyer',
          email: input.email ?? 'ada@example.com',
        };
        // a checkout link's metadata_* parameters become the payment's metadata (and a subscription's)
        const metadata = input.visitor
          ? { footfall_vid: input.visitor }
          : ((known?.metadata as object) ?? {});
        if (subscription && !known) subscriptions.set(subscription, { customer, metadata });
        const entity: Entity = {
          payload_type: 'Payment',
          payment_id: paymentId,
          business_id: BUSINESS,
          brand_id: id('bnd'),
          total_amount: input.amount,
          tax: input.tax,
          settlement_amount: input.amount,
          settlement_currency: input.currency.toUpperCase(),
          settlement_tax: input.tax,
          currency: input.currency.toUpperCase(),
          status: 'succeeded',
          customer,
          metadata,
          subscription_id: subscription,
          discount_id: null,
          payment_link: `https://test.checkout.dodopayments.com/${paymentId}`,
          payment_method: 'card',
          payment_method_type: null,
          card_network: 'VISA',
          card_type: 'CREDIT',
          card_last_four: '4242',
          card_issuing_country: 'DE',
          billing: { city: 'Berlin', country: 'DE', state: 'BE', street: 'Hauptstr. 1', zipcode: '10115' },
          product_cart: [{ product_id: 'pdt_footfall', quantity: 1 }],
          digital_products_delivered: false,
          disputes: [],
          refunds: [],
          error_code: null,
          error_message: null,
          invoice_id: id('inv'),
          created_at: iso(input.at),
          updated_at: iso(input.at),
        };
        store.payments.push({ environment: 'live', entity });
        sales.set(paymentId, entity);
        return {
          paymentId,
          subscription: subscription ?? undefined,
          deliveries: [deliver('payment.succeeded', entity, input.at, secret)],
        };
      },
      refund(paymentId, amount, at, secret) {
        const sale = sales.get(paymentId);
        if (!sale) throw new Error(`no payment ${paymentId}`);
        const refund: Entity = {
          payload_type: 'Refund',
          refund_id: id('ref'),
          payment_id: paymentId,
          business_id: BUSINESS,
          amount,
          currency: sale.currency,
          status: 'succeeded',
          reason: 'Customer request',
          is_partial: amount < Number(sale.total_amount),
          customer: sale.customer,
          created_at: iso(at),
        };
        store.refunds.push({ environment: 'live', entity: refund });
        return {
          refundId: String(refund.refund_id),
          deliveries: [deliver('refund.succeeded', refund, at, secret)],
        };
      },
    };
  },
};
