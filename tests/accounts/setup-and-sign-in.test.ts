import { existsSync, readFileSync } from 'node:fs';
import { setupToken } from '@footfall/instance';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccountsApp, accountsApp, PASSWORD, SETUP_TOKEN } from './harness.ts';

let h: AccountsApp;
afterEach(() => h.cleanup());

describe('setup', () => {
  it('creates the first owner once; after that the token opens nothing', async () => {
    h = await accountsApp();
    expect(await (await h.call('GET', '/api/v1/setup')).json()).toEqual({ needed: true });
    const wrong = await h.call('POST', '/api/v1/setup', {
      body: { token: 'x'.repeat(32), email: 'a@example.com', password: PASSWORD },
    });
    expect(wrong.status).toBe(403);
    await h.setup('owner@example.com');
    expect(await (await h.call('GET', '/api/v1/setup')).json()).toEqual({ needed: false });
    const again = await h.call('POST', '/api/v1/setup', {
      body: { token: SETUP_TOKEN, email: 'b@example.com', password: PASSWORD },
    });
    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ message: expect.stringMatching(/already done/) });
    const people = h.control.raw.prepare('SELECT email, role FROM people').all();
    expect(people).toEqual([{ email: 'owner@example.com', role: 'owner' }]);
  });

  it('removes the generated token file once setup is done', async () => {
    h = await accountsApp({ env: { FOOTFALL_SETUP_TOKEN: '' } });
    const token = setupToken(h.deps.config, h.deps.instance.paths, false)!;
    expect(existsSync(h.deps.instance.paths.setupToken)).toBe(true);
    const res = await h.call('POST', '/api/v1/setup', {
      body: { token, email: 'o@example.com', password: PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(existsSync(h.deps.instance.paths.setupToken)).toBe(false);
  });

  it('lets only one of two simultaneous setups through', async () => {
    h = await accountsApp();
    const body = (email: string) => ({ body: { token: SETUP_TOKEN, email, password: PASSWORD } });
    const [a, b] = await Promise.all([
      h.call('POST', '/api/v1/setup', body('a@example.com')),
      h.call('POST', '/api/v1/setup', body('b@example.com')),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
    expect(h.control.raw.prepare('SELECT count(*) AS n FROM people').get()).toEqual({ n: 1 });
  });

  it('accepts JSON only', async () => {
    h = await accountsApp();
    const form = await h.call('POST', '/api/v1/setup', {
      raw: {
        text: `token=${SETUP_TOKEN}&email=a%40example.com&password=${encodeURIComponent(PASSWORD)}`,
        type: 'application/x-www-form-urlencoded',
      },
    });
    expect(form.status).toBe(415);
    expect(h.control.raw.prepare('SELECT count(*) AS n FROM people').get()).toEqual({ n: 0 });
  });
});

describe('sign-in and sessions', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie, Secure when the client used https', async () => {
    h = await accountsApp();
    await h.setup();
    const plain = await h.call('POST', '/api/v1/session', {
      body: { email: 'owner@example.com', password: PASSWORD },
    });
    const cookie = plain.headers.get('set-cookie')!;
    expect(cookie).toMatch(/footfall_session=[\w-]{40,}/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const tls = await h.call('POST', '/api/v1/session', {
      body: { email: 'owner@example.com', password: PASSWORD },
      headers: { 'x-footfall-client-proto': 'https' },
    });
    expect(tls.headers.get('set-cookie')).toMatch(/Secure/);
  });

  it('stores only a hash of the session token and the password', async () => {
    h = await accountsApp();
    const agent = await h.setup();
    const token = agent.cookie!.split('=')[1]!;
    const dump =
      readFileSync(h.deps.instance.paths.controlDb).toString('latin1') +
      JSON.stringify(h.control.raw.prepare('SELECT * FROM sessions').all());
    expect(dump).not.toContain(token);
    expect(JSON.stringify(h.control.raw.prepare('SELECT * FROM people').all())).not.toContain(PASSWORD);
  });

  it('refuses a wrong password and an unknown e-mail with the same answer', async () => {
    h = await accountsApp();
    await h.setup();
    const wrong = await h.call('POST', '/api/v1/session', {
      body: { email: 'owner@example.com', password: 'not the password' },
    });
    const unknown = await h.call('POST', '/api/v1/session', {
      body: { email: 'nobody@example.com', password: PASSWORD },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it('needs the CSRF token on state-changing requests made with the cookie', async () => {
    h = await accountsApp();
    const owner = await h.setup();
    const csrf = owner.csrf;
    owner.csrf = undefined;
    const without = await h.call('POST', '/api/v1/sites', { body: { domain: 'a.com' }, agent: owner });
    expect(without.status).toBe(403);
    owner.csrf = 'wrong';
    expect((await h.call('POST', '/api/v1/sites', { body: { domain: 'a.com' }, agent: owner })).status).toBe(
      403,
    );
    owner.csrf = csrf;
    const crossSite = await h.call('POST', '/api/v1/sites', {
      body: { domain: 'a.com' },
      agent: owner,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(h.control.raw.prepare('SELECT count(*) AS n FROM sites').get()).toEqual({ n: 0 });
    expect((await h.call('POST', '/api/v1/sites', { body: { domain: 'a.com' }, agent: owner })).status).toBe(
      201,
    );
  });

  it('signs out: the cookie stops working', async () => {
    h = await accountsApp();
    const owner = await h.setup();
    const cookie = owner.cookie;
    expect((await h.call('DELETE', '/api/v1/session', { agent: owner })).status).toBe(204);
    owner.cookie = cookie;
    expect((await h.call('GET', '/api/v1/sites', { agent: owner })).status).toBe(401);
  });

  it('makes a person with a generated password choose a new one before anything else', async () => {
    h = await accountsApp();
    const owner = await h.setup();
    const added = await h.call('POST', '/api/v1/people', {
      body: { email: 'v@example.com', role: 'viewer' },
      agent: owner,
    });
    expect(added.status).toBe(201);
    const { password } = (await added.json()) as { password: string };
    const viewer = await h.signIn('v@example.com', password);
    const blocked = await h.call('GET', '/api/v1/sites', { agent: viewer });
    expect(blocked.status).toBe(403);
    expect(
      (
        (await (await h.call('GET', '/api/v1/session', { agent: viewer })).json()) as {
          person: { must_change_password: boolean };
        }
      ).person.must_change_password,
    ).toBe(true);
    const changed = await h.call('PUT', '/api/v1/account/password', {
      body: { current_password: password, new_password: 'my own new password' },
      agent: viewer,
    });
    expect(changed.status).toBe(204);
    expect((await h.call('GET', '/api/v1/sites', { agent: viewer })).status).toBe(200);
  });
});

describe('password check limits', () => {
  const attempt = (email: string, address: string) =>
    h.call('POST', '/api/v1/session', { body: { email, password: 'wrong password!' }, address });

  it('limits failures per address, counting a whole IPv6 /64 as one address', async () => {
    h = await accountsApp({ checks: { perAddress: 3, perPerson: 100 } });
    await h.setup();
    for (let i = 0; i < 3; i++)
      expect((await attempt(`p${i}@example.com`, `2001:db8:0:1::${i + 1}`)).status).toBe(401);
    const limited = await attempt('other@example.com', '2001:db8:0:1:ffff::9');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // even the right password waits: the check does not run at all
    const right = await h.call('POST', '/api/v1/session', {
      body: { email: 'owner@example.com', password: PASSWORD },
      address: '2001:db8:0:1::77',
    });
    expect(right.status).toBe(429);
    expect((await attempt('other@example.com', '2001:db8:0:2::1')).status).toBe(401);
  });

  it('limits failures per person whatever the address, until the window ends', async () => {
    h = await accountsApp({ checks: { perAddress: 100, perPerson: 3, windowMs: 15 * 60_000 } });
    await h.setup();
    for (let i = 0; i < 3; i++)
      expect((await attempt('owner@example.com', `198.51.100.${i}`)).status).toBe(401);
    expect((await attempt('OWNER@example.com', '203.0.113.50')).status).toBe(429);
    h.clock.advance(15 * 60_000);
    expect((await h.signIn('owner@example.com', PASSWORD, '203.0.113.50')).cookie).toBeDefined();
  });

  it('answers 503 busy when two checks are running and a third waited its limit', async () => {
    h = await accountsApp({ checks: { maxWaitMs: 50 } });
    await h.setup();
    let release!: () => void;
    const held = new Promise<boolean>((r) => {
      release = () => r(true);
    });
    const running = [
      h.deps.passwordChecks.password({ address: 'z' }, () => held),
      h.deps.passwordChecks.password({ address: 'z' }, () => held),
    ];
    const busy = await h.call('POST', '/api/v1/session', {
      body: { email: 'owner@example.com', password: PASSWORD },
    });
    expect(busy.status).toBe(503);
    expect(await busy.json()).toMatchObject({ code: 'busy', message: 'busy, try again' });
    expect(busy.headers.get('retry-after')).toBe('5');
    release();
    await Promise.all(running);
    expect((await h.signIn('owner@example.com')).cookie).toBeDefined();
  });
});
