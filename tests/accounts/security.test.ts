import { randomBytes, scryptSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { type ControlDb, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiSession, apiSession, createOwner, PASSWORD } from '../dashboard/harness.ts';
import { runFootfall, startFootfall } from '../support/footfall.ts';
import { totp } from './harness.ts';

/**
 * The holes a security review found (issue 37), each tried against the real `footfall start`: a
 * huge body does not grow the query process, wrong passwords sent at once are limited, Health and
 * the site layout tell a limited caller nothing of other sites, a live stream ends with its access,
 * tokens in paths stay out of the log, and /metrics is closed until it has a token.
 *
 * The gateway trusts X-Forwarded-For here (FOOTFALL_TRUST_PROXY=xff), so each burst of wrong
 * passwords comes from an address of its own and the per-address limit of one does not lock out
 * the next.
 */
const MiB = 1024 * 1024;
const NEW_PASSWORD = 'another long enough password';

let footfall: Awaited<ReturnType<typeof startFootfall>>;
let owner: ApiSession;
let control: ControlDb;
let siteA: string;
let siteB: string;
let queryPid: number;

beforeAll(async () => {
  footfall = await startFootfall({ FOOTFALL_TRUST_PROXY: 'xff' });
  const [setupLink] = await footfall.waitForOutput(/http:\/\/\S+\/setup\?token=[\w-]+/);
  owner = await createOwner({ footfall, setupLink: setupLink! });
  siteA = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'a.example' })).site
    .id;
  siteB = (await owner.call<{ site: { id: string } }>('POST', '/api/v1/sites', { domain: 'b.example' })).site
    .id;
  queryPid = footfall.logs().find((l) => l.msg === 'child started' && l.child === 'query')?.pid as number;
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: footfall.dataDir }));
  control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
}, 60_000);
afterAll(async () => {
  await control?.close();
  await footfall?.stop();
});

/** A viewer who may read `sites`, signed in, their generated password already replaced. */
async function viewer(email: string, sites: string[] | 'all'): Promise<{ id: string; session: ApiSession }> {
  const { person } = await owner.call<{ person: { id: string } }>('POST', '/api/v1/people', {
    email,
    role: 'viewer',
    password: PASSWORD,
  });
  await owner.call('PUT', `/api/v1/site-access/${person.id}`, { sites });
  const session = await apiSession(footfall.url, email, PASSWORD);
  await session.call('PUT', '/api/v1/account/password', {
    current_password: PASSWORD,
    new_password: NEW_PASSWORD,
  });
  return { id: person.id, session };
}

/** An API key limited to `sites` (all sites when left out). */
async function apiKey(sites?: string[]): Promise<{ id: string; key: string }> {
  const made = await owner.call<{ key: string; api_key: { id: string } }>('POST', '/api/v1/api-keys', {
    name: 'a key',
    ...(sites ? { sites } : {}),
  });
  return { id: made.api_key.id, key: made.key };
}

/** The query process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

const keepAlive = new Agent({ keepAlive: true });

/**
 * POSTs a 200 MiB body (JSON whitespace, written 1 MiB at a time as the server takes it) with its
 * `Content-Length`, or chunked without one, and stops sending once an answer arrives.
 */
function postHuge(
  target: { port: number } | { socketPath: string },
  path: string,
  o: { chunked: boolean; headers?: Record<string, string> },
): Promise<{ status: number; body: string; sentBytes: number }> {
  const total = 200 * MiB;
  const chunk = Buffer.alloc(MiB, 0x20);
  return new Promise((resolve, reject) => {
    const req = request({
      ...('port' in target ? { host: '127.0.0.1', port: target.port } : { socketPath: target.socketPath }),
      method: 'POST',
      path,
      // at the gateway, a client that asks to close the connection after the answer (the harder
      // case: see refuseBody); at the socket, a kept-alive connection, as the gateway's own
      agent: 'port' in target ? false : keepAlive,
      headers: {
        'content-type': 'application/json',
        ...(o.chunked ? {} : { 'content-length': String(total) }),
        ...o.headers,
      },
    });
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => {
        body += s;
      });
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sentBytes: sent });
      });
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('request bodies', () => {
  it('refuses 200 MiB bodies with 413, with and without Content-Length, through the gateway and at the query socket, without the query process growing', async () => {
    const { key } = await apiKey();
    const port = Number(new URL(footfall.url).port);
    const socketPath = join(footfall.dataDir, 'run', 'query.sock');
    const routes: [string, Record<string, string>][] = [
      ['/api/v1/session', {}],
      ['/api/v1/setup', {}],
      ['/api/v1/session/two-step', {}],
      ['/api/v1/shared/ffsh_not-a-link/session', {}],
      ['/mcp', { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' }],
    ];
    const before = peakRss(queryPid);
    for (const [path, headers] of routes) {
      for (const chunked of [false, true]) {
        for (const target of [{ port }, { socketPath }]) {
          const what = `${path} ${chunked ? 'chunked' : 'with Content-Length'} ${'port' in target ? 'through the gateway' : 'at the socket'}`;
          const answer = await postHuge(target, path, {
            chunked,
            headers: { ...headers, 'x-footfall-client-address': '192.0.2.1' },
          });
          expect(answer.status, what).toBe(413);
          expect(JSON.parse(answer.body), what).toEqual({
            code: 'payload_too_large',
            message: 'the body must be at most 65536 bytes',
          });
          // refused long before the end of the body
          expect(answer.sentBytes, what).toBeLessThan(100 * MiB);
        }
      }
    }
    const grown = peakRss(queryPid) - before;
    expect(grown, `the query process's peak grew ${(grown / MiB).toFixed(1)} MiB`).toBeLessThan(32 * MiB);
    // still answering, and no body, even one cut off by the gateway, was an internal error
    expect((await fetch(`${footfall.url}/api/v1/setup`)).status).toBe(200);
    expect(footfall.logs().filter((l) => l.msg === 'request failed')).toEqual([]);
  }, 120_000);
});

describe('wrong passwords sent at once', () => {
  const at = (address: string) => ({ 'x-forwarded-for': address, 'content-type': 'application/json' });
  const statuses = (answers: Response[]) => {
    const count = new Map<number, number>();
    for (const r of answers) count.set(r.status, (count.get(r.status) ?? 0) + 1);
    return Object.fromEntries(count);
  };

  it('checks ten sign-ins of one person, however many are sent together; the rest are 429', async () => {
    await viewer('burst@example.com', [siteA]);
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${footfall.url}/api/v1/session`, {
          method: 'POST',
          headers: at('198.51.100.1'),
          body: JSON.stringify({ email: 'burst@example.com', password: 'not the password' }),
        }),
      ),
    );
    expect(statuses(answers)).toEqual({ 401: 10, 429: 50 });
    const right = await fetch(`${footfall.url}/api/v1/session`, {
      method: 'POST',
      headers: at('198.51.100.9'),
      body: JSON.stringify({ email: 'burst@example.com', password: NEW_PASSWORD }),
    });
    expect(right.status).toBe(429);
  }, 60_000);

  it('limits a password change, two-step set-up and two-step removal the same way', async () => {
    const tries = async (
      address: string,
      session: ApiSession,
      method: string,
      path: string,
      body: unknown,
    ) => {
      const csrf = (await (
        await fetch(`${footfall.url}/api/v1/session`, { headers: { cookie: session.cookie } })
      ).json()) as { csrf_token: string };
      return Promise.all(
        Array.from({ length: 60 }, () =>
          fetch(`${footfall.url}${path}`, {
            method,
            headers: { ...at(address), cookie: session.cookie, 'x-footfall-csrf': csrf.csrf_token },
            body: JSON.stringify(body),
          }),
        ),
      );
    };
    const change = (await viewer('change@example.com', [siteA])).session;
    expect(
      statuses(
        await tries('198.51.100.2', change, 'PUT', '/api/v1/account/password', {
          current_password: 'not the password',
          new_password: 'a third long password',
        }),
      ),
    ).toEqual({ 400: 10, 429: 50 });

    const setup = (await viewer('setup@example.com', [siteA])).session;
    expect(
      statuses(
        await tries('198.51.100.3', setup, 'POST', '/api/v1/account/two-step/setup', {
          password: 'wrong one!',
        }),
      ),
    ).toEqual({ 400: 10, 429: 50 });

    const removal = (await viewer('removal@example.com', [siteA])).session;
    const { secret } = await removal.call<{ secret: string }>('POST', '/api/v1/account/two-step/setup', {
      password: NEW_PASSWORD,
    });
    await removal.call('POST', '/api/v1/account/two-step/confirm', { code: totp(secret, Date.now()) });
    expect(
      statuses(
        await tries('198.51.100.4', removal, 'DELETE', '/api/v1/account/two-step', {
          password: 'wrong one!',
          code: '000000',
        }),
      ),
    ).toEqual({ 400: 10, 429: 50 });
  }, 90_000);

  it("hashes passwords with scrypt N = 2^15, r = 8, p = 3, and remakes an older hash at the person's next sign-in", async () => {
    await viewer('older@example.com', [siteA]);
    const hashOf = () =>
      (
        control.raw.prepare('SELECT password_hash FROM people WHERE email = ?').get('older@example.com') as {
          password_hash: string;
        }
      ).password_hash;
    expect(hashOf()).toMatch(/^scrypt\$15\$8\$3\$/);
    // as an install before this change stored it: p = 1
    const salt = randomBytes(16);
    const key = scryptSync(NEW_PASSWORD.normalize('NFKC'), salt, 32, {
      N: 2 ** 15,
      r: 8,
      p: 1,
      maxmem: 64 * MiB,
    });
    const older = `scrypt$15$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    control.raw
      .prepare('UPDATE people SET password_hash = ? WHERE email = ?')
      .run(older, 'older@example.com');
    await apiSession(footfall.url, 'older@example.com', NEW_PASSWORD);
    expect(hashOf()).toMatch(/^scrypt\$15\$8\$3\$/);
    await apiSession(footfall.url, 'older@example.com', NEW_PASSWORD);
  }, 30_000);
});

describe('what a caller limited to some sites reads', () => {
  it("Health shows payment connections of the caller's own sites only, and their ids to owners only", async () => {
    const made = await owner.call<{ id: string }>('POST', `/api/v1/sites/${siteA}/payments/connections`, {
      provider: 'custom',
      name: 'Shop of A',
    });
    const health = async (headers: Record<string, string>) => {
      const res = await fetch(`${footfall.url}/api/v1/health`, { headers });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        payments: null | { connections: number; sources: Record<string, unknown>[] };
      };
    };
    const ownerSees = await health({ cookie: owner.cookie });
    expect(ownerSees.payments?.sources).toEqual([
      expect.objectContaining({ id: made.id, site_id: siteA, name: 'Shop of A' }),
    ]);

    const onlyB = await viewer('only-b@example.com', [siteB]);
    expect((await health({ cookie: onlyB.session.cookie })).payments).toBeNull();
    const keyB = await apiKey([siteB]);
    expect((await health({ authorization: `Bearer ${keyB.key}` })).payments).toBeNull();

    const withA = await viewer('with-a@example.com', [siteA]);
    const seen = (await health({ cookie: withA.session.cookie })).payments!;
    expect(seen.connections).toBe(1);
    expect(seen.sources).toEqual([expect.objectContaining({ site_id: siteA, name: 'Shop of A' })]);
    expect(seen.sources[0]).not.toHaveProperty('id');
    expect(JSON.stringify(seen)).not.toContain(made.id);
  });

  it("the site layout names only the groups holding one of the caller's sites", async () => {
    await owner.call('PUT', '/api/v1/site-layout', {
      order: [siteA, siteB],
      pins: [],
      groups: [
        { name: 'Client Alpha', sites: [siteA] },
        { name: 'Everything', sites: [siteA, siteB] },
        { name: 'Not filled yet', sites: [] },
      ],
    });
    const onlyB = await viewer('layout-b@example.com', [siteB]);
    expect(await onlyB.session.call('GET', '/api/v1/site-layout')).toEqual({
      order: [siteB],
      pins: [],
      groups: [{ name: 'Everything', sites: [siteB] }],
    });
    const ownerSees = await owner.call<{ groups: { name: string }[] }>('GET', '/api/v1/site-layout');
    expect(ownerSees.groups.map((g) => g.name)).toEqual(['Client Alpha', 'Everything', 'Not filled yet']);
  });
});

describe('a live stream', () => {
  /** Opens a site's live stream and resolves once it said `ready`; `ended` resolves when it closes. */
  async function openLive(site: string, headers: Record<string, string>) {
    const res = await fetch(`${footfall.url}/api/v1/sites/${site}/live`, { headers });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: ready')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before it was ready');
      text += new TextDecoder().decode(value);
    }
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return performance.now();
    })();
    return { ended, cancel: () => reader.cancel().catch(() => {}) };
  }

  /** Expects the stream to end within 5 s of `revoke`, and the same credentials to be refused after. */
  async function endsWith(
    stream: Awaited<ReturnType<typeof openLive>>,
    revoke: () => Promise<unknown>,
  ): Promise<void> {
    const revoked = performance.now();
    await revoke();
    const timeout = new Promise<'still open'>((r) => setTimeout(() => r('still open'), 5000));
    const outcome = await Promise.race([stream.ended, timeout]);
    if (outcome === 'still open') await stream.cancel();
    expect(outcome).not.toBe('still open');
    expect((outcome as number) - revoked).toBeLessThan(5000);
  }

  it('ends within seconds when its API key is deleted', async () => {
    const { id, key } = await apiKey([siteA]);
    const stream = await openLive(siteA, { authorization: `Bearer ${key}` });
    await endsWith(stream, () => owner.call('DELETE', `/api/v1/api-keys/${id}`));
    expect(
      (
        await fetch(`${footfall.url}/api/v1/sites/${siteA}/live`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(401);
  });

  it('ends when the person signs out, is removed, or loses access to the site', async () => {
    const out = await viewer('live-out@example.com', [siteA]);
    const signedOut = await openLive(siteA, { cookie: out.session.cookie });
    await endsWith(signedOut, () => out.session.call('DELETE', '/api/v1/session'));

    const removed = await viewer('live-removed@example.com', [siteA]);
    const gone = await openLive(siteA, { cookie: removed.session.cookie });
    await endsWith(gone, () => owner.call('DELETE', `/api/v1/people/${removed.id}`));

    const moved = await viewer('live-moved@example.com', [siteA, siteB]);
    const withdrawn = await openLive(siteA, { cookie: moved.session.cookie });
    const kept = await openLive(siteB, { cookie: moved.session.cookie });
    await endsWith(withdrawn, () => owner.call('PUT', `/api/v1/site-access/${moved.id}`, { sites: [siteB] }));
    // the stream of the site still allowed stays open
    const stillOpen = await Promise.race([kept.ended, new Promise((r) => setTimeout(() => r('open'), 3000))]);
    expect(stillOpen).toBe('open');
    await kept.cancel();
  }, 60_000);
});

describe('the log', () => {
  it('names the route, never the share or milestone token, when the query service is down', async () => {
    const gateway = runFootfall(['ingest']);
    try {
      const listening = await gateway.waitForLog((l) => l.msg === 'ingest gateway listening');
      const base = `http://127.0.0.1:${listening.port as number}`;
      for (const path of ['/api/v1/shared/ffsh_SECRETshareTOKEN42', '/m/SECRETmilestoneTOKEN42/card.png']) {
        expect((await fetch(`${base}${path}`)).status).toBe(503);
      }
      const lines = await gateway.waitForLog(
        (l) => l.msg === 'query service unreachable' && l.route === '/m/:id/card.png',
      );
      expect(lines).toBeDefined();
      expect(
        gateway
          .logs()
          .filter((l) => l.msg === 'query service unreachable')
          .map((l) => l.route),
      ).toEqual(['/api/v1/shared/:id', '/m/:id/card.png']);
      expect(gateway.output()).not.toContain('SECRET');
    } finally {
      await gateway.stop();
    }
  });

  it('names the route, never the token, when a request fails inside the query service', async () => {
    control.raw.exec('ALTER TABLE shares RENAME TO shares_away');
    try {
      const res = await fetch(`${footfall.url}/api/v1/shared/ffsh_SECRETshareTOKEN43`);
      expect(res.status).toBe(500);
      const failed = await footfall.waitForLog((l) => l.msg === 'request failed');
      expect(failed.route).toBe('GET /api/v1/shared/:token');
      expect(footfall.output()).not.toContain('SECRETshareTOKEN43');
    } finally {
      control.raw.exec('ALTER TABLE shares_away RENAME TO shares');
    }
  });
});

describe('/metrics', () => {
  it('is closed through the public gateway until FOOTFALL_METRICS_TOKEN is set, and says how to open it', async () => {
    const res = await fetch(`${footfall.url}/metrics`);
    expect(res.status).toBe(403);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('forbidden');
    expect(body.message).toContain('FOOTFALL_METRICS_TOKEN');
    // an owner's session or an API key does not open it either
    expect((await fetch(`${footfall.url}/metrics`, { headers: { cookie: owner.cookie } })).status).toBe(403);
  });
});
