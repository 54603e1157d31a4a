import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type OidcProvider, startOidcProvider } from '../support/oidc.ts';
import {
  type ApiSession,
  addSite,
  apiSession,
  createOwner,
  type Dashboard,
  OWNER,
  PASSWORD,
  personContext,
  screenshot,
  startDashboard,
} from './harness.ts';

/**
 * Single sign-on (docs/sign-in.md) end to end: the real `footfall start`, a real OpenID provider
 * (`oidc-provider`, its development sign-in pages), Chromium. Each refusal the issue names is
 * tried as a person meets it: the sign-in screen says why and nobody is signed in.
 */

const CALLBACK = '/api/v1/session/oidc/callback';

/** Footfall and the provider on ports known before either starts (each names the other). */
async function startWithProvider(env: Record<string, string>): Promise<{ d: Dashboard; idp: OidcProvider }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider(`${base}${CALLBACK}`);
  const d = await startDashboard({
    FOOTFALL_ADDR: `127.0.0.1:${port}`,
    FOOTFALL_BASE_URL: base,
    FOOTFALL_OIDC_ISSUER: idp.issuer,
    FOOTFALL_OIDC_CLIENT_ID: idp.clientId,
    FOOTFALL_OIDC_CLIENT_SECRET: idp.clientSecret,
    FOOTFALL_OIDC_NAME: 'Example ID',
    ...env,
  });
  return { d, idp };
}

/**
 * From the sign-in screen through the provider's own pages (login, then consent) and back. Resolves
 * with the callback address the provider sent the browser to.
 */
async function signInThroughProvider(page: Page, login: string, from = '/login'): Promise<string> {
  let callback = '';
  page.on('request', (r) => {
    if (r.url().includes(CALLBACK)) callback = r.url();
  });
  await page.goto(from);
  const footfall = new URL(page.url()).origin;
  await page.getByRole('link', { name: 'Sign in with Example ID' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password: the provider checks it, not Footfall');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect.poll(() => callback).not.toBe('');
  await page.waitForURL((u) => u.origin === footfall && !u.pathname.startsWith('/api/'));
  return callback;
}

/** Who the browser's session is, as the API says (undefined: nobody is signed in). */
async function whoIsSignedIn(page: Page): Promise<string | undefined> {
  return page.evaluate(async () => {
    const r = await fetch('/api/v1/session');
    return r.ok ? ((await r.json()) as { person: { email: string } }).person.email : undefined;
  });
}

/** Why Footfall logged the last single sign-on it refused. */
const lastRefusal = (d: Dashboard) =>
  String(
    d.footfall
      .logs()
      .filter((l) => l.msg === 'single sign-on refused')
      .at(-1)?.detail,
  );

/** The refusal the sign-in screen shows after a single sign-on, and that nobody is signed in. */
async function expectRefused(page: Page, code: string, words: RegExp): Promise<void> {
  await page.waitForURL(`**/login?sso_error=${code}`);
  await expect.poll(() => page.getByRole('alert').textContent()).toMatch(words);
  expect(await whoIsSignedIn(page)).toBeUndefined();
}

describe('single sign-on, people added by an owner', () => {
  let d: Dashboard;
  let idp: OidcProvider;
  let owner: ApiSession;
  const contexts: BrowserContext[] = [];
  const fresh = async (o: Parameters<typeof personContext>[1] = {}) => {
    const c = await personContext(d, o);
    contexts.push(c);
    return c.newPage();
  };

  beforeAll(async () => {
    ({ d, idp } = await startWithProvider({}));
    owner = await createOwner(d);
    await owner.call('POST', '/api/v1/people', {
      email: 'ann@example.com',
      role: 'viewer',
      password: PASSWORD,
    });
    idp.accounts.set('ann', { email: 'Ann@Example.com', email_verified: true });
    idp.accounts.set('eve', { email: 'eve@example.com', email_verified: false });
    idp.accounts.set('zed', { email: 'zed@example.com', email_verified: true });
    idp.accounts.set('owner', { email: OWNER, email_verified: true });
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await d?.close();
    await idp?.close();
  });

  it('signs a person in through the provider and back to the page they asked for; the used return address signs nobody in again', async () => {
    const page = await fresh();
    await page.goto('/people');
    await page.waitForURL('**/login?next=%2Fpeople');
    await expect
      .poll(() => page.getByRole('link', { name: 'Sign in with Example ID' }).isVisible())
      .toBe(true);
    // passwords still work beside it
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    await screenshot(page, 'sso-sign-in');
    const callback = await signInThroughProvider(page, 'owner', '/login?next=%2Fpeople');
    await page.waitForURL('**/people');
    expect(await whoIsSignedIn(page)).toBe(OWNER);

    // the same return address, replayed from another browser (an attacker who saw it), signs nobody in
    const other = await fresh();
    await other.goto(callback);
    await expectRefused(other, 'expired', /already used or took too long/);
  });

  it('matches the verified address whatever its case, and a generated password stops working', async () => {
    const page = await fresh();
    await signInThroughProvider(page, 'ann');
    expect(await whoIsSignedIn(page)).toBe('ann@example.com');
    // ann's password was generated by the owner and never replaced: it is replaced by one nobody knows
    await expect(apiSession(d.footfall.url, 'ann@example.com', PASSWORD)).rejects.toThrow(/401/);
  });

  it('refuses an ID token made for another client (wrong audience)', async () => {
    idp.tamper = (claims) => ({ ...claims, aud: 'another-client' });
    try {
      const page = await fresh();
      await signInThroughProvider(page, 'owner');
      await expectRefused(page, 'token_refused', /failed Footfall’s checks/);
      expect(lastRefusal(d)).toMatch(/"aud"/);
    } finally {
      idp.tamper = undefined;
    }
  });

  it('refuses an expired ID token', async () => {
    const now = Math.floor(Date.now() / 1000);
    idp.tamper = (claims) => ({ ...claims, iat: now - 7200, exp: now - 3600 });
    try {
      const page = await fresh();
      await signInThroughProvider(page, 'owner');
      await expectRefused(page, 'token_refused', /failed Footfall’s checks/);
      expect(lastRefusal(d)).toMatch(/"exp"/);
    } finally {
      idp.tamper = undefined;
    }
  });

  it('refuses an ID token the provider did not sign', async () => {
    idp.tamper = (claims) => claims;
    idp.forge = true;
    try {
      const page = await fresh();
      await signInThroughProvider(page, 'owner');
      await expectRefused(page, 'token_refused', /failed Footfall’s checks/);
      expect(lastRefusal(d)).toMatch(/signature/i);
    } finally {
      idp.tamper = undefined;
      idp.forge = false;
    }
  });

  it('refuses an e-mail address the provider has not verified', async () => {
    const page = await fresh({ width: 360, dark: true });
    await signInThroughProvider(page, 'eve');
    await expectRefused(page, 'unverified_email', /has not verified your e-mail address/);
    await screenshot(page, 'sso-refused-unverified');
  });

  it('refuses an address nobody has here while people may not join', async () => {
    const page = await fresh();
    await signInThroughProvider(page, 'zed');
    await expectRefused(page, 'no_account', /no account here yet/);
    const people = await owner.call<{ people: { email: string }[] }>('GET', '/api/v1/people');
    expect(people.people.map((p) => p.email)).not.toContain('zed@example.com');
  });

  it('refuses a return address opened in a browser that did not start the sign-in', async () => {
    const page = await fresh();
    // the provider's answer is kept from this browser and opened in another one: the consent is
    // sent by hand and its redirects read, not followed (the browser never reaches the callback)
    let callback = '';
    await page.route(`${idp.issuer}/interaction/**`, async (route) => {
      if (!route.request().postData()?.includes('prompt=consent')) return route.continue();
      const resume = (await route.fetch({ maxRedirects: 0 })).headers().location ?? '';
      const answer = await page.context().request.get(new URL(resume, idp.issuer).href, { maxRedirects: 0 });
      callback = answer.headers().location ?? '';
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'kept' });
    });
    await page.goto('/login');
    await page.getByRole('link', { name: 'Sign in with Example ID' }).click();
    await page.locator('input[name="login"]').fill('owner');
    await page.locator('input[name="password"]').fill('x');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => callback).toContain(CALLBACK);
    const other = await fresh();
    await other.goto(callback);
    await expectRefused(other, 'other_browser', /started in another browser/);
  });
});

describe('single sign-on only, and people who join through it', () => {
  let d: Dashboard;
  let idp: OidcProvider;
  let owner: ApiSession;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ({ d, idp } = await startWithProvider({
      FOOTFALL_OIDC_DEFAULT_ROLE: 'viewer',
      FOOTFALL_OIDC_DEFAULT_SITES: 'shop.example',
      FOOTFALL_OIDC_SSO_ONLY: 'on',
      FOOTFALL_OIDC_BREAK_GLASS: OWNER,
    }));
    owner = await createOwner(d);
    await addSite(owner, 'shop.example');
    await addSite(owner, 'blog.example');
    await owner.call('POST', '/api/v1/people', {
      email: 'pat@example.com',
      role: 'owner',
      password: PASSWORD,
    });
    idp.accounts.set('new', { email: 'new@example.com', email_verified: true });
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await d?.close();
    await idp?.close();
  });

  it('turns password sign-in off for everyone but the break-glass owner, with one answer for both refusals', async () => {
    const refused = await apiSession(d.footfall.url, 'pat@example.com', PASSWORD).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/401.*password sign-in is off for this account: sign in with Example ID/);
    const wrong = await apiSession(d.footfall.url, OWNER, 'not the password at all').catch((e: unknown) => e);
    expect(String(wrong)).toMatch(/401.*password sign-in is off for this account/);
    // the break-glass owner still signs in with a password (owner, above, did)
    expect((await owner.call<{ person: { email: string } }>('GET', '/api/v1/session')).person.email).toBe(
      OWNER,
    );
  });

  it('adds a person the provider vouches for as a viewer of the configured sites, and folds the password form away', async () => {
    const context = await personContext(d);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/login');
    await expect
      .poll(() => page.getByRole('link', { name: 'Sign in with Example ID' }).isVisible())
      .toBe(true);
    expect(await page.getByLabel('Password').isVisible()).toBe(false);
    await page.getByText('Sign in with a password (the break-glass owner)').click();
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    await screenshot(page, 'sso-only-sign-in');

    await signInThroughProvider(page, 'new');
    expect(await whoIsSignedIn(page)).toBe('new@example.com');
    const people = await owner.call<{ people: { email: string; role: string }[] }>('GET', '/api/v1/people');
    expect(people.people.find((p) => p.email === 'new@example.com')?.role).toBe('viewer');
    const sites = await page.evaluate(async () => {
      const r = await fetch('/api/v1/sites');
      return ((await r.json()) as { sites: { domain: string }[] }).sites.map((s) => s.domain);
    });
    expect(sites).toEqual(['shop.example']);
    // a second sign-in finds the same person; nobody is added twice
    const again = await personContext(d);
    contexts.push(again);
    await signInThroughProvider(await again.newPage(), 'new');
    const after = await owner.call<{ people: { email: string }[] }>('GET', '/api/v1/people');
    expect(after.people.filter((p) => p.email === 'new@example.com')).toHaveLength(1);
  });

  it('is refused as JSON to a caller that does not take HTML', async () => {
    const r = await fetch(`${d.footfall.url}${CALLBACK}?state=forged&code=x`, {
      headers: { accept: 'application/json' },
    });
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/already used/),
    });
  });
});
