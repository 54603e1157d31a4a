import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError, type ProviderId } from '../types.ts';

/**
 * Test support: a local HTTP server that answers a provider's API as the provider documents it,
 * and produces that provider's signed webhook deliveries. One kit per provider
 * (`testing/<provider>.ts`); tests/payments/providers.test.ts runs the same flows over all of them.
 */
export interface FakeProviderKit {
  provider: ProviderId;
  start(): Promise<FakeApi>;
}

/** One delivery as the provider would POST it to the endpoint Footfall created. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

export interface SaleInput {
  /** major units are never used: minor units (cents), tax included */
  amount: number;
  tax: number;
  currency: string;
  /** the footfall_vid the checkout carried (checkout metadata / custom data), if any */
  visitor?: string | undefined;
  email?: string | undefined;
  /** unix ms */
  at: number;
  kind: 'one_time' | 'subscription' | 'renewal';
  /** for a renewal: the subscription of the first payment (as answered in its SaleResult) */
  subscription?: string | undefined;
}

export interface SaleResult {
  /** the payment id as Footfall's ledger records it (the same from a webhook or from reconciliation) */
  paymentId: string;
  /** the provider's subscription id, for a subscription's first payment */
  subscription?: string | undefined;
  /** the deliveries that announce it, signed with the endpoint's secret, in the provider's order */
  deliveries: Delivery[];
}

export interface FakeApi {
  /** the base URL to give Footfall (FOOTFALL_UNSAFE_PAYMENT_APIS) */
  url: string;
  close(): Promise<void>;
  /**
   * API keys: `live` and `sandbox` are accepted with every permission; the others fail as named.
   * `noWebhookPermission` only where the provider has keys with fewer permissions (scoped keys).
   */
  keys: { live: string; sandbox: string; noWebhookPermission?: string; rejected: string };
  /** the permission name Footfall must report for `noWebhookPermission`; undefined without one */
  missingPermission: string | undefined;
  /** whether the API's objects carry the checkout's visitor id (false: only its webhooks do) */
  syncCarriesVisitor: boolean;
  /** webhook endpoints created at the provider: their URL, event list and signing secret */
  endpoints(): { id: string; url: string; events: string[]; secret: string }[];
  /** the signing secret of the one endpoint created for `url` (throws when there is none) */
  secretFor(url: string): string;
  /** A sale: recorded in the provider's state (so reconciliation finds it) and its deliveries. */
  sale(input: SaleInput, secret: string): SaleResult;
  /** A (partial) refund of a payment, recorded and announced. `amount` in minor units. */
  refund(
    paymentId: string,
    amount: number,
    at: number,
    secret: string,
  ): { refundId: string; deliveries: Delivery[] };
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A JSON HTTP server on 127.0.0.1 with one handler; answers 500 with the error when it throws. */
export async function startJsonServer(
  handle: (req: FakeRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let out: FakeResponse;
    try {
      out = await handle({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
    } catch (error) {
      out = { status: 500, body: { error: String(error) } };
    }
    const text = out.body === undefined ? '' : JSON.stringify(out.body);
    res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads a delivery's headers (or a map of them) as an adapter's `verify` and `deliveryId` do. */
export const headerOf =
  (source: Record<string, string> | { headers: Record<string, string> }) =>
  (name: string): string | undefined =>
    ('headers' in source && typeof source.headers === 'object'
      ? source.headers
      : (source as Record<string, string>))[name];

/** The failure of the ProviderError `p` rejects with; throws when it settles any other way. */
export async function providerFailure(p: Promise<unknown>): Promise<ProviderError['failure']> {
  const e = await p.then(
    () => new Error('expected a ProviderError, but it succeeded'),
    (x: unknown) => x,
  );
  if (!(e instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(e)}`);
  return e.failure;
}
