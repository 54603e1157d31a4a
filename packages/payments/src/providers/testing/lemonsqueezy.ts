import { createHmac } from 'node:crypto';
import type { Delivery, FakeApi, FakeProviderKit, FakeRequest, FakeResponse, SaleInput } from './kit.ts';
import { startJsonServer } from './kit.ts';

type Resource = {
  type: 'orders' | 'subscription-invoices';
  id: string;
  attributes: Record<string, unknown> & { created_at: string; updated_at: string };
  relationships: Record<string, unknown>;
  links: { self: string };
};

/** Lemon Squeezy API keys are JWTs; a key is made in test mode or in live mode. */
const KEYS = {
  live: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiI5NGQ1OWNlZi1kYmI4LTRlYTUtYjE3OC1kMjU0MGZjZDY5MTkiLCJtb2RlIjoibGl2ZSJ9.Zm9vdGZhbGwtbGl2ZQ',
  sandbox:
    'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiI5NGQ1OWNlZi1kYmI4LTRlYTUtYjE3OC1kMjU0MGZjZDY5MTkiLCJtb2RlIjoidGVzdCJ9.Zm9vdGZhbGwtdGVzdA',
  rejected:
    'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiI5NGQ1OWNlZi1kYmI4LTRlYTUtYjE3OC1kMjU0MGZjZDY5MTkiLCJtb2RlIjoicmV2b2tlZCJ9.cmV2b2tlZA',
};

/** JSON:API's error document, as Lemon Squeezy answers a request it refuses. */
const jsonApiError = (status: number, title: string, detail: string): FakeResponse => ({
  status,
  body: { jsonapi: { version: '1.0' }, errors: [{ detail, status: String(status), title }] },
});

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '.000000Z');

/** The documented `X-Signature`: the hex HMAC-SHA256 of the raw body with the webhook's secret. */
export function signLemonSqueezy(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Lemon Squeezy's API as Footfall uses it (JSON:API, https://docs.lemonsqueezy.com/api): the user
 * (`meta.test_mode` says the key's mode), stores, webhooks created with the caller's secret and
 * deleted, orders and subscription invoices as paginated lists newest first. Deliveries are shaped
 * like its webhook requests (`meta.event_name`, `meta.custom_data`, the resource in `data`) and
 * signed by the documented scheme (Lemon Squeezy publishes no Node SDK that signs).
 */
export const lemonsqueezyKit: FakeProviderKit = {
  provider: 'lemonsqueezy',
  async start(): Promise<FakeApi> {
    let n = 1000;
    const next = () => String(++n);
    const STORE = '41234';
    const endpoints: { id: string; url: string; events: string[]; secret: string; test: boolean }[] = [];
    const store: Record<Resource['type'], { test: boolean; resource: Resource }[]> = {
      orders: [],
      'subscription-invoices': [],
    };
    const subscriptions = new Map<string, { customData: unknown; customer: number }>();
    const sales = new Map<string, { resource: Resource; customData: unknown }>();

    const list = (req: FakeRequest, type: Resource['type'], test: boolean): FakeResponse => {
      const size = Math.min(Number(req.query.get('page[size]') ?? 10), 100);
      const number = Number(req.query.get('page[number]') ?? 1);
      const storeId = req.query.get('filter[store_id]');
      const rows = store[type]
        .filter((r) => r.test === test)
        .map((r) => r.resource)
        .filter((r) => !storeId || String(r.attributes.store_id) === storeId)
        .sort((a, b) => Date.parse(b.attributes.created_at) - Date.parse(a.attributes.created_at));
      const lastPage = Math.max(1, Math.ceil(rows.length / size));
      const data = rows.slice((number - 1) * size, number * size);
      return {
        status: 200,
        body: {
          meta: {
            page: {
              currentPage: number,
              from: data.length ? (number - 1) * size + 1 : null,
              lastPage,
              perPage: size,
              to: data.length ? (number - 1) * size + data.length : null,
              total: rows.length,
            },
          },
          jsonapi: { version: '1.0' },
          links: { first: `https://api.lemonsqueezy.com/v1/${type}?page[number]=1` },
          data,
        },
      };
    };

    const handle = (req: FakeRequest): FakeResponse => {
      const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (key !== KEYS.live && key !== KEYS.sandbox) {
        return jsonApiError(401, 'Unauthenticated', 'Unauthenticated.');
      }
      if (req.headers.accept !== 'application/vnd.api+json') {
        return jsonApiError(406, 'Not Acceptable', 'The Accept header must be application/vnd.api+json.');
      }
      const test = key === KEYS.sandbox;
      if (req.path === '/v1/users/me' && req.method === 'GET') {
        return {
          status: 200,
          body: {
            jsonapi: { version: '1.0' },
            links: { self: 'https://api.lemonsqueezy.com/v1/users/1' },
            meta: { test_mode: test },
            data: {
              type: 'users',
              id: '1',
              attributes: {
                name: 'Store Owner',
                email: 'owner@example.com',
                color: '#898FA9',
                avatar_url: 'https://www.gravatar.com/avatar/0',
                has_custom_avatar: false,
                createdAt: '2024-05-24T14:08:31.000000Z',
                updatedAt: '2024-08-26T13:24:54.000000Z',
              },
              links: { self: 'https://api.lemonsqueezy.com/v1/users/1' },
            },
          },
        };
      }
      if (req.path === '/v1/stores' && req.method === 'GET') {
        return {
          status: 200,
          body: {
            meta: { page: { currentPage: 1, from: 1, lastPage: 1, perPage: 10, to: 1, total: 1 } },
            jsonapi: { version: '1.0' },
            data: [
              {
                type: 'stores',
                id: STORE,
                attributes: {
                  name: 'Footfall Test Store',
                  slug: 'footfall-test',
                  domain: 'footfall-test.lemonsqueezy.com',
                  url: 'https://footfall-test.lemonsqueezy.com',
                  currency: 'EUR',
                  created_at: '2024-05-24T14:15:06.000000Z',
                  updated_at: '2024-08-26T13:24:54.000000Z',
                },
              },
            ],
          },
        };
      }
      if (req.path === '/v1/webhooks' && req.method === 'POST') {
        const doc = JSON.parse(req.body) as {
          data?: {
            type?: string;
            attributes?: { url?: string; events?: string[]; secret?: string; test_mode?: boolean };
            relationships?: { store?: { data?: { type?: string; id?: string } } };
          };
        };
        const a = doc.data?.attributes;
        const storeId = doc.data?.relationships?.store?.data?.id;
        if (doc.data?.type !== 'webhooks' || !a?.url || !a.events?.length || storeId !== STORE) {
          return jsonApiError(422, 'Unprocessable Entity', 'The given data was invalid.');
        }
        if (!a.secret || a.secret.length < 6 || a.secret.length > 40) {
          return jsonApiError(422, 'Unprocessable Entity', 'The secret must be between 6 and 40 characters.');
        }
        const id = next();
        endpoints.push({ id, url: a.url, events: a.events, secret: a.secret, test });
        const now = iso(Date.now());
        return {
          status: 201,
          body: {
            jsonapi: { version: '1.0' },
            links: { self: `https://api.lemonsqueezy.com/v1/webhooks/${id}` },
            data: {
              type: 'webhooks',
              id,
              attributes: {
                store_id: Number(STORE),
                url: a.url,
                events: a.events,
                last_sent_at: null,
                created_at: now,
                updated_at: now,
                test_mode: test,
              },
            },
          },
        };
      }
      const one = /^\/v1\/webhooks\/(\d+)$/.exec(req.path);
      if (one && req.method === 'DELETE') {
        const at = endpoints.findIndex((e) => e.id === one[1] && e.test === test);
        if (at < 0) return jsonApiError(404, 'Not Found', 'The requested resource was not found.');
        endpoints.splice(at, 1);
        return { status: 204 };
      }
      if (req.path === '/v1/orders' && req.method === 'GET') return list(req, 'orders', test);
      if (req.path === '/v1/subscription-invoices' && req.method === 'GET') {
        return list(req, 'subscription-invoices', test);
      }
      return jsonApiError(404, 'Not Found', `${req.method} ${req.path} is not a Lemon Squeezy API operation`);
    };
    const server = await startJsonServer(handle);

    const deliver = (
      eventName: string,
      resource: Resource,
      customData: unknown,
      secret: string,
      webhookId: string,
    ): Delivery => {
      const meta: Record<string, unknown> = {
        test_mode: false,
        event_name: eventName,
        webhook_id: webhookId,
      };
      if (customData) meta.custom_data = customData;
      const body = JSON.stringify({ meta, data: resource });
      return {
        headers: {
          'content-type': 'application/json',
          'x-event-name': eventName,
          'x-signature': signLemonSqueezy(secret, body),
        },
        body,
      };
    };
    const webhookIdOf = (secret: string) => endpoints.find((e) => e.secret === secret)?.id ?? 'manual';

    return {
      url: server.url,
      close: server.close,
      keys: KEYS,
      // Lemon Squeezy's keys carry their user's full access: there is no key without a permission
      missingPermission: undefined,
      syncCarriesVisitor: false,
      endpoints: () => endpoints.map(({ id, url, events, secret }) => ({ id, url, events, secret })),
      secretFor(url) {
        const found = endpoints.find((e) => e.url === url);
        if (!found) throw new Error(`no webhook for ${url}`);
        return found.secret;
      },
      sale(input: SaleInput, secret: string) {
        const customer = 6_000_000 + n;
        const customData = input.visitor ? { footfall_vid: input.visitor } : undefined;
        const tax = input.tax;
        const money = {
          currency: input.currency.toUpperCase(),
          currency_rate: '1.08',
          subtotal: input.amount - tax,
          discount_total: 0,
          tax,
          total: input.amount,
          subtotal_usd: Math.round((input.amount - tax) * 1.08),
          discount_total_usd: 0,
          tax_usd: Math.round(tax * 1.08),
          total_usd: Math.round(input.amount * 1.08),
          refunded_amount: 0,
          refunded_amount_usd: 0,
          tax_name: 'VAT',
          tax_rate: '20.00',
          tax_inclusive: true,
          refunded: false,
          refunded_at: null,
          test_mode: false,
          created_at: iso(input.at),
          updated_at: iso(input.at),
        };
        const deliveries: Delivery[] = [];
        let resource: Resource;
        let subscription: string | undefined;
        if (input.kind === 'renewal') {
          subscription = input.subscription ?? next();
          const known = subscriptions.get(subscription);
          const id = next();
          resource = {
            type: 'subscription-invoices',
            id,
            attributes: {
              store_id: Number(STORE),
              subscription_id: Number(subscription),
              customer_id: known?.customer ?? customer,
              user_name: 'Ada Buyer',
              user_email: input.email ?? 'ada@example.com',
              billing_reason: 'renewal',
              card_brand: 'visa',
              card_last_four: '4242',
              status: 'paid',
              status_formatted: 'Paid',
              ...money,
            },
            relationships: {},
            links: { self: `https://api.lemonsqueezy.com/v1/subscription-invoices/${id}` },
          };
          store['subscription-invoices'].push({ test: false, resource });
          // Lemon Squeezy sends a subscription's custom data with each of its events
          deliveries.push(
            deliver('subscription_payment_success', resource, known?.customData, secret, webhookIdOf(secret)),
          );
        } else {
          const id = next();
          resource = {
            type: 'orders',
            id,
            attributes: {
              store_id: Number(STORE),
              customer_id: customer,
              identifier: `104e18a2-d755-4d4b-80c4-${id.padStart(12, '0')}`,
              order_number: Number(id),
              user_name: 'Ada Buyer',
              user_email: input.email ?? 'ada@example.com',
              status: 'paid',
              status_formatted: 'Paid',
              first_order_item: {
                id: Number(next()),
                order_id: Number(id),
                product_id: 1,
                variant_id: 1,
                product_name: 'Footfall test product',
                variant_name: input.kind === 'subscription' ? 'Monthly' : 'Default',
                price: input.amount - tax,
                created_at: iso(input.at),
                updated_at: iso(input.at),
                test_mode: false,
              },
              urls: { receipt: `https://app.lemonsqueezy.com/my-orders/${id}` },
              ...money,
            },
            relationships: {},
            links: { self: `https://api.lemonsqueezy.com/v1/orders/${id}` },
          };
          store.orders.push({ test: false, resource });
          deliveries.push(deliver('order_created', resource, customData, secret, webhookIdOf(secret)));
          if (input.kind === 'subscription') {
            subscription = next();
            subscriptions.set(subscription, { customData, customer });
            // the first payment's invoice (billing_reason "initial") repeats the order
            const invoiceId = next();
            const initial: Resource = {
              type: 'subscription-invoices',
              id: invoiceId,
              attributes: {
                store_id: Number(STORE),
                subscription_id: Number(subscription),
                customer_id: customer,
                user_name: 'Ada Buyer',
                user_email: input.email ?? 'ada@example.com',
                billing_reason: 'initial',
                card_brand: 'visa',
                card_last_four: '4242',
                status: 'paid',
                status_formatted: 'Paid',
                ...money,
              },
              relationships: {},
              links: { self: `https://api.lemonsqueezy.com/v1/subscription-invoices/${invoiceId}` },
            };
            store['subscription-invoices'].push({ test: false, resource: initial });
            deliveries.push(
              deliver('subscription_payment_success', initial, customData, secret, webhookIdOf(secret)),
            );
          }
        }
        const paymentId = `${resource.type === 'orders' ? 'order' : 'subinv'}_${resource.id}`;
        sales.set(paymentId, {
          resource,
          customData:
            resource.type === 'orders' ? customData : subscriptions.get(subscription ?? '')?.customData,
        });
        return { paymentId, subscription, deliveries };
      },
      refund(paymentId, amount, at, secret) {
        const sale = sales.get(paymentId);
        if (!sale) throw new Error(`no order ${paymentId}`);
        const { resource } = sale;
        const a = resource.attributes;
        const refunded = Number(a.refunded_amount) + amount;
        Object.assign(a, {
          refunded_amount: refunded,
          refunded_amount_usd: Math.round(refunded * 1.08),
          status: refunded >= Number(a.total) ? 'refunded' : 'partial_refund',
          status_formatted: refunded >= Number(a.total) ? 'Refunded' : 'Partial refund',
          refunded: refunded >= Number(a.total),
          refunded_at: iso(at),
          updated_at: iso(at),
        });
        const event = resource.type === 'orders' ? 'order_refunded' : 'subscription_payment_refunded';
        return {
          refundId: `${paymentId}:refunds`,
          deliveries: [
            deliver(event, structuredClone(resource), sale.customData, secret, webhookIdOf(secret)),
          ],
        };
      },
    };
  },
};
