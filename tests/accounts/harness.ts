import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { type ControlDb, openControlDb } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { createQueryApp, openAnalytics, type QueryDeps, ReadControl } from '@footfall/query';
import { PasswordChecks, type PasswordChecksOptions } from '../../apps/query/src/auth/password-checks.ts';
import { CardPool } from '../../apps/query/src/cards/pool.ts';
import { Imports } from '../../apps/query/src/imports/imports.ts';
import { googleApi } from '../../apps/query/src/search-console.ts';

export const SETUP_TOKEN = 'setup-token-for-tests-0123456789';
export const PASSWORD = 'a long enough password';

/** A clock the test moves by hand. */
export function manualClock(start = Date.UTC(2026, 2, 1, 9, 0, 0)) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export interface CallOptions {
  body?: unknown;
  /** a raw body with its own content type */
  raw?: { text: string | Uint8Array; type: string };
  agent?: Agent;
  bearer?: string;
  address?: string;
  headers?: Record<string, string>;
}

/** A browser: keeps the session cookie and the CSRF token it was given. */
export class Agent {
  cookie: string | undefined;
  csrf: string | undefined;
}

/** The query app with a real control database in a temporary data directory. */
export async function accountsApp(
  options: {
    env?: Record<string, string>;
    checks?: Partial<PasswordChecksOptions>;
    onSiteDeleted?: QueryDeps['onSiteDeleted'];
  } = {},
) {
  const root = mkdtempSync(join(tmpdir(), 'ff-accounts-'));
  const clock = manualClock();
  const config = loadConfig({
    FOOTFALL_DATA_DIR: join(root, 'data'),
    FOOTFALL_SETUP_TOKEN: SETUP_TOKEN,
    ...options.env,
  });
  const instance = prepareInstance(config);
  const control: ControlDb = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
    now: clock.now,
  });
  const deleted: string[] = [];
  const logger = createLogger({ level: 'silent', name: 'test' });
  const analytics = await openAnalytics({
    walRoot: instance.paths.wal,
    engine: { path: ':memory:', threads: 1, memoryLimit: '128MB' },
    logger,
  });
  const deps: QueryDeps = {
    config,
    instance,
    logger,
    startedAt: clock.now(),
    now: clock.now,
    control,
    passwordChecks: new PasswordChecks({ now: clock.now, ...options.checks }),
    onSiteDeleted: options.onSiteDeleted ?? ((id) => void deleted.push(id)),
    analytics,
    reads: new ReadControl({ timeoutSeconds: config.queryTimeoutSeconds, logger }),
    cards: new CardPool(),
  };
  deps.imports = new Imports({
    control,
    engine: analytics.engine,
    instance,
    logger,
    memoryLimit: '128MB',
    google: googleApi(config.unsafe.googleApi),
  });
  const app = createQueryApp(deps);

  async function call(method: string, path: string, o: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'x-footfall-client-address': o.address ?? '192.0.2.10',
      ...o.headers,
    };
    let body: string | Uint8Array | undefined;
    if (o.raw) {
      body = o.raw.text;
      headers['content-type'] = o.raw.type;
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
    if (o.agent?.cookie) headers.cookie = o.agent.cookie;
    if (o.agent?.csrf && !['GET', 'HEAD'].includes(method)) headers['x-footfall-csrf'] = o.agent.csrf;
    const res = await app.request(path, { method, headers, body: body as BodyInit | undefined });
    const set = res.headers.get('set-cookie');
    // only the session cookie is kept (a single sign-on's own cookie leaves it as it is)
    if (o.agent && set?.includes('footfall_session=')) {
      const m = /footfall_session=([^;]*)/.exec(set);
      o.agent.cookie = m?.[1] ? `footfall_session=${m[1]}` : undefined;
    }
    return res;
  }

  /** Signs an agent in with a password (no two-step) and keeps its cookie and CSRF token. */
  async function signIn(email: string, password = PASSWORD, address?: string): Promise<Agent> {
    const agent = new Agent();
    const res = await call('POST', '/api/v1/session', { body: { email, password }, agent, address });
    if (res.status !== 200) throw new Error(`sign-in of ${email} failed: ${res.status} ${await res.text()}`);
    agent.csrf = ((await res.json()) as { csrf_token: string }).csrf_token;
    return agent;
  }

  /** Runs setup and returns the first owner's agent. */
  async function setup(email = 'owner@example.com'): Promise<Agent> {
    const agent = new Agent();
    const res = await call('POST', '/api/v1/setup', {
      body: { token: SETUP_TOKEN, email, password: PASSWORD },
      agent,
    });
    if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
    agent.csrf = ((await res.json()) as { csrf_token: string }).csrf_token;
    return agent;
  }

  /** Adds a viewer as `owner` (no password change asked) and returns them signed in. */
  async function addViewer(owner: Agent, email = 'viewer@example.com'): Promise<Agent> {
    const res = await call('POST', '/api/v1/people', {
      body: { email, role: 'viewer', password: PASSWORD },
      agent: owner,
    });
    if (res.status !== 201) throw new Error(`adding ${email} failed: ${res.status} ${await res.text()}`);
    const id = ((await res.json()) as { person: { id: string } }).person.id;
    control.raw.prepare('UPDATE people SET must_change_password = 0 WHERE id = ?').run(id);
    return signIn(email);
  }

  return {
    app,
    deps,
    control,
    clock,
    root,
    deleted,
    call,
    signIn,
    setup,
    addViewer,
    cleanup: async () => {
      await deps.cards?.close();
      await analytics.engine.close();
      await control.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type AccountsApp = Awaited<ReturnType<typeof accountsApp>>;

/** RFC 6238 by hand (SHA-1, 6 digits, 30 s), independent of the library the service uses. */
export function totp(base32: string, ms: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of base32.replace(/=+$/, '').toUpperCase())
    bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 30_000)));
  const h = createHmac('sha1', key).update(counter).digest();
  const offset = h[h.length - 1]! & 0xf;
  const n = (h.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

/** Every table's rows: two dumps are equal when nothing changed. */
export function dumpControl(control: ControlDb, ignore: Record<string, string[]> = {}): string {
  const tables = control.raw
    .prepare(`SELECT name FROM sqlite_master WHERE type='table' ORDER BY name`)
    .all() as {
    name: string;
  }[];
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const drop = ignore[name] ?? [];
    out[name] = (
      control.raw.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all() as Record<string, unknown>[]
    ).map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !drop.includes(k))));
  }
  return JSON.stringify(out);
}
