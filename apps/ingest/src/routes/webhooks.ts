import { AppError } from '@footfall/http';
import { checkCustomSignature, parseCustomEvent, receiveWebhook, webhookTarget } from '@footfall/payments';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { IngestDeps } from '../deps.ts';

/** A payment event is a few hundred bytes; a provider's, a few kilobytes. */
export const WEBHOOK_BODY_BYTES = 64 * 1024;

/**
 * `POST /webhooks/custom/<connection>`: a custom payment event (docs/payments.md). Checked in this
 * order, each failure a JSON error that stores nothing: the connection exists (404), has a signing
 * secret (503 + Retry-After, so the sender retries), the body is JSON of at most 64 KB (415, 413),
 * the timestamp is within five minutes and the signature matches (401), the event is valid (400
 * naming the field). Then it is stored in the inbox and applied to the ledger, fsynced, and only
 * then answered 200; the same event id again is answered 200 and changes nothing.
 */
export function webhookRoutes(deps: Pick<IngestDeps, 'control' | 'now' | 'logger'>) {
  return new Hono().post(
    '/webhooks/custom/:connection',
    bodyLimit({
      maxSize: WEBHOOK_BODY_BYTES,
      onError: () => {
        throw new AppError('payload_too_large', `the body must be at most ${WEBHOOK_BODY_BYTES} bytes`);
      },
    }),
    async (c) => {
      const target = webhookTarget(deps.control, c.req.param('connection'));
      if (target === undefined || target.provider !== 'custom') {
        throw new AppError('not_found', 'no such payment connection');
      }
      if (target.secret === null) {
        throw new AppError('unavailable', 'this connection has no signing secret yet; retry later', {
          retryAfter: 60,
        });
      }
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        throw new AppError('unsupported_media_type', 'the body must be application/json');
      }
      const body = new Uint8Array(await c.req.arrayBuffer());
      const problem = checkCustomSignature({
        secret: target.secret,
        timestamp: c.req.header('footfall-timestamp'),
        signature: c.req.header('footfall-signature'),
        body,
        nowMs: deps.now(),
      });
      if (problem) throw new AppError('unauthorized', problem.message);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
      } catch {
        throw new AppError('invalid_body', 'the body is not JSON');
      }
      const event = parseCustomEvent(json);
      let duplicate: boolean;
      try {
        ({ duplicate } = receiveWebhook(deps.control, target, event, body));
      } catch (error) {
        deps.logger.error({ err: error, connection: target.id }, 'could not store a payment webhook');
        throw new AppError('unavailable', 'the webhook could not be stored; retry later', { retryAfter: 30 });
      }
      return c.json({ received: true, duplicate }, 200);
    },
  );
}
