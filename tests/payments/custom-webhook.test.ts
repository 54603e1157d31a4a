import { createConnection, signCustom } from '@footfall/payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/gateway.ts';

/**
 * `POST /webhooks/custom/<connection>` against the real gateway: each rule of docs/payments.md,
 * and for every refusal, nothing stored.
 */
let gw: Awaited<ReturnType<typeof startTestGateway>>;
let connection: string;
let secret: string;
beforeAll(async () => {
  gw = await startTestGateway();
  const made = createConnection(gw.control, { siteId: gw.site.id, provider: 'custom' });
  connection = made.connection.id;
  secret = made.signingSecret;
});
afterAll(() => gw.stop());

let n = 0;
const event = (over: Record<string, unknown> = {}) => ({
  id: `evt-${++n}`,
  type: 'payment',
  at: new Date().toISOString(),
  payment: { id: `pay-${n}`, amount: 4900, tax: 782, currency: 'EUR', visitor: 'vid-abc' },
  ...over,
});

async function post(
  body: unknown,
  o: { to?: string; secret?: string; timestamp?: number; headers?: Record<string, string> } = {},
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const ts = String(o.timestamp ?? Math.floor(Date.now() / 1000));
  const res = await fetch(`${gw.url}/webhooks/custom/${o.to ?? connection}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'footfall-timestamp': ts,
      'footfall-signature': signCustom(o.secret ?? secret, ts, text),
      ...o.headers,
    },
    body: text,
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json().catch(() => null)) as Record<string, unknown>,
  };
}
const stored = () => ({
  inbox: (gw.control.raw.prepare('SELECT count(*) AS n FROM webhook_inbox').get() as { n: number }).n,
  payments: (gw.control.raw.prepare('SELECT count(*) AS n FROM ledger_payments').get() as { n: number }).n,
});
/** Runs `send` and expects its answer, and that the inbox and the ledger did not change. */
async function refused(send: () => ReturnType<typeof post>, status: number) {
  const before = stored();
  const r = await send();
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  expect(stored()).toEqual(before);
  return r;
}

describe('the custom payment webhook', () => {
  it('stores a signed event in the inbox and the ledger before answering 200', async () => {
    const before = stored();
    const e = event();
    const r = await post(e);
    expect(r).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
    expect(stored()).toEqual({ inbox: before.inbox + 1, payments: before.payments + 1 });
    const row = gw.control.raw.prepare('SELECT body FROM webhook_inbox WHERE event_id = ?').get(e.id) as {
      body: Buffer;
    };
    expect(row.body.toString('utf8')).toBe(JSON.stringify(e));
  });

  it('takes the same id twice as one event', async () => {
    const e = event();
    expect((await post(e)).body).toMatchObject({ duplicate: false });
    const before = stored();
    expect(await post(e)).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
    expect(stored()).toEqual(before);
  });

  it('refuses a wrong signature, another key or a missing header with 401', async () => {
    await refused(() => post(event(), { secret: 'ffwh_not-the-secret' }), 401);
    await refused(() => post(event(), { headers: { 'footfall-signature': 'v1=00' } }), 401);
    const r = await refused(() => post(event(), { headers: { 'footfall-timestamp': '' } }), 401);
    expect(r.body.message).toMatch(/Footfall-Timestamp/);
  });

  it('refuses a timestamp more than five minutes from the server clock with 401', async () => {
    const r = await refused(() => post(event(), { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }), 401);
    expect(r.body.message).toMatch(/five minutes/);
    await refused(() => post(event(), { timestamp: Math.floor(Date.now() / 1000) + 6 * 60 }), 401);
  });

  it('answers 404 for a connection that does not exist', async () => {
    await refused(() => post(event(), { to: 'nosuchconnection' }), 404);
  });

  it('answers a connection without a signing secret with 503 and Retry-After, so the sender retries', async () => {
    const waiting = createConnection(gw.control, { siteId: gw.site.id, provider: 'custom' }).connection.id;
    gw.control.raw.prepare('UPDATE payment_connections SET signing_secret = NULL WHERE id = ?').run(waiting);
    const r = await refused(() => post(event(), { to: waiting }), 503);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses an off-schema body with 400 naming the field', async () => {
    const r = await refused(() => post(event({ payment: { id: 'p', amount: 12.5, currency: 'EUR' } })), 400);
    expect(r.body).toMatchObject({ code: 'invalid_body', field: 'payment.amount' });
    expect((await refused(() => post(event({ type: 'chargeback' })), 400)).body.field).toBe('type');
    expect((await refused(() => post(event({ at: 'last tuesday' })), 400)).body.field).toBe('at');
    expect((await refused(() => post(event({ extra: 1 })), 400)).body.field).toBe('extra');
    await refused(() => post('{"id": "e1", '), 400);
  });

  it('refuses a body that is not JSON with 415, and one past 64 KB with 413', async () => {
    await refused(() => post(event(), { headers: { 'content-type': 'text/plain' } }), 415);
    const big = event({ payment: { id: 'p', amount: 1, currency: 'EUR', customer_id: 'x'.repeat(70_000) } });
    await refused(() => post(big), 413);
  });
});
