import { join } from 'node:path';
import { createConnection, erasePayer, signCustom } from '@footfall/payments';
import { stripeKit } from '@footfall/payments/testing';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayHealth } from '../../apps/query/src/ingest-status.ts';
import { pageview, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { type CheckedContract, loadContract } from './documented-app.ts';

/**
 * The ingest gateway's own routes on a real gateway (TCP, temp data dir), every answer (status,
 * headers, body) validated against docs/openapi.yaml, and the gateway's own answer for a query
 * service that is down.
 */

/** Statuses the document promises that this file cannot reach without breaking the machine. */
const NOT_EXERCISED: Record<string, string> = {
  'POST /api/e 503': 'needs a full disk or a stuck write-ahead log',
  'POST /api/crawl 503': 'needs a full disk or a stuck write-ahead log',
  'POST /api/crawl 429': 'the crawl limit is a burst of 2000 per address',
  'POST /api/event 503': 'needs a full disk or a stuck write-ahead log',
  'POST /api/send 503': 'needs a full disk or a stuck write-ahead log',
  'POST /api/event 429':
    'the same limiters as POST /api/e (compat.ts hands the event to it), whose 429 is shown above',
  'POST /api/send 429':
    'the same limiters as POST /api/e (compat.ts hands the event to it), whose 429 is shown above',
  'POST /webhooks/{provider}/{connection} 413':
    'past 256 KB the gateway answers before reading the body and cuts off the sending client; the same bodyLimit answers the custom route 413 above',
};

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

let contract: CheckedContract;
let gw: TestGateway;

beforeAll(async () => {
  contract = await loadContract();
  gw = await startTestGateway();
});
afterEach(() => {
  expect(contract.problems.splice(0)).toEqual([]);
});
afterAll(async () => {
  await gw.stop();
});

/** Sends a request to the gateway and checks the answer against the document. */
async function send(
  method: string,
  path: string,
  o: { body?: unknown; raw?: string; type?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { 'user-agent': BROWSER, ...o.headers };
  let body: string | undefined;
  if (o.raw !== undefined || o.body !== undefined) {
    body = o.raw ?? JSON.stringify(o.body);
    headers['content-type'] = o.type ?? 'application/json';
  }
  const res = await fetch(`${gw.url}${path}`, { method, headers, body });
  const text = await res.text();
  contract.problems.push(...contract.checkAnswer(method, path, res, text, o.body));
  return { status: res.status, headers: res.headers, text };
}

describe('the ingest gateway answers as docs/openapi.yaml says', () => {
  it('answers the custom payment webhook: stored, duplicate, unsigned, stale, unknown, not ready, refused', async () => {
    const { connection, signingSecret } = createConnection(gw.control, {
      siteId: gw.site.id,
      provider: 'custom',
    });
    const path = `/webhooks/custom/${connection.id}`;
    const signed = (body: unknown, o: { secret?: string; ts?: number } = {}) => {
      const raw = JSON.stringify(body);
      const ts = String(o.ts ?? Math.floor(Date.now() / 1000));
      return {
        raw,
        body,
        headers: {
          'footfall-timestamp': ts,
          'footfall-signature': signCustom(o.secret ?? signingSecret, ts, raw),
        },
      };
    };
    const event = {
      id: 'evt-1',
      type: 'payment',
      at: Date.now(),
      payment: { id: 'p1', amount: 900, currency: 'EUR' },
    };
    expect((await send('POST', path, signed(event))).status).toBe(200);
    expect(JSON.parse((await send('POST', path, signed(event))).text)).toEqual({
      received: true,
      duplicate: true,
    });
    expect((await send('POST', path, signed(event, { secret: 'ffwh_wrong' }))).status).toBe(401);
    expect(
      (await send('POST', path, signed(event, { ts: Math.floor(Date.now() / 1000) - 900 }))).status,
    ).toBe(401);
    expect((await send('POST', '/webhooks/custom/nosuchconnection', signed(event))).status).toBe(404);
    expect((await send('POST', path, signed({ ...event, id: 'evt-2', type: 'sale' }))).status).toBe(400);
    expect((await send('POST', path, { ...signed(event), type: 'text/plain' })).status).toBe(415);
    const huge = { ...event, id: 'evt-3', payment: { ...event.payment, customer_id: 'x'.repeat(70_000) } };
    expect((await send('POST', path, signed(huge))).status).toBe(413);
    const waiting = createConnection(gw.control, { siteId: gw.site.id, provider: 'custom' }).connection.id;
    gw.control.raw.prepare('UPDATE payment_connections SET signing_secret = NULL WHERE id = ?').run(waiting);
    expect((await send('POST', `/webhooks/custom/${waiting}`, signed(event))).status).toBe(503);
  });

  it('answers a provider webhook: stored, duplicate, moving no money, forged, unknown, not ready, not JSON', async () => {
    const secret = 'whsec_contract_test_secret';
    const { connection } = createConnection(gw.control, {
      siteId: gw.site.id,
      provider: 'stripe',
      setup: 'manual',
      signingSecret: secret,
    });
    const path = `/webhooks/stripe/${connection.id}`;
    const stripe = await stripeKit.start();
    try {
      const sale = stripe.sale(
        { amount: 900, tax: 0, currency: 'EUR', at: Date.now(), kind: 'one_time' },
        secret,
      );
      const d = sale.deliveries[0]!;
      const deliver = (raw: string, headers = d.headers) =>
        send('POST', path, { raw, type: 'application/json', headers });
      expect(JSON.parse((await deliver(d.body)).text)).toEqual({ received: true, duplicate: false });
      expect(JSON.parse((await deliver(d.body)).text)).toEqual({ received: true, duplicate: true });
      // an event that moves no money: kept (and found by erasing its payer), nothing in the ledger
      const other = JSON.stringify({
        id: 'evt_other',
        object: 'event',
        type: 'customer.created',
        data: { object: { id: 'cus_x', object: 'customer', email: 'ada@example.com', name: 'Ada' } },
      });
      const signer = new Stripe('sk_test_contract');
      const sign = (raw: string) => ({
        'stripe-signature': signer.webhooks.generateTestHeaderString({ payload: raw, secret }),
      });
      expect(JSON.parse((await deliver(other, sign(other))).text)).toEqual({
        received: true,
        duplicate: false,
        moves_money: false,
      });
      expect(JSON.parse((await deliver(other, sign(other))).text)).toMatchObject({ duplicate: true });
      const kept = () =>
        (
          gw.control.raw.prepare("SELECT body FROM webhook_inbox WHERE event_id = 'evt_other'").get() as {
            body: Buffer;
          }
        ).body.toString('utf8');
      expect(kept()).toBe(other);
      expect(await erasePayer(gw.control, 'ada@example.com')).toMatchObject({ payloads: 1, payments: 0 });
      expect(kept()).not.toMatch(/ada@example\.com|Ada/);
      expect((await deliver(d.body.replace('900', '100'))).status).toBe(401);
      expect((await deliver('{"not":', sign('{"not":'))).status).toBe(400);
      expect(
        (await send('POST', '/webhooks/stripe/nosuchconnection', { raw: d.body, headers: d.headers })).status,
      ).toBe(404);
      const waiting = createConnection(gw.control, {
        siteId: gw.site.id,
        provider: 'stripe',
        setup: 'manual',
      });
      expect(
        (await send('POST', `/webhooks/stripe/${waiting.connection.id}`, { raw: d.body, headers: d.headers }))
          .status,
      ).toBe(503);
    } finally {
      await stripe.close();
    }
  });

  it('answers events: accepted, refused field by field, unknown site, wrong proxy key, wrong type, too large', async () => {
    const site = gw.site.id;
    expect((await send('POST', '/api/e', { body: pageview(site) })).status).toBe(202);
    expect(
      (await send('POST', '/api/e', { body: pageview(site, { k: 'ev', n: 'Signup', p: { plan: 'pro' } }) }))
        .status,
    ).toBe(202);
    expect((await send('POST', '/api/e', { body: pageview(site), headers: { dnt: '1' } })).status).toBe(202);
    const unknownField = await send('POST', '/api/e', { body: pageview(site, { zz: 1 }) });
    expect(JSON.parse(unknownField.text)).toMatchObject({ code: 'invalid_body', field: 'zz' });
    expect((await send('POST', '/api/e', { raw: '{"s":', type: 'application/json' })).status).toBe(400);
    expect((await send('POST', '/api/e', { body: pageview('nosuchsite') })).status).toBe(404);
    const wrongKey = { 'x-footfall-proxy-key': 'not-the-key' };
    expect((await send('POST', '/api/e', { body: pageview(site), headers: wrongKey })).status).toBe(403);
    expect((await send('POST', '/api/e', { raw: 's=1', type: 'text/plain' })).status).toBe(415);
    const big = JSON.stringify(pageview(site, { p: { pad: 'x'.repeat(9000) } }));
    expect((await send('POST', '/api/e', { raw: big })).status).toBe(413);
  });

  it("answers Plausible's and Umami's event bodies: accepted, refused, unknown site, wrong proxy key, wrong type, too large", async () => {
    const plausible = { n: 'pageview', u: 'https://example.com/a', d: 'example.com' };
    const asText = (body: unknown) => ({ raw: JSON.stringify(body), type: 'text/plain' });
    expect((await send('POST', '/api/event', asText(plausible))).status).toBe(202);
    expect(
      (await send('POST', '/api/event', { body: { ...plausible, n: 'Signup', p: { plan: 'pro' } } })).status,
    ).toBe(202);
    expect(JSON.parse((await send('POST', '/api/event', { body: { u: plausible.u } })).text)).toMatchObject({
      code: 'invalid_body',
      field: 'n',
    });
    expect((await send('POST', '/api/event', { body: { ...plausible, d: 'nosuch.example' } })).status).toBe(
      404,
    );
    const wrongKey = { 'x-footfall-proxy-key': 'not-the-key' };
    expect((await send('POST', '/api/event', { body: plausible, headers: wrongKey })).status).toBe(403);
    expect(
      (await send('POST', '/api/event', { raw: 'n=pageview', type: 'application/x-www-form-urlencoded' }))
        .status,
    ).toBe(415);
    const padded = { ...plausible, n: 'Big', p: { pad: 'x'.repeat(9000) } };
    expect((await send('POST', '/api/event', asText(padded))).status).toBe(413);

    const umami = { type: 'event', payload: { website: gw.site.id, url: '/b', hostname: 'example.com' } };
    expect((await send('POST', '/api/send', { body: umami })).status).toBe(202);
    expect(
      (await send('POST', '/api/send', { body: { type: 'identify', payload: { website: gw.site.id } } }))
        .status,
    ).toBe(202);
    expect(JSON.parse((await send('POST', '/api/send', { body: { type: 'event' } })).text)).toMatchObject({
      field: 'payload',
    });
    expect(
      (await send('POST', '/api/send', { body: { type: 'event', payload: { website: 'nosuchsite' } } }))
        .status,
    ).toBe(404);
    expect((await send('POST', '/api/send', { body: umami, headers: wrongKey })).status).toBe(403);
    expect((await send('POST', '/api/send', { raw: JSON.stringify(umami), type: 'text/plain' })).status).toBe(
      415,
    );
    const bigUmami = {
      type: 'event',
      payload: { ...umami.payload, name: 'Big', data: { pad: 'x'.repeat(9000) } },
    };
    expect((await send('POST', '/api/send', { raw: JSON.stringify(bigUmami) })).status).toBe(413);
    for (const path of ['/api/event', '/api/send']) {
      const preflight = await send('OPTIONS', path, {
        headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
    }
  });

  it('answers one visitor over its rate limit with a documented 429 and Retry-After', async () => {
    let status = 0;
    for (let i = 0; i < 70 && status !== 429; i++) {
      status = (await send('POST', '/api/e', { body: pageview(gw.site.id, { v: 'visitor-over-the-limit' }) }))
        .status;
    }
    expect(status).toBe(429);
  });

  it('answers the CORS preflight of events', async () => {
    const preflight = await send('OPTIONS', '/api/e', {
      headers: { origin: 'https://example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
  });

  it('answers crawl hits: counted, discarded, no key, wrong key, unknown site, bad body', async () => {
    const key = { 'x-footfall-proxy-key': gw.site.proxyKey };
    const hit = {
      s: gw.site.id,
      u: 'https://example.com/docs',
      ua: 'Mozilla/5.0 (compatible; GPTBot/1.2)',
      st: 200,
    };
    expect((await send('POST', '/api/crawl', { body: hit, headers: key })).status).toBe(202);
    expect((await send('POST', '/api/crawl', { body: { ...hit, ua: BROWSER }, headers: key })).status).toBe(
      202,
    );
    expect((await send('POST', '/api/crawl', { body: hit })).status).toBe(401);
    const wrong = { 'x-footfall-proxy-key': 'not-the-key' };
    expect((await send('POST', '/api/crawl', { body: hit, headers: wrong })).status).toBe(403);
    expect(
      (await send('POST', '/api/crawl', { body: { ...hit, s: 'nosuchsite' }, headers: key })).status,
    ).toBe(404);
    expect((await send('POST', '/api/crawl', { body: { ...hit, st: 99 }, headers: key })).status).toBe(400);
    expect((await send('POST', '/api/crawl', { raw: 'u=1', type: 'text/plain', headers: key })).status).toBe(
      415,
    );
    const big = JSON.stringify({ ...hit, ua: 'x'.repeat(9000) });
    expect((await send('POST', '/api/crawl', { raw: big, headers: key })).status).toBe(413);
  });

  it('serves the tracker script, revalidates it by ETag and refuses unknown sites', async () => {
    const script = await send('GET', `/js/${gw.site.id}.js`);
    expect(script.status).toBe(200);
    const etag = script.headers.get('etag') ?? '';
    expect((await send('GET', `/js/${gw.site.id}.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    expect((await send('GET', '/js/nosuchsite.js')).status).toBe(404);
    const vitals = await send('GET', `/js/${gw.site.id}.js?variant=vitals`);
    expect(vitals.status).toBe(200);
    expect(vitals.headers.get('etag')).not.toBe(etag);
    expect((await send('GET', `/js/${gw.site.id}.js?variant=huge`)).status).toBe(400);
    const forms = await send('GET', `/js/${gw.site.id}.js?variant=vitals&addons=forms`);
    expect(forms.status).toBe(200);
    expect(forms.headers.get('etag')).not.toBe(vitals.headers.get('etag'));
    expect((await send('GET', `/js/${gw.site.id}.js?addons=forms,paddle`)).status).toBe(400);
  });

  it('answers for a query service that is down with a documented 503 and Retry-After', async () => {
    const res = await send('GET', '/api/v1/health');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('reports its status for operator health in the documented shape, and a silent gateway as unreachable', async () => {
    const statuses = await gatewayHealth(join(gw.dataDir, 'run'));
    expect(statuses).toHaveLength(1);
    expect(statuses[0]).toMatchObject({ reachable: true, availability: { state: 'accepting' } });
    const gone = { reachable: false, stream: 'gone' };
    for (const status of [...statuses, gone]) {
      expect(contract.validate('#/components/schemas/GatewayStatus', status)).toEqual([]);
    }
  });

  it('has shown every documented status of every ingest operation, except those it cannot reach', () => {
    expect(contract.unseen(['ingest']).filter((k) => !(k in NOT_EXERCISED))).toEqual([]);
  });
});
