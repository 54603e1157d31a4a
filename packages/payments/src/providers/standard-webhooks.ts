import { Webhook } from 'standardwebhooks';
import type { SignatureProblem } from '../signature.ts';
import type { HeaderReader } from './types.ts';

/** The Standard Webhooks tolerance for `webhook-timestamp`, as the library and its senders use it. */
const TOLERANCE_MS = 5 * 60 * 1000;

/**
 * Checks a Standard Webhooks delivery (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with
 * the `standardwebhooks` package, the reference implementation Polar and Dodo Payments sign with.
 * The timestamp is checked against `nowMs` first, so the answer says "stale" rather than "mismatch".
 */
export function verifyStandardWebhook(
  webhook: Webhook,
  input: { header: HeaderReader; body: Uint8Array; nowMs: number },
): SignatureProblem | null {
  const id = input.header('webhook-id');
  const timestamp = input.header('webhook-timestamp');
  const signature = input.header('webhook-signature');
  if (!id || !timestamp || !signature) {
    return { code: 'missing', message: 'webhook-id, webhook-timestamp and webhook-signature are required' };
  }
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) * 1000 - input.nowMs) > TOLERANCE_MS) {
    return { code: 'stale', message: 'webhook-timestamp is more than five minutes from the server clock' };
  }
  try {
    webhook.verify(
      Buffer.from(input.body),
      {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      },
      { jsonParse: false },
    );
    return null;
  } catch {
    return { code: 'mismatch', message: 'webhook-signature does not match the body' };
  }
}

/** The delivery's `webhook-id` (a retry of the same message keeps it), when it is a sane one. */
export function standardWebhookId(header: HeaderReader): string | null {
  const id = header('webhook-id')?.trim();
  return id && id.length <= 200 && /^[\w.:-]+$/.test(id) ? id : null;
}

export { Webhook };
