import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { checkCustomSignature } from '@footfall/payments';
import { type FakeApi, stripeKit } from '@footfall/payments/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, createOwner } from '../dashboard/harness.ts';
import { type RunningFootfall, startFootfall, tempDir } from '../support/footfall.ts';
import { postCustomEvent } from '../support/payments.ts';

/**
 * `kill -9` of the query service while it talks to the outside world, with the real `footfall start`
 * (which restarts it): while a webhook alert is being delivered (the receiver holds the request
 * open), and while a payment provider's API is being read for reconciliation (the API answers the
 * first page of a list and holds the next one). After the restart the alert is delivered again with
 * the same id and no other alert is raised for it, and a reconciliation run again gives a ledger
 * with every payment once, equal to an uninterrupted reconciliation's.
 */
const API = 'killed-senders-api-token-0123456789';
const root = tempDir('ff-killed-senders-');
const dataDir = join(root, 'data');

let running: (RunningFootfall & { url: string }) | undefined;
let owner: ApiSession;

/** The webhook receiver: every POST in arrival order; the first payment alert is held unanswered. */
interface Post {
  headers: IncomingMessage['headers'];
  body: string;
  message: { id: string; kind: string; data: Record<string, unknown> };
}
const posts: Post[] = [];
const heldAlerts: ServerResponse[] = [];
let receiver: Server;
let receiverPort = 0;

/**
 * Stripe's API (the fake of packages/payments' testing kit) behind a gate that pages its lists as
 * Stripe does (`limit`, `starting_after`, `has_more`), and, while `holdNextPage` is set, holds the
 * next request for a later page without answering.
 */
let stripe: FakeApi;
let gate: Server;
let gateUrl = '';
let holdNextPage = false;
const heldPages: { url: URL; res: ServerResponse }[] = [];
/** the list pages the gate answered, in order: `<list> <items>` */
const pagesAnswered: string[] = [];
const LIST = /^\/v1\/(checkout\/sessions|invoices|refunds|disputes)$/;

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (server === undefined) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });
const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const post = { headers: req.headers, body, message: JSON.parse(body) as Post['message'] };
    posts.push(post);
    // the first payment alert stays in flight until the query service is killed
    if (post.message.kind === 'payment' && heldAlerts.length === 0) {
      heldAlerts.push(res);
      return;
    }
    res.writeHead(200).end('ok');
  });
  receiverPort = await listen(receiver);

  stripe = await stripeKit.start();
  gate = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const list = req.method === 'GET' && LIST.test(url.pathname);
    const after = url.searchParams.get('starting_after');
    if (list && after !== null && holdNextPage) {
      holdNextPage = false;
      heldPages.push({ url, res });
      return;
    }
    const body = await readBody(req);
    let upstream: Response;
    let text: string;
    try {
      upstream = await fetch(`${stripe.url}${req.url}`, {
        method: req.method,
        headers: {
          authorization: req.headers.authorization ?? '',
          'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded',
        },
        body: req.method === 'GET' || req.method === 'DELETE' ? undefined : body,
      });
      text = await upstream.text();
    } catch {
      // the fake is gone (the file's teardown): answer as an unreachable provider would
      res.writeHead(502).end();
      return;
    }
    if (list && upstream.status === 200) {
      const all = JSON.parse(text) as { data: { id: string }[] };
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const from = after === null ? 0 : all.data.findIndex((o) => o.id === after) + 1;
      // a cursor the list does not hold would page from the start again: say so instead
      if (after !== null && from === 0) {
        res.writeHead(400).end(JSON.stringify({ error: { message: `no ${after} to page after` } }));
        return;
      }
      const data = all.data.slice(from, from + limit);
      text = JSON.stringify({ ...all, data, has_more: from + limit < all.data.length });
      pagesAnswered.push(`${url.pathname} ${data.length}`);
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
  });
  gateUrl = `http://127.0.0.1:${await listen(gate)}`;

  running = await startFootfall({
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_API_TOKEN: API,
    FOOTFALL_DRAIN_SECONDS: '3',
    FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    FOOTFALL_GEO: 'off',
    // rules looked at every second, and the local receiver allowed past the private-address guard
    FOOTFALL_UNSAFE_ALERT_SECONDS: '1',
    FOOTFALL_UNSAFE_OUTBOUND_ALLOW: `127.0.0.1:${receiverPort}`,
    FOOTFALL_UNSAFE_PAYMENT_APIS: `stripe=${gateUrl}`,
    // every amount is in the site's currency: no exchange rates needed, fail fast offline
    FOOTFALL_RATES_URL: 'http://127.0.0.1:9/',
  });
  const [setupLink] = await running.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall: running, setupLink: setupLink! });
}, 60_000);

afterAll(async () => {
  await running?.stop();
  for (const res of [...heldAlerts, ...heldPages.map((h) => h.res)]) res.destroy();
  await close(receiver);
  await close(gate);
  await stripe?.close();
});

const queryPid = (ff: RunningFootfall) =>
  ff
    .logs()
    .filter((l) => l.msg === 'child started' && l.child === 'query')
    .at(-1)?.pid as number;
const restarts = (ff: RunningFootfall) => ff.logs().filter((l) => l.msg === 'query service listening').length;

/** Rows of app.db, read as an operator would with sqlite3 (read-only, beside the running service). */
function control<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(dataDir, 'app.db'), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const addSite = async (domain: string) =>
  (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain, currency: 'EUR' })).site.id;
const report = async (site: string) => {
  const res = await fetch(`${running!.url}/api/v1/sites/${site}/report`, {
    headers: { authorization: `Bearer ${API}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { kpis: { revenue: number | null; customers: number | null } };
};

describe('the query service killed while it talks to the outside world', () => {
  it('delivers an alert killed in flight again after the restart, with the same id, and raises no other', async () => {
    const site = await addSite('alerts.localhost');
    const made = await owner.call<{ secret: string }>('POST', `/api/v1/sites/${site}/alerts`, {
      channel: 'webhook',
      url: `http://127.0.0.1:${receiverPort}/hook`,
      kinds: ['payment'],
    });
    const connection = await owner.call<{ webhook_url: string; signing_secret: string }>(
      'POST',
      `/api/v1/sites/${site}/payments/connections`,
      { provider: 'custom' },
    );
    const hook = `${running!.url}${new URL(connection.webhook_url).pathname}`;
    const pay = (id: string, amount: number) =>
      postCustomEvent(hook, connection.signing_secret, {
        id: `evt-${id}`,
        type: 'payment',
        at: new Date().toISOString(),
        payment: { id, amount, currency: 'EUR' },
      });
    // payments before the rule's first look at a site are not news: wait for that look
    await expect
      .poll(
        () => control("SELECT 1 FROM alert_state WHERE scope = ? AND name = 'payment_seq'", site).length,
        { timeout: 20_000, interval: 100 },
      )
      .toBe(1);

    expect((await pay('pay-1', 4900)).status).toBe(200);
    await expect.poll(() => heldAlerts.length, { timeout: 20_000, interval: 20 }).toBe(1);
    // the attempt gives up after 10 s without an answer: kill well within it, while it waits
    process.kill(queryPid(running!), 'SIGKILL');
    const first = posts[0]!;
    expect(first.message).toMatchObject({ kind: 'payment', data: { payments: 1, amount_minor: 4900 } });
    await expect.poll(() => restarts(running!), { timeout: 60_000 }).toBe(2);

    // the restarted service sends the waiting delivery again: the same alert, signed anew
    await expect.poll(() => posts.length, { timeout: 30_000, interval: 50 }).toBe(2);
    const again = posts[1]!;
    expect(again.headers['footfall-alert-id']).toBe(first.headers['footfall-alert-id']);
    expect(again.headers['footfall-alert-id']).toBe(first.message.id);
    expect(again.body).toBe(first.body);
    expect(
      checkCustomSignature({
        secret: made.secret,
        timestamp: again.headers['footfall-timestamp'] as string,
        signature: again.headers['footfall-signature'] as string,
        body: Buffer.from(again.body),
        nowMs: Date.now(),
      }),
    ).toBeNull();
    await expect
      .poll(() => control<{ state: string }>('SELECT state FROM alert_deliveries').map((d) => d.state), {
        timeout: 10_000,
        interval: 50,
      })
      .toEqual(['sent']);

    // a later payment's alert is the next one: nothing else was raised for pay-1 meanwhile
    expect((await pay('pay-2', 1500)).status).toBe(200);
    await expect.poll(() => posts.length, { timeout: 20_000, interval: 50 }).toBe(3);
    const next = posts[2]!;
    expect(next.message.id).not.toBe(first.message.id);
    expect(next.message).toMatchObject({ kind: 'payment', data: { payments: 1, amount_minor: 1500 } });
    await expect
      .poll(() => control<{ state: string }>('SELECT state FROM alert_deliveries').map((d) => d.state), {
        timeout: 10_000,
        interval: 50,
      })
      .toEqual(['sent', 'sent']);
    const raised = running!.logs().filter((l) => l.msg === 'alert raised' && l.kind === 'payment');
    expect(raised).toHaveLength(2);
    expect(posts).toHaveLength(3);
  }, 120_000);

  it('reconciles again after a kill halfway through reading the provider, every payment once, as uninterrupted', async () => {
    const killed = await addSite('killed.localhost');
    const calm = await addSite('calm.localhost');
    const connect = async (site: string) => {
      const made = await owner.call<{ id: string }>('POST', `/api/v1/sites/${site}/payments/connections`, {
        provider: 'stripe',
        api_key: stripe.keys.live,
      });
      // connecting reads the provider at once (nothing there yet): let that run end first
      await running!.waitForLog((l) => l.msg === 'payments reconciled' && l.connection === made.id, 30_000);
      return made.id;
    };
    const killedId = await connect(killed);
    const calmId = await connect(calm);

    // what the provider holds, none of it sent as a webhook: 230 sales (three pages of checkout
    // sessions), 20 subscriptions, 6 partial refunds
    const now = Date.now();
    const expectedPayments: [string, number, number][] = [];
    for (let i = 0; i < 250; i++) {
      const amount = 1000 + 37 * i;
      const tax = (i % 4) * 100;
      const sale = stripe.sale(
        {
          amount,
          tax,
          currency: 'EUR',
          at: now - (i + 1) * 60_000,
          kind: i < 230 ? 'one_time' : 'subscription',
        },
        'whsec_unused',
      );
      expectedPayments.push([sale.paymentId, amount, tax]);
    }
    const expectedRefunds: [string, number][] = [];
    for (let i = 0; i < 6; i++) {
      const [paymentId] = expectedPayments[i * 40]!;
      stripe.refund(paymentId, 500 + i, now - 30_000, 'whsec_unused');
      expectedRefunds.push([paymentId, 500 + i]);
    }
    const byId = (a: [string, ...number[]], b: [string, ...number[]]) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1]! - b[1]!;
    const ledger = (site: string) => ({
      payments: control<{ payment_id: string; amount: number; tax: number }>(
        'SELECT payment_id, amount, tax FROM ledger_payments WHERE site_id = ?',
        site,
      )
        .map((p): [string, number, number] => [p.payment_id, p.amount, p.tax])
        .sort(byId),
      refunds: control<{ payment_id: string; amount: number }>(
        'SELECT payment_id, amount FROM ledger_refunds WHERE site_id = ?',
        site,
      )
        .map((r): [string, number] => [r.payment_id, r.amount])
        .sort(byId),
    });
    const expected = {
      payments: expectedPayments.toSorted(byId),
      refunds: expectedRefunds.toSorted(byId),
    };
    const sync = (site: string, id: string) =>
      owner.call<{ read: number; added: number }>(
        'POST',
        `/api/v1/sites/${site}/payments/connections/${id}/sync`,
        {},
      );

    // the uninterrupted reconciliation, through the same paging
    expect(await sync(calm, calmId)).toEqual({ read: 256, added: 256, connection: expect.anything() });
    const uninterrupted = ledger(calm);
    expect(uninterrupted).toEqual(expected);

    // the first page of checkout sessions is answered, the second is held: kill then
    holdNextPage = true;
    pagesAnswered.length = 0;
    const interrupted = sync(killed, killedId).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    await expect.poll(() => heldPages.length, { timeout: 20_000, interval: 20 }).toBe(1);
    process.kill(queryPid(running!), 'SIGKILL');
    expect(pagesAnswered).toEqual(['/v1/checkout/sessions 100']);
    expect(heldPages[0]!.url.pathname).toBe('/v1/checkout/sessions');
    expect(await interrupted).not.toBe('answered');
    await expect.poll(() => restarts(running!), { timeout: 60_000 }).toBe(3);
    // whatever the killed run kept is part of the truth, and nothing twice
    const left = ledger(killed);
    for (const p of left.payments) expect(expected.payments).toContainEqual(p);
    for (const r of left.refunds) expect(expected.refunds).toContainEqual(r);

    const after = await sync(killed, killedId);
    expect(after.read).toBe(256);
    expect(after.added).toBe(256 - left.payments.length - left.refunds.length);
    expect(ledger(killed)).toEqual(uninterrupted);
    // a second run adds nothing
    expect((await sync(killed, killedId)).added).toBe(0);
    expect(ledger(killed)).toEqual(uninterrupted);
    const [killedReport, calmReport] = [await report(killed), await report(calm)];
    // revenue is net of tax, less refunds
    const revenue =
      expectedPayments.reduce((sum, [, amount, tax]) => sum + amount - tax, 0) -
      expectedRefunds.reduce((sum, [, amount]) => sum + amount, 0);
    expect(killedReport.kpis.revenue).toBe(revenue);
    expect(calmReport.kpis.revenue).toBe(revenue);
    expect(killedReport.kpis.customers).toBe(calmReport.kpis.customers);
    const connections = await owner.call<{
      connections: { id: string; reconciliation: { error: string | null; succeeded_at: string | null } }[];
    }>('GET', `/api/v1/sites/${killed}/payments/connections`);
    expect(connections.connections.find((x) => x.id === killedId)?.reconciliation).toMatchObject({
      error: null,
      succeeded_at: expect.any(String),
    });
  }, 180_000);
});
