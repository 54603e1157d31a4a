import { createHmac, randomBytes } from 'node:crypto';
import { PADDLE_API_VERSION, PADDLE_PERMISSIONS } from '../paddle.ts';
import type { Environment } from '../types.ts';
import type { Delivery, FakeApi, FakeProviderKit, FakeRequest, FakeResponse, SaleInput } from './kit.ts';
import { startJsonServer } from './kit.ts';

type Entity = Record<string, unknown> & { id: string; created_at: string; updated_at: string };

const KEYS = {
  live: 'pdl_live_apikey_01jffootfallliveallaccess00_q6TGTJyvoIz7LDtXT65bX7_AQO',
  sandbox: 'pdl_sdbx_apikey_01jffootfallsandboxaccess00_Ld2wQk7DtXT65bX7yvoIz7_ZRA',
  noWebhookPermission: 'pdl_sdbx_apikey_01jffootfallreadonlyaccess0_Bq8ZyvoIz7LDtXT65bX7q6_PLM',
  rejected: 'pdl_live_apikey_01jffootfallrevokedkey000000_Tz3kLDtXT65bX7q6TGTJyvo_XYZ',
};

/** A key made before May 2025: no pdl_ prefix, valid on the sandbox host only (for tests of that path). */
export const PADDLE_LEGACY_SANDBOX_KEY = 'a9b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4';

/** Which environment each accepted key belongs to. */
const KEY_ENVIRONMENT: Record<string, Environment> = {
  [KEYS.live]: 'live',
  [KEYS.sandbox]: 'sandbox',
  [KEYS.noWebhookPermission]: 'sandbox',
  [PADDLE_LEGACY_SANDBOX_KEY]: 'sandbox',
};

/** Paddle's error body (api-reference/about/errors): `{ error: { type, code, detail, documentation_url }, meta }`. */
const paddleError = (status: number, code: string, detail: string): FakeResponse => ({
  status,
  body: {
    error: {
      type: 'request_error',
      code,
      detail,
      documentation_url: `https://developer.paddle.com/errors/shared/${code}`,
    },
    meta: { request_id: '00000000-0000-4000-8000-000000000000' },
  },
});

const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** The documented `Paddle-Signature`: HMAC-SHA256 of `<ts>:<raw body>` with the destination's secret key. */
export function signPaddle(secret: string, body: string, nowMs = Date.now()): string {
  const ts = Math.floor(nowMs / 1000);
  return `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}`;
}

/**
 * Paddle Billing's API as Footfall uses it (Paddle-Version 1): transactions and adjustments as
 * paginated lists, notification settings created (with their `endpoint_secret_key`) and deleted;
 * bearer keys, a sandbox host at `/sandbox`; notifications shaped like Paddle's event payloads and
 * signed as Paddle signs them. Paddle's SDK only checks signatures (it has no signer), so the kit
 * signs by the documented scheme and the tests check it with the SDK.
 */
export const paddleKit: FakeProviderKit = {
  provider: 'paddle',
  async start(): Promise<FakeApi> {
    let n = 0;
    // Paddle ids: a prefix and 26 lower-case characters, growing with time (lists order by id)
    const next = (prefix: string) => `${prefix}_01jf${(++n).toString(36).padStart(22, '0')}`;
    const endpoints: {
      id: string;
      url: string;
      events: string[];
      secret: string;
      environment: Environment;
      body: Record<string, unknown>;
    }[] = [];
    const store: Record<'transactions' | 'adjustments', { environment: Environment; entity: Entity }[]> = {
      transactions: [],
      adjustments: [],
    };
    const subscriptions = new Map<string, { custom_data: unknown; customer_id: string }>();
    /** what a refund needs of its transaction */
    const sales = new Map<
      string,
      {
        environment: Environment;
        amount: number;
        tax: number;
        fee: number;
        currency: string;
        lineItem: string;
        customer: string;
        subscription: string | null;
      }
    >();

    const list = (req: FakeRequest, kind: 'transactions' | 'adjustments', environment: Environment) => {
      const max = kind === 'transactions' ? 200 : 50;
      const perPage = Math.min(Number(req.query.get('per_page') ?? (kind === 'transactions' ? 30 : 10)), max);
      const statuses = req.query.get('status')?.split(',');
      const updatedSince = req.query.get('updated_at[GTE]');
      const desc = (req.query.get('order_by') ?? 'id[DESC]') === 'id[DESC]';
      const after = req.query.get('after');
      let rows = store[kind]
        .filter((r) => r.environment === environment)
        .map((r) => r.entity)
        .filter((e) => !statuses || statuses.includes(String(e.status)))
        .filter((e) => !updatedSince || Date.parse(e.updated_at) >= Date.parse(updatedSince))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      if (desc) rows.reverse();
      if (after) rows = rows.filter((e) => (desc ? e.id < after : e.id > after));
      const data = rows.slice(0, perPage);
      const query = new URLSearchParams(req.query);
      if (data.length > 0) query.set('after', data[data.length - 1]!.id);
      return {
        status: 200,
        body: {
          data,
          meta: {
            request_id: '00000000-0000-4000-8000-000000000001',
            pagination: {
              per_page: perPage,
              next: `https://api.paddle.com/${kind}?${query}`,
              has_more: rows.length > data.length,
              estimated_total: rows.length,
            },
          },
        },
      };
    };

    const handle = (req: FakeRequest): FakeResponse => {
      const sandbox = req.path === '/sandbox' || req.path.startsWith('/sandbox/');
      const environment: Environment = sandbox ? 'sandbox' : 'live';
      const path = sandbox ? req.path.slice('/sandbox'.length) || '/' : req.path;
      const auth = req.headers.authorization;
      if (!auth) return paddleError(401, 'authentication_missing', 'Authentication header missing.');
      const bearer = /^bearer (\S+)$/i.exec(auth);
      if (!bearer) {
        return paddleError(
          403,
          'authentication_malformed',
          'Authentication header included, but incorrectly formatted.',
        );
      }
      // a key of the other environment is as unknown to a host as a revoked one
      if (KEY_ENVIRONMENT[bearer[1]!] !== environment) {
        return paddleError(403, 'invalid_token', 'Invalid or revoked API key.');
      }
      const key = bearer[1]!;
      if (req.headers['paddle-version'] !== String(PADDLE_API_VERSION)) {
        return paddleError(400, 'invalid_version', 'Paddle-Version is not a valid version.');
      }
      if (path === '/transactions' && req.method === 'GET') return list(req, 'transactions', environment);
      if (path === '/adjustments' && req.method === 'GET') return list(req, 'adjustments', environment);
      if (path === '/notification-settings' && req.method === 'POST') {
        if (key === KEYS.noWebhookPermission) {
          return paddleError(403, 'forbidden', "You aren't permitted to perform this request.");
        }
        const input = JSON.parse(req.body) as Record<string, unknown>;
        const destination = String(input.destination ?? '');
        const events = Array.isArray(input.subscribed_events) ? input.subscribed_events.map(String) : [];
        if (!destination || input.type !== 'url' || events.length === 0 || !input.description) {
          return paddleError(400, 'bad_request', 'Invalid request.');
        }
        const id = next('ntfset');
        const secret = `pdl_ntfset_${id.slice(7)}_${randomBytes(24).toString('base64url')}`;
        const body = {
          id,
          description: input.description,
          type: 'url',
          destination,
          active: true,
          api_version: input.api_version ?? PADDLE_API_VERSION,
          include_sensitive_fields: input.include_sensitive_fields ?? false,
          traffic_source: input.traffic_source ?? 'platform',
          subscribed_events: events.map((name) => ({
            name,
            description: name,
            group: name.split('.')[0],
            available_versions: [1],
          })),
          endpoint_secret_key: secret,
        };
        endpoints.push({ id, url: destination, events, secret, environment, body });
        return {
          status: 201,
          body: { data: body, meta: { request_id: '00000000-0000-4000-8000-000000000002' } },
        };
      }
      const one = /^\/notification-settings\/(ntfset_\w+)$/.exec(path);
      if (one && req.method === 'DELETE') {
        if (key === KEYS.noWebhookPermission) {
          return paddleError(403, 'forbidden', "You aren't permitted to perform this request.");
        }
        const at = endpoints.findIndex((e) => e.id === one[1] && e.environment === environment);
        if (at < 0) return paddleError(404, 'not_found', 'Entity not found.');
        endpoints.splice(at, 1);
        return { status: 204 };
      }
      return paddleError(404, 'not_found', `${req.method} ${path} is not a Paddle API operation`);
    };
    const server = await startJsonServer(handle);

    const notify = (eventType: string, data: Entity, occurredMs: number, secret: string): Delivery => {
      const body = JSON.stringify({
        event_id: next('evt'),
        event_type: eventType,
        occurred_at: iso(occurredMs),
        notification_id: next('ntf'),
        data,
      });
      return {
        headers: { 'content-type': 'application/json', 'paddle-signature': signPaddle(secret, body) },
        body,
      };
    };

    return {
      url: server.url,
      close: server.close,
      keys: KEYS,
      missingPermission: PADDLE_PERMISSIONS.notifications,
      syncCarriesVisitor: true,
      endpoints: () => endpoints.map(({ id, url, events, secret }) => ({ id, url, events, secret })),
      secretFor(url) {
        const found = endpoints.find((e) => e.url === url);
        if (!found) throw new Error(`no notification destination for ${url}`);
        return found.secret;
      },
      sale(input: SaleInput, secret: string) {
        const id = next('txn');
        const currency = input.currency.toUpperCase();
        const recurring = input.kind !== 'one_time';
        const first = input.kind === 'subscription';
        const subscription = recurring ? (input.subscription ?? next('sub')) : null;
        const known = subscription ? subscriptions.get(subscription) : undefined;
        const customer = known?.customer_id ?? next('ctm');
        // Paddle copies a checkout's custom data to its subscription, and the subscription's to renewals
        const customData = input.visitor ? { footfall_vid: input.visitor } : (known?.custom_data ?? null);
        if (subscription && !known)
          subscriptions.set(subscription, { custom_data: customData, customer_id: customer });
        const subtotal = String(input.amount - input.tax);
        const fee = String(Math.round(input.amount * 0.05) + 50);
        const earnings = String(input.amount - input.tax - Number(fee));
        const totals = {
          subtotal,
          discount: '0',
          tax: String(input.tax),
          total: String(input.amount),
          credit: '0',
          credit_to_balance: '0',
          balance: '0',
          grand_total: String(input.amount),
          fee,
          earnings,
          currency_code: currency,
        };
        const billingCycle = recurring ? { interval: 'month', frequency: 1 } : null;
        const lineItem = next('txnitm');
        const transaction: Entity = {
          id,
          status: 'completed',
          customer_id: customer,
          address_id: next('add'),
          business_id: null,
          custom_data: customData,
          origin: first || !recurring ? 'web' : 'subscription_recurring',
          collection_mode: 'automatic',
          subscription_id: subscription,
          invoice_id: next('inv'),
          invoice_number: `325-${String(n).padStart(5, '0')}`,
          billing_details: null,
          billing_period: recurring
            ? { starts_at: iso(input.at), ends_at: iso(input.at + 30 * 86_400_000) }
            : null,
          currency_code: currency,
          discount_id: null,
          created_at: iso(input.at - 30_000),
          updated_at: iso(input.at),
          billed_at: iso(input.at),
          revised_at: null,
          items: [
            {
              price: {
                id: 'pri_01jffootfallprice000000000',
                product_id: 'pro_01jffootfallproduct0000000',
                description: recurring ? 'Monthly' : 'One-time',
                name: recurring ? 'Monthly' : 'One-time',
                type: 'standard',
                billing_cycle: billingCycle,
                trial_period: null,
                tax_mode: 'account_setting',
                unit_price: { amount: subtotal, currency_code: currency },
                unit_price_overrides: [],
                quantity: { minimum: 1, maximum: 1 },
                status: 'active',
                custom_data: null,
              },
              quantity: 1,
              proration: null,
            },
          ],
          details: {
            tax_rates_used: [
              {
                tax_rate: input.tax === 0 ? '0' : (input.tax / (input.amount - input.tax)).toFixed(2),
                totals: { subtotal, discount: '0', tax: String(input.tax), total: String(input.amount) },
              },
            ],
            totals,
            adjusted_totals: {
              subtotal,
              tax: String(input.tax),
              total: String(input.amount),
              grand_total: String(input.amount),
              fee,
              earnings,
              currency_code: currency,
            },
            payout_totals: null,
            adjusted_payout_totals: null,
            line_items: [
              {
                id: lineItem,
                price_id: 'pri_01jffootfallprice000000000',
                quantity: 1,
                proration: null,
                tax_rate: '0',
                unit_totals: { subtotal, discount: '0', tax: String(input.tax), total: String(input.amount) },
                totals: { subtotal, discount: '0', tax: String(input.tax), total: String(input.amount) },
                product: { id: 'pro_01jffootfallproduct0000000', name: 'Footfall test product' },
              },
            ],
          },
          payments: [
            {
              payment_attempt_id: '3e575fab-e1f2-4168-9ef7-3dd724f450a0',
              stored_payment_method_id: '6fd9d503-085a-4af1-a562-f05d7217cdd2',
              payment_method_id: next('paymtd'),
              amount: String(input.amount),
              status: 'captured',
              error_code: null,
              method_details: {
                type: 'card',
                card: {
                  type: 'visa',
                  last4: '4242',
                  expiry_month: 12,
                  expiry_year: 2030,
                  cardholder_name: 'Ada Buyer',
                },
              },
              created_at: iso(input.at - 5_000),
              captured_at: iso(input.at - 1_000),
            },
          ],
          checkout: { url: `https://example.com/pay?_ptxn=${id}` },
        };
        store.transactions.push({ environment: 'live', entity: transaction });
        sales.set(id, {
          environment: 'live',
          amount: input.amount,
          tax: input.tax,
          fee: Number(fee),
          currency,
          lineItem,
          customer,
          subscription,
        });
        return {
          paymentId: id,
          subscription: subscription ?? undefined,
          deliveries: [notify('transaction.completed', transaction, input.at, secret)],
        };
      },
      refund(paymentId, amount, at, secret) {
        const sale = sales.get(paymentId);
        if (!sale) throw new Error(`no transaction ${paymentId}`);
        const tax = Math.round((amount * sale.tax) / sale.amount);
        const fee = Math.round((amount * sale.fee) / sale.amount);
        const adjustmentTotals = {
          subtotal: String(amount - tax),
          tax: String(tax),
          total: String(amount),
          fee: String(fee),
          earnings: String(amount - tax - fee),
          currency_code: sale.currency,
        };
        const id = next('adj');
        const requested: Entity = {
          id,
          action: 'refund',
          type: 'partial',
          transaction_id: paymentId,
          subscription_id: sale.subscription,
          customer_id: sale.customer,
          reason: 'requested_by_customer',
          credit_applied_to_balance: false,
          currency_code: sale.currency,
          status: 'pending_approval',
          items: [
            {
              id: next('adjitm'),
              item_id: sale.lineItem,
              type: 'partial',
              amount: String(amount),
              proration: null,
              totals: adjustmentTotals,
            },
          ],
          totals: { ...adjustmentTotals, retained_fee: '0' },
          payout_totals: { ...adjustmentTotals, retained_fee: '0', chargeback_fee: null },
          created_at: iso(at - 60_000),
          updated_at: iso(at - 60_000),
        };
        const approved: Entity = { ...requested, status: 'approved', updated_at: iso(at) };
        store.adjustments.push({ environment: sale.environment, entity: approved });
        return {
          refundId: id,
          deliveries: [
            notify('adjustment.created', requested, at - 60_000, secret),
            notify('adjustment.updated', approved, at, secret),
          ],
        };
      },
    };
  },
};
