import { signCustom } from '@footfall/payments';

/** Posts a custom payment event to a custom webhook URL, signed now with its secret. */
export function postCustomEvent(
  url: string,
  secret: string,
  event: Record<string, unknown>,
): Promise<Response> {
  const body = JSON.stringify(event);
  const ts = String(Math.floor(Date.now() / 1000));
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'footfall-timestamp': ts,
      'footfall-signature': signCustom(secret, ts, body),
    },
    body,
  });
}
