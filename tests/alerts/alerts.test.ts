import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { checkCustomSignature } from '@footfall/payments';
import { simpleParser } from 'mailparser';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../api-docs/documented-app.ts';
import { ApiCallError, type ApiSession, createOwner } from '../dashboard/harness.ts';
import { FOOTFALL_BIN, startFootfall, tempDir } from '../support/footfall.ts';
import { postCustomEvent } from '../support/payments.ts';
import { startMailServer, type TestMailServer } from '../support/smtp.ts';

/**
 * Alerts through the real `footfall start`: destinations set up through the API (and refused
 * where they must be), a signed webhook to a local receiver and an e-mail through a real SMTP
 * server that requires STARTTLS (its certificate trusted through NODE_EXTRA_CA_CERTS), "someone
 * paid" fired by real payments on the custom webhook, and a health alert (the off-site copy
 * failing, then working) sent once when it starts and once when it clears. No log line holds a
 * destination's URL.
 */
const root = tempDir('ff-alerts-');
const SECRET_PATH = '/hook/a-secret-path-7f3a9c';
let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let site: string;
let receiver: Server;
let receiverPort: number;
const posts: { headers: IncomingMessage['headers']; body: string; message: Record<string, unknown> }[] = [];
let mail: TestMailServer;
const mails = () => mail.mails;
let s3Port: number;
let s3: S3rver | undefined;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  mail = await startMailServer(root);
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.url === '/fails') {
        res.writeHead(502).end();
        return;
      }
      posts.push({ headers: req.headers, body, message: JSON.parse(body) as Record<string, unknown> });
      res.writeHead(200).end('ok');
    });
  });
  receiverPort = await new Promise<number>((resolve) =>
    receiver.listen(0, '127.0.0.1', () => resolve((receiver.address() as AddressInfo).port)),
  );
  s3Port = await freePort();
  footfall = await startFootfall({
    FOOTFALL_DATA_DIR: join(root, 'data'),
    FOOTFALL_SMTP_URL: mail.url,
    FOOTFALL_MAIL_FROM: 'Footfall <alerts@footfall.example>',
    FOOTFALL_UNSAFE_OUTBOUND_ALLOW: `127.0.0.1:${receiverPort}`,
    FOOTFALL_UNSAFE_ALERT_SECONDS: '1',
    // nothing listens there yet: the off-site copy fails until the test starts the bucket
    FOOTFALL_BACKUP_S3: `http://S3RVER:S3RVER@127.0.0.1:${s3Port}/offsite/footfall?region=us-east-1`,
    FOOTFALL_RATES_URL: 'http://127.0.0.1:9/',
    NODE_EXTRA_CA_CERTS: mail.cert,
  });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  site = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'shop.example' }))
    .site.id;
}, 60_000);

afterAll(async () => {
  await footfall?.stop();
  await new Promise((r) => receiver?.close(r));
  await mail?.close();
  await s3?.close();
});

/** The API's refusal of a call that must fail. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiCallError) {
      return { status: error.status, body: JSON.parse(error.message.slice(error.message.indexOf(': ') + 2)) };
    }
    throw error;
  }
  throw new Error('the call succeeded');
}

function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', FOOTFALL_DATA_DIR: join(root, 'data'), FOOTFALL_GEO: 'off' } },
      (error, stdout) => resolve({ code: error ? 1 : 0, stdout }),
    ),
  );
}

const alerts = `/api/v1/sites/`;
let hook: { id: string; secret: string };

describe('alerts', () => {
  it('refuses private, internal and odd addresses before storing them, naming why', async () => {
    const add = (url: string) => owner.call('POST', `${alerts}${site}/alerts`, { channel: 'webhook', url });
    for (const [url, why] of [
      ['http://10.1.2.3/hook', 'private (RFC 1918)'],
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://[::ffff:127.0.0.1]/x', 'loopback'],
      ['http://2130706433/x', 'loopback'],
      ['http://0x7f.1/x', 'loopback'],
      ['http://[fd00::1]/x', 'unique local'],
      ['http://metadata.internal/x', 'internal name'],
      ['https://user:pw@hooks.example.com/x', 'credentials'],
      ['ftp://hooks.example.com/x', 'only http and https'],
    ] as const) {
      const r = await refusal(add(url));
      expect(r.status, url).toBe(400);
      expect(r.body, url).toMatchObject({ code: 'destination_refused', field: 'url' });
      expect(String(r.body.message), url).toContain(why);
    }
    const listed = await owner.call<{ destinations: unknown[] }>('GET', `${alerts}${site}/alerts`);
    expect(listed.destinations).toEqual([]);
  });

  it('adds a webhook (its secret shown once) and an e-mail address, in the documented shapes', async () => {
    const contract = await loadContract();
    const made = await owner.call<{ destination: { id: string; kinds: string[] }; secret: string }>(
      'POST',
      `${alerts}${site}/alerts`,
      { channel: 'webhook', url: `http://127.0.0.1:${receiverPort}${SECRET_PATH}` },
    );
    expect(contract.validate('#/components/schemas/NewAlertDestinationAnswer', made)).toEqual([]);
    expect(made.secret).toMatch(/^ffal_/);
    expect(made.destination.kinds).toEqual([
      'tracking_stopped',
      'busy_day',
      'payment',
      'disk_filling',
      'health',
    ]);
    hook = { id: made.destination.id, secret: made.secret };
    const mail = await owner.call<{ destination: { id: string }; secret: null }>(
      'POST',
      `${alerts}${site}/alerts`,
      {
        channel: 'email',
        email: 'owner@shop.example',
        kinds: ['payment', 'health'],
      },
    );
    expect(mail.secret).toBeNull();
    const again = await refusal(
      owner.call('POST', `${alerts}${site}/alerts`, { channel: 'email', email: 'owner@shop.example' }),
    );
    expect(again.status).toBe(409);
    const list = await owner.call<{ destinations: unknown[]; email_ready: boolean }>(
      'GET',
      `${alerts}${site}/alerts`,
    );
    expect(contract.validate('#/components/schemas/AlertDestinationList', list)).toEqual([]);
    expect(list.email_ready).toBe(true);
    expect(JSON.stringify(list)).not.toContain(made.secret);
  });

  it('sends a signed test alert to the webhook and a test e-mail over STARTTLS with text and HTML', async () => {
    const answer = await owner.call<{ delivered: boolean; error: string | null }>(
      'POST',
      `${alerts}${site}/alerts/${hook.id}/test`,
    );
    expect(answer).toMatchObject({ delivered: true, error: null });
    const post = posts.find((p) => p.message.kind === 'test')!;
    expect(
      checkCustomSignature({
        secret: hook.secret,
        timestamp: post.headers['footfall-timestamp'] as string,
        signature: post.headers['footfall-signature'] as string,
        body: Buffer.from(post.body),
        nowMs: Date.now(),
      }),
    ).toBeNull();
    expect(post.message).toMatchObject({ kind: 'test', site: { id: site, domain: 'shop.example' } });

    const { destinations } = await owner.call<{ destinations: { id: string; channel: string }[] }>(
      'GET',
      `${alerts}${site}/alerts`,
    );
    const email = destinations.find((d) => d.channel === 'email')!;
    const sent = await owner.call<{ delivered: boolean; error: string | null }>(
      'POST',
      `${alerts}${site}/alerts/${email.id}/test`,
    );
    expect(sent).toMatchObject({ delivered: true, error: null });
    expect(mails()).toHaveLength(1);
    expect(mails()[0]).toMatchObject({ secure: true, user: 'alerts' });
    const parsed = await simpleParser(mails()[0]!.raw);
    expect(parsed.subject).toBe('Footfall: a test alert for shop.example');
    expect(parsed.from?.value[0]).toMatchObject({ name: 'Footfall', address: 'alerts@footfall.example' });
    expect(parsed.text).toContain('This is a test.');
    expect(parsed.html).toContain('<h1');
  });

  it('says why a destination did not take a test alert, naming only its host', async () => {
    const made = await owner.call<{ destination: { id: string } }>('POST', `${alerts}${site}/alerts`, {
      channel: 'webhook',
      url: `http://127.0.0.1:${receiverPort}/fails`,
      kinds: ['busy_day'],
    });
    const answer = await owner.call<{
      delivered: boolean;
      error: string;
      destination: { last_failure: unknown };
    }>('POST', `${alerts}${site}/alerts/${made.destination.id}/test`);
    expect(answer).toMatchObject({
      delivered: false,
      error: `127.0.0.1:${receiverPort} answered 502`,
      destination: { last_failure: { message: `127.0.0.1:${receiverPort} answered 502` } },
    });
    await owner.call('DELETE', `${alerts}${site}/alerts/${made.destination.id}`);
  });

  it('sends "someone paid" for each new payment, in the site currency, once', async () => {
    const connection = await owner.call<{ webhook_url: string; signing_secret: string }>(
      'POST',
      `/api/v1/sites/${site}/payments/connections`,
      { provider: 'custom' },
    );
    const url = `${footfall.url}${new URL(connection.webhook_url).pathname}`;
    const pay = (id: string, amount: number) =>
      postCustomEvent(url, connection.signing_secret, {
        id: `evt-${id}`,
        type: 'payment',
        at: new Date().toISOString(),
        payment: { id, amount, currency: 'USD' },
      });
    expect((await pay('pay-1', 4900)).status).toBe(200);
    await expect
      .poll(() => posts.filter((p) => p.message.kind === 'payment').length, { timeout: 15_000 })
      .toBe(1);
    expect((await pay('pay-2', 1500)).status).toBe(200);
    expect((await pay('pay-3', 2500)).status).toBe(200);
    await expect
      .poll(() => posts.filter((p) => p.message.kind === 'payment').length, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(2);
    const paid = posts.filter((p) => p.message.kind === 'payment').map((p) => p.message);
    expect(paid[0]).toMatchObject({
      title: 'shop.example: someone paid $49.00',
      data: { payments: 1, amount_minor: 4900 },
    });
    // the second alert holds only what came after the first: one or two alerts for pay-2 and pay-3
    const later = paid.slice(1).map((m) => (m.data as { amount_minor: number }).amount_minor);
    expect(later.reduce((a, b) => a + b, 0)).toBe(4000);
    await expect
      .poll(() => mails().filter((m) => m.raw.includes('someone paid $49.00')).length, { timeout: 15_000 })
      .toBe(1);
  });

  it('sends a failed off-site copy once when it starts and once when it clears', async () => {
    expect((await cli(['backup', 'now'])).code).not.toBe(0);
    await expect
      .poll(() => posts.filter((p) => p.message.kind === 'health').map((p) => p.message.state), {
        timeout: 15_000,
      })
      .toEqual(['started']);
    const started = posts.find((p) => p.message.kind === 'health')!.message;
    expect(started).toMatchObject({ site: null, data: { condition: 'offsite_failed' } });
    s3 = new S3rver({
      address: '127.0.0.1',
      port: s3Port,
      silent: true,
      directory: join(root, 's3'),
      configureBuckets: [{ name: 'offsite', configs: [] }],
    });
    await s3.run();
    expect((await cli(['backup', 'now'])).code).toBe(0);
    await expect
      .poll(() => posts.filter((p) => p.message.kind === 'health').map((p) => p.message.state), {
        timeout: 15_000,
      })
      .toEqual(['started', 'cleared']);
    // the e-mail destination receives health too
    await expect
      .poll(() => mails().filter((m) => /off-site/.test(m.raw)).length, { timeout: 15_000 })
      .toBe(2);
  });

  it('never writes a destination URL or address into the logs', () => {
    const logs = footfall.output();
    expect(logs).toContain('alert');
    expect(logs).not.toContain(SECRET_PATH);
    expect(logs).not.toContain('owner@shop.example');
  });
});
