import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { POLAR_API_VERSION, POLAR_SCOPES } from '../polar.ts';
import type { Environment } from '../types.ts';
import type { Delivery, FakeApi, FakeProviderKit, FakeRequest, FakeResponse, SaleInput } from './kit.ts';
import { startJsonServer } from './kit.ts';

type Entity = Record<string, unknown> & { id: string; created_at: string; modified_at: string | null };

/** Organization Access Tokens: the same prefix in production and in the sandbox. */
const KEYS = {
  live: 'polar_oat_FootfallLiveAllScopes0000000000000000000',
  sandbox: 'polar_oat_FootfallSandboxAllScopes000000000000000',
  noWebhookPermission: 'polar_oat_FootfallSandboxReadOnly00000000000000000',
  rejected: 'polar_oat_FootfallRevoked000000000000000000000000',
};
const ENVIRONMENT: Record<string, Environment> = {
  [KEYS.live]: 'live',
  [KEYS.sandbox]: 'sandbox',
  [KEYS.noWebhookPermission]: 'sandbox',
};

/** RFC 6750 bearer errors, as Polar answers them (with the scope the request needed on a 403). */
const bearerError = (status: 401 | 403, scope?: string): FakeResponse => {
  const error = status === 401 ? 'invalid_token' : 'insufficient_scope';
  return {
    status,
    headers: {
      'www-authenticate': `Bearer realm="polar", error="${error}"${scope ? `, scope="${scope}"` : ''}`,
    },
    body: {
      error,
      error_description:
        status === 401
          ? 'The access token provided is expired, revoked, malformed, or invalid for other reasons.'
          : 'The request requires higher privileges than provided by the access token.',
    },
  };
};

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** A delivery signed by the `standardwebhooks` package, keyed as Polar keys it (the secret's UTF-8 bytes). */
export function signPolar(secret: string, id: string, body: string, at = new Date()): Record<string, string> {
  const webhook = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhook.sign(id, at, body),
  };
}

/**
 * Polar's API as Footfall uses it (https://polar.sh/docs/api-reference): orders and refunds as
 * paginated lists newest first, webhook endpoints created (answering their `secret`) and deleted;
 * bearer tokens with scopes, a sandbox host at `/sandbox`. Deliveries are the raw format (`type`,
 * `timestamp`, `data`), signed as Polar signs them.
 */
export const polarKit: FakeProviderKit = {
  provider: 'polar',
  async start(): Promise<FakeApi> {
    const ORGANIZATION = randomUUID();
    const endpoints: {
      id: string;
      url: string;
      events: string[];
      secret: string;
      environment: Environment;
    }[] = [];
    const store: Record<'orders' | 'refunds', { environment: Environment; entity: Entity }[]> = {
      orders: [],
      refunds: [],
    };
    const subscriptions = new Map<string, { customer: Record<string, unknown>; metadata: unknown }>();
    const sales = new Map<string, Entity>();

    const list = (req: FakeRequest, kind: 'orders' | 'refunds', environment: Environment): FakeResponse => {
      const limit = Math.min(Number(req.query.get('limit') ?? 10), 100);
      const page = Math.max(1, Number(req.query.get('page') ?? 1));
      const desc = (req.query.get('sorting') ?? '-created_at') === '-created_at';
      const after = req.query.get('created_after');
      const rows = store[kind]
        .filter((r) => r.environment === environment)
        .map((r) => r.entity)
        .filter((e) => !after || Date.parse(e.created_at) >= Date.parse(after))
        .sort((a, b) => (Date.parse(a.created_at) - Date.parse(b.created_at)) * (desc ? -1 : 1));
      return {
        status: 200,
        body: {
          items: rows.slice((page - 1) * limit, page * limit),
          pagination: { total_count: rows.length, max_page: Math.max(1, Math.ceil(rows.length / limit)) },
        },
      };
    };

    const handle = (req: FakeRequest): FakeResponse => {
      const sandbox = req.path === '/sandbox' || req.path.startsWith('/sandbox/');
      const environment: Environment = sandbox ? 'sandbox' : 'live';
      const path = sandbox ? req.path.slice('/sandbox'.length) || '/' : req.path;
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      // a token is known to its own environment's host only
      if (ENVIRONMENT[token] !== environment) return bearerError(401);
      if (req.headers['polar-version'] !== POLAR_API_VERSION) {
        return { status: 400, body: { error: 'InvalidVersion', detail: 'Unknown Polar-Version' } };
      }
      if (path === '/v1/orders/' && req.method === 'GET') return list(req, 'orders', environment);
      if (path === '/v1/refunds/' && req.method === 'GET') return list(req, 'refunds', environment);
      if (path === '/v1/webhooks/endpoints' && req.method === 'POST') {
        if (token === KEYS.noWebhookPermission) return bearerError(403, POLAR_SCOPES.webhooks);
        const input = JSON.parse(req.body) as {
          url?: string;
          format?: string;
          events?: string[];
          api_version?: string;
          name?: string;
        };
        if (!input.url || !input.format || !Array.isArray(input.events)) {
          return {
            status: 422,
            body: {
              detail: [{ loc: ['body', 'url'], msg: 'Field required', type: 'missing', input: input }],
            },
          };
        }
        const now = iso(Date.now());
        const endpoint = {
          id: randomUUID(),
          url: input.url,
          events: input.events,
          secret: `polar_whs_${randomBytes(32).toString('base64url')}`,
          environment,
        };
        endpoints.push(endpoint);
        return {
          status: 201,
          body: {
            created_at: now,
            modified_at: null,
            id: endpoint.id,
            url: endpoint.url,
            name: input.name ?? null,
            api_version: input.api_version ?? POLAR_API_VERSION,
            format: input.format,
            secret: endpoint.secret,
            organization_id: ORGANIZATION,
            events: endpoint.events,
            enabled: true,
          },
        };
      }
      const one = /^\/v1\/webhooks\/endpoints\/([\w-]+)$/.exec(path);
      if (one && req.method === 'DELETE') {
        if (token === KEYS.noWebhookPermission) return bearerError(403, POLAR_SCOPES.webhooks);
        const at = endpoints.findIndex((e) => e.id === one[1] && e.environment === environment);
        if (at < 0) return { status: 404, body: { error: 'ResourceNotFound', detail: 'Not found' } };
        endpoints.splice(at, 1);
        return { status: 204 };
      }
      return { status: 404, body: { detail: 'Not Found' } };
    };
    const server = await startJsonServer(handle);

    const deliver = (type: string, data: Entity, atMs: number, secret: string): Delivery => {
      const body = JSON.stringify({ type, timestamp: iso(atMs), data });
      return { headers: signPolar(secret, `msg_${randomBytes(14).toString('base64url')}`, body), body };
    };

    return {
      url: server.url,
      close: server.close,
      keys: KEYS,
      missingPermission: POLAR_SCOPES.webhooks,
      syncCarriesVisitor: true,
      endpoints: () => endpoints.map(({ id, url, events, secret }) => ({ id, url, events, secret })),
      secretFor(url) {
        const found = endpoints.find((e) => e.url === url);
        if (!found) throw new Error(`no webhook endpoint for ${url}`);
        return found.secret;
      },
      sale(input: SaleInput, secret: string) {
        const id = randomUUID();
        const currency = input.currency.toLowerCase();
        const recurring = input.kind !== 'one_time';
        const subscription = recurring ? (input.subscription ?? randomUUID()) : null;
        const known = subscription ? subscriptions.get(subscription) : undefined;
        const customerId = randomUUID();
        const customer = known?.customer ?? {
          id: customerId,
          created_at: iso(input.at - 60_000),
          modified_at: null,
          metadata: {},
          external_id: null,
          email: input.email ?? 'ada@example.com',
          email_verified: false,
          name: 'Ada Buyer',
          billing_address: {
            country: 'DE',
            line1: null,
            line2: null,
            postal_code: null,
            city: null,
            state: null,
          },
          tax_id: null,
          organization_id: ORGANIZATION,
          deleted_at: null,
          avatar_url: null,
        };
        // a Checkout Link's reference_id lands in the checkout's metadata, and from there in its orders
        const metadata = input.visitor
          ? { reference_id: input.visitor }
          : ((known?.metadata as object) ?? {});
        if (subscription && !known) subscriptions.set(subscription, { customer, metadata });
        const net = input.amount - input.tax;
        const order: Entity = {
          id,
          created_at: iso(input.at),
          modified_at: iso(input.at),
          status: 'paid',
          paid: true,
          subtotal_amount: net,
          discount_amount: 0,
          net_amount: net,
          tax_amount: input.tax,
          total_amount: input.amount,
          applied_balance_amount: 0,
          due_amount: 0,
          refunded_amount: 0,
          refunded_tax_amount: 0,
          currency,
          billing_reason:
            input.kind === 'one_time'
              ? 'purchase'
              : input.kind === 'subscription'
                ? 'subscription_create'
                : 'subscription_cycle',
          billing_name: 'Ada Buyer',
          billing_address: customer.billing_address,
          invoice_number: `FOOT-${id.slice(0, 4).toUpperCase()}-0001`,
          is_invoice_generated: false,
          customer_id: customer.id,
          product_id: 'b9f8c1de-0c2a-4a8f-9d38-3b0c7e2a6f11',
          discount_id: null,
          subscription_id: subscription,
          checkout_id: input.kind === 'renewal' ? null : randomUUID(),
          metadata,
          custom_field_data: {},
          platform_fee_amount: Math.round(input.amount * 0.04) + 40,
          customer,
          user_id: customer.id,
          description: recurring ? 'Monthly subscription' : 'One-time purchase',
          items: [
            {
              created_at: iso(input.at),
              modified_at: null,
              id: randomUUID(),
              label: 'Footfall test product',
              amount: net,
              tax_amount: input.tax,
              proration: false,
              product_price_id: '5b1a3c4d-2e6f-4a7b-8c9d-0e1f2a3b4c5d',
            },
          ],
        };
        store.orders.push({ environment: 'live', entity: order });
        sales.set(id, order);
        return {
          paymentId: id,
          subscription: subscription ?? undefined,
          deliveries: [deliver('order.paid', order, input.at, secret)],
        };
      },
      refund(paymentId, amount, at, secret) {
        const order = sales.get(paymentId);
        if (!order) throw new Error(`no order ${paymentId}`);
        // Polar refunds `amount` and the tax it carries on top; the kit splits what it was asked for
        const tax = Math.round((amount * Number(order.tax_amount)) / Number(order.total_amount));
        const id = randomUUID();
        const pending: Entity = {
          created_at: iso(at - 2_000),
          modified_at: null,
          id,
          metadata: {},
          status: 'pending',
          reason: 'customer_request',
          amount: amount - tax,
          tax_amount: tax,
          currency: order.currency,
          organization_id: ORGANIZATION,
          order_id: paymentId,
          subscription_id: order.subscription_id,
          customer_id: order.customer_id,
          revoke_benefits: false,
        };
        const succeeded: Entity = { ...pending, status: 'succeeded', modified_at: iso(at) };
        store.refunds.push({ environment: 'live', entity: succeeded });
        order.refunded_amount = Number(order.refunded_amount) + amount - tax;
        order.refunded_tax_amount = Number(order.refunded_tax_amount) + tax;
        order.status =
          Number(order.refunded_amount) >= Number(order.net_amount) ? 'refunded' : 'partially_refunded';
        return {
          refundId: id,
          deliveries: [
            deliver('refund.created', pending, at - 2_000, secret),
            deliver('refund.updated', succeeded, at, secret),
          ],
        };
      },
    };
  },
};
