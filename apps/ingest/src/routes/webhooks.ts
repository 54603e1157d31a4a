import { AppError, limitBody } from '@footfall/http';
import {
  checkCustomSignature,
  emailIn,
  loadProvider,
  noteWaiting,
  PROVIDERS,
  type Provider,
  parseCustomEvent,
  receiveWebhook,
  storeDelivery,
  type WebhookTarget,
  webhookTarget,
} from '@footfall/payments';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { IngestDeps } from '../deps.ts';

/** A custom payment event is a few hundred bytes. */
export const WEBHOOK_BODY_BYTES = 64 * 1024;
/** A provider's event is a few kilobytes (a checkout session with its lines, some tens at most). */
export const PROVIDER_WEBHOOK_BODY_BYTES = 256 * 1024;

type Deps = Pick<IngestDeps, 'control' | 'now' | 'logger'> & Partial<Pick<IngestDeps, 'stats'>>;

/** The body as JSON; a 400 naming the problem otherwise. */
function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new AppError('invalid_body', 'the body is not JSON');
  }
}

/** The connection a URL names, when it is of that provider and has a secret; the answers otherwise. */
function target(deps: Deps, provider: string, id: string): WebhookTarget & { secret: string } {
  const found = (PROVIDERS as readonly string[]).includes(provider)
    ? webhookTarget(deps.control, id)
    : undefined;
  if (found === undefined || found.provider !== (provider as Provider)) {
    throw new AppError('not_found', 'no such payment connection');
  }
  if (found.secret === null) {
    // the provider retries a 503 for hours to days: the owner pastes the secret meanwhile
    noteWaiting(deps.control, found.id);
    throw new AppError('unavailable', 'this connection has no signing secret yet; retry later', {
      retryAfter: 60,
    });
  }
  return found as WebhookTarget & { secret: string };
}

/** Stores a verified delivery; a storage failure is a 503 so the sender retries. */
function store(deps: Deps, found: WebhookTarget, run: () => { duplicate: boolean }): { duplicate: boolean } {
  try {
    return run();
  } catch (error) {
    deps.logger.error({ err: error, connection: found.id }, 'could not store a payment webhook');
    throw new AppError('unavailable', 'the webhook could not be stored; retry later', { retryAfter: 30 });
  }
}

/**
 * Payment webhooks (docs/payments.md). Each URL names its provider and connection; every failure
 * is a JSON error that stores nothing: the connection exists and is of that provider (404), has a
 * signing secret (503 + Retry-After, so the provider retries), the body is at most 64 KB (custom)
 * or 256 KB (providers) (413),
 * the signature matches under the provider's scheme (401), the body is JSON of that provider (400).
 * Then the payload is stored raw in the inbox with its ledger lines, fsynced, and only then
 * answered 200; the same event again is answered 200 and changes nothing.
 */
export function webhookRoutes(deps: Deps) {
  return (
    new Hono()
      // every answer counted by provider and status, for /metrics (a refusal is answered by onError first)
      .use('/webhooks/:provider/:connection', async (c, next) => {
        await next();
        const provider = c.req.param('provider');
        deps.stats?.webhook(
          (PROVIDERS as readonly string[]).includes(provider) ? provider : 'unknown',
          c.res.status,
        );
      })
      .post('/webhooks/custom/:connection', limitBody(WEBHOOK_BODY_BYTES), async (c) => {
        const found = target(deps, 'custom', c.req.param('connection'));
        const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/json') {
          throw new AppError('unsupported_media_type', 'the body must be application/json');
        }
        const body = new Uint8Array(await c.req.arrayBuffer());
        const problem = checkCustomSignature({
          secret: found.secret,
          timestamp: c.req.header('footfall-timestamp'),
          signature: c.req.header('footfall-signature'),
          body,
          nowMs: deps.now(),
        });
        if (problem) throw new AppError('unauthorized', problem.message);
        const event = parseCustomEvent(parseJson(body));
        const { duplicate } = store(deps, found, () => receiveWebhook(deps.control, found, event, body));
        return c.json({ received: true, duplicate }, 200);
      })
      .post('/webhooks/:provider/:connection', limitBody(PROVIDER_WEBHOOK_BODY_BYTES), async (c: Context) => {
        const found = target(deps, c.req.param('provider')!, c.req.param('connection')!);
        const adapter = await loadProvider(found.provider as Exclude<Provider, 'custom'>);
        const body = new Uint8Array(await c.req.arrayBuffer());
        const header = (name: string) => c.req.header(name);
        const problem = adapter.verify({ secret: found.secret, header, body, nowMs: deps.now() });
        if (problem) throw new AppError('unauthorized', problem.message);
        const payload = parseJson(body);
        const eventId = adapter.deliveryId(payload, header);
        if (eventId === null) throw new AppError('invalid_body', `the body is not a ${adapter.name} event`);
        const events = adapter.toLedger(payload, 'webhook');
        // an event that moves no money (the endpoint's list is fixed, so rare) is kept as well: the
        // inbox holds every verified delivery, and the ledger rebuilt from it reads nothing from it
        const email = events.length === 0 ? emailIn(payload) : undefined;
        const { duplicate } = store(deps, found, () =>
          storeDelivery(deps.control, found, { eventId, body, events, source: 'webhook', email }),
        );
        return c.json(
          { received: true, duplicate, ...(events.length === 0 ? { moves_money: false } : {}) },
          200,
        );
      })
  );
}
