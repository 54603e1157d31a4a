import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a custom webhook's timestamp may be from the server's clock (spec, Limits). */
export const TIMESTAMP_SKEW_MS = 5 * 60 * 1000;

export type SignatureProblem =
  | { code: 'missing'; message: string }
  | { code: 'stale'; message: string }
  | { code: 'mismatch'; message: string };

/** `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<body>` keyed with the signing secret. */
export function signCustom(secret: string, timestamp: string, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  return `v1=${mac}`;
}

/**
 * Checks `Footfall-Timestamp` (unix seconds, within five minutes of `nowMs`) and
 * `Footfall-Signature` (one or more comma-separated `v1=<hex>`, so a sender can sign with an old
 * and a new secret while rotating). The comparison is constant-time. Answers null when valid.
 */
export function checkCustomSignature(input: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: Uint8Array;
  nowMs: number;
}): SignatureProblem | null {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) {
    return { code: 'missing', message: 'Footfall-Timestamp and Footfall-Signature are required' };
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    return { code: 'stale', message: 'Footfall-Timestamp must be unix seconds' };
  }
  if (Math.abs(Number(timestamp) * 1000 - input.nowMs) > TIMESTAMP_SKEW_MS) {
    return { code: 'stale', message: 'Footfall-Timestamp is more than five minutes from the server clock' };
  }
  const expected = Buffer.from(signCustom(input.secret, timestamp, input.body).slice(3), 'hex');
  const given = signature
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => Buffer.from(part.slice(3), 'hex'));
  // a wrong length compares against the expected value anyway, so timing says nothing
  const ok = given.some((mac) =>
    mac.length === expected.length ? timingSafeEqual(mac, expected) : !timingSafeEqual(expected, expected),
  );
  return ok ? null : { code: 'mismatch', message: 'Footfall-Signature does not match the body' };
}
