import { unsubscribeToken } from '@footfall/control';
import { expect } from 'vitest';
import type { Alerts } from '../../apps/query/src/alerts/alerts.ts';
import { EmailReports } from '../../apps/query/src/email-reports/run.ts';
import { Agent, PASSWORD, SETUP_TOKEN, totp } from '../accounts/harness.ts';
import { authorizeAt, startOidcProvider } from '../support/oidc.ts';
import type { DocumentedApp } from './documented-app.ts';

/**
 * The account flows an owner and a person go through, each answer checked against the document
 * by the app's `call`: setup, sign-in with and without two-step, the session, a password change,
 * two-step on and off.
 */

/** Runs setup through the checked API; the owner's agent. */
export async function setupOwner(h: DocumentedApp): Promise<Agent> {
  expect((await h.call('GET', '/livez')).json()).toEqual({ status: 'up' });
  expect((await h.call('GET', '/api/v1/health')).status).toBe(401);
  expect((await h.call('GET', '/api/v1/setup')).json()).toEqual({ needed: true });
  const bad = { token: 'not-the-token-at-all', email: 'owner@example.com', password: PASSWORD };
  expect((await h.call('POST', '/api/v1/setup', { body: bad })).status).toBe(403);
  const owner = new Agent();
  const body = { token: SETUP_TOKEN, email: 'owner@example.com', password: PASSWORD };
  const res = await h.call('POST', '/api/v1/setup', { body, agent: owner });
  expect(res.status).toBe(201);
  owner.csrf = res.json<{ csrf_token: string }>().csrf_token;
  expect((await h.call('POST', '/api/v1/setup', { body })).status).toBe(403);
  expect((await h.call('GET', '/api/v1/setup')).json()).toEqual({ needed: false });
  expect((await h.call('GET', '/api/v1/health', { agent: owner })).json()).toMatchObject({ status: 'ok' });
  return owner;
}

/** Signs in through the checked API (no two-step). */
export async function signIn(h: DocumentedApp, email: string, password = PASSWORD): Promise<Agent> {
  const agent = new Agent();
  const res = await h.call('POST', '/api/v1/session', { body: { email, password }, agent });
  expect(res.status).toBe(200);
  agent.csrf = res.json<{ csrf_token: string }>().csrf_token;
  return agent;
}

/** Sign-in, the session, sign-out. */
export async function sessionFlow(h: DocumentedApp) {
  const wrong = { email: 'owner@example.com', password: 'not the password at all' };
  expect((await h.call('POST', '/api/v1/session', { body: wrong })).status).toBe(401);
  const agent = await signIn(h, 'owner@example.com');
  const session = await h.call('GET', '/api/v1/session', { agent });
  expect(session.json()).toMatchObject({ csrf_token: agent.csrf, recovery_codes_left: null });
  expect((await h.call('DELETE', '/api/v1/session', { agent })).status).toBe(204);
  expect((await h.call('GET', '/api/v1/session', { agent })).status).toBe(401);
}

/**
 * A person added with a password replaces it, turns two-step on, signs in with a code, reads the
 * recovery codes left, and turns two-step off again.
 */
export async function twoStepFlow(h: DocumentedApp, owner: Agent) {
  const email = 'ann@example.com';
  const added = await h.call('POST', '/api/v1/people', {
    body: { email, role: 'viewer', password: PASSWORD },
    agent: owner,
  });
  expect(added.status).toBe(201);
  expect(added.json()).not.toHaveProperty('password');
  let ann = await signIn(h, email);
  const mustChange = await h.call('GET', '/api/v1/session', { agent: ann });
  expect(mustChange.json<{ person: { must_change_password: boolean } }>().person.must_change_password).toBe(
    true,
  );
  const newPassword = 'ann chose this password';
  const change = (current: string) => ({ current_password: current, new_password: newPassword });
  expect(
    (await h.call('PUT', '/api/v1/account/password', { body: change('wrong!'), agent: ann })).status,
  ).toBe(400);
  expect(
    (await h.call('PUT', '/api/v1/account/password', { body: change(PASSWORD), agent: ann })).status,
  ).toBe(204);

  const confirm = (code: string) =>
    h.call('POST', '/api/v1/account/two-step/confirm', { body: { code }, agent: ann });
  expect((await confirm('123456')).status).toBe(409); // nothing to confirm yet
  const off = (password: string, code: string) =>
    h.call('DELETE', '/api/v1/account/two-step', { body: { password, code }, agent: ann });
  expect((await off(newPassword, '123456')).status).toBe(409); // two-step is not on
  const setup = (password: string) =>
    h.call('POST', '/api/v1/account/two-step/setup', { body: { password }, agent: ann });
  expect((await setup('wrong!')).status).toBe(400);
  const started = await setup(newPassword);
  expect(started.status).toBe(200);
  const { secret } = started.json<{ secret: string }>();
  expect((await confirm('abcdef')).status).toBe(400);
  const confirmed = await confirm(totp(secret, h.clock.now()));
  expect(confirmed.status).toBe(200);

  h.clock.advance(31_000);
  const first = await h.call('POST', '/api/v1/session', { body: { email, password: newPassword } });
  expect(first.json()).toMatchObject({ two_step_required: true });
  const { challenge } = first.json<{ challenge: string }>();
  const step = (code: string, agent?: Agent) =>
    h.call('POST', '/api/v1/session/two-step', { body: { challenge, code }, agent });
  expect((await step('000000x')).status).toBe(401);
  ann = new Agent();
  const done = await step(totp(secret, h.clock.now()), ann);
  expect(done.status).toBe(200);
  ann.csrf = done.json<{ csrf_token: string }>().csrf_token;
  const session = await h.call('GET', '/api/v1/session', { agent: ann });
  expect(session.json()).toMatchObject({ recovery_codes_left: 10 });

  expect((await off('wrong!', '123456')).status).toBe(400);
  h.clock.advance(31_000);
  expect((await off(newPassword, totp(secret, h.clock.now()))).status).toBe(204);
}

/**
 * E-mail reports: the choices, "send me one now" (taken, refused by the mail server, and with no
 * mail server), and the unsubscribe link's page and one-click POST. The mail server here is a
 * recorder that refuses its second message; tests/alerts/email-reports.test.ts uses a real one.
 */
export async function emailReportsFlow(h: DocumentedApp, owner: Agent, site: string) {
  const base = '/api/v1/account/email-reports';
  const before = h.deps.alerts;
  let taken = 0;
  const sender = {
    mailReady: true,
    mail: async () => (++taken === 1 ? null : 'the mail server answered 550'),
  };
  h.deps.alerts = { mailReady: true, emailReports: new EmailReports(h.deps, sender) } as unknown as Alerts;
  try {
    expect((await h.call('GET', base, { agent: owner })).json()).toMatchObject({ mail_ready: true });
    const chosen = await h.call('PUT', `${base}/${site}`, {
      body: { weekly: true, monthly: true },
      agent: owner,
    });
    expect(chosen.status).toBe(200);
    expect((await h.call('PUT', `${base}/${site}`, { body: { weekly: 1 }, agent: owner })).status).toBe(400);
    const send = () => h.call('POST', `${base}/${site}/send`, { body: { period: 'month' }, agent: owner });
    expect((await send()).status).toBe(200);
    expect((await send()).json()).toMatchObject({ code: 'mail_failed' });
    const me = (await h.call('GET', '/api/v1/session', { agent: owner })).json<{ person: { id: string } }>();
    const token = unsubscribeToken(h.control, me.person.id, site, 'weekly');
    const page = { headers: { accept: 'text/html' } };
    expect((await h.call('GET', `/unsubscribe/${token}`, page)).status).toBe(200);
    expect((await h.call('POST', `/unsubscribe/${token}`, page)).status).toBe(200);
    expect((await h.call('GET', `/unsubscribe/${token}x`, page)).status).toBe(404);
    expect((await h.call('POST', `/unsubscribe/${token}x`)).status).toBe(404);
    expect((await h.call('GET', base, { agent: owner })).json()).toMatchObject({
      sites: [{ site, weekly: false, monthly: true }],
      all_sites: { site: 'all', sites: 1, weekly: false, monthly: false },
    });
    // the report of all sites: chosen, sent now, and stopped by its own link
    const all = await h.call('PUT', `${base}/all`, { body: { weekly: true, monthly: false }, agent: owner });
    expect(all.json()).toMatchObject({ site: 'all', sites: 1, weekly: true, monthly: false });
    expect(
      (await h.call('POST', `${base}/all/send`, { body: { period: 'week' }, agent: owner })).json(),
    ).toMatchObject({ code: 'mail_failed' });
    const allToken = unsubscribeToken(h.control, me.person.id, 'all', 'weekly');
    expect((await h.call('GET', `/unsubscribe/${allToken}`, page)).status).toBe(200);
    expect((await h.call('POST', `/unsubscribe/${allToken}`, page)).status).toBe(200);
    expect((await h.call('GET', base, { agent: owner })).json()).toMatchObject({
      all_sites: { site: 'all', weekly: false },
    });
    h.deps.alerts = undefined;
    expect((await send()).json()).toMatchObject({ code: 'mail_not_configured' });
  } finally {
    h.deps.alerts = before;
  }
}

/**
 * Single sign-on: not set up (404), then set up against a real OpenID provider: the methods, a
 * start (302 to the provider), a person who joins, the same return address again (401), an
 * unverified address (403), and a provider that stops answering (502), each checked.
 */
export async function singleSignOnFlow(
  h: DocumentedApp,
  withSso: (env: Record<string, string>) => Promise<DocumentedApp>,
) {
  expect((await h.call('GET', '/api/v1/session/methods')).json()).toEqual({
    passwords: true,
    single_sign_on: null,
  });
  expect((await h.call('GET', '/api/v1/session/oidc')).status).toBe(404);
  expect((await h.call('GET', '/api/v1/session/oidc/callback?state=s&code=c')).status).toBe(404);

  const base = 'http://sso.example';
  const idp = await startOidcProvider(`${base}/api/v1/session/oidc/callback`);
  const env = {
    FOOTFALL_BASE_URL: base,
    FOOTFALL_OIDC_ISSUER: idp.issuer,
    FOOTFALL_OIDC_CLIENT_ID: idp.clientId,
    FOOTFALL_OIDC_CLIENT_SECRET: idp.clientSecret,
    FOOTFALL_OIDC_DEFAULT_ROLE: 'viewer',
  };
  idp.accounts.set('ann', { email: 'ann@example.com', email_verified: true });
  idp.accounts.set('eve', { email: 'eve@example.com', email_verified: false });
  const app = await withSso(env);
  const pathOf = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };
  /** A started sign-in: the provider's address and the browser's binding cookie. */
  const start = async () => {
    const res = await app.call('GET', '/api/v1/session/oidc?next=%2Fsites');
    expect(res.status).toBe(302);
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(cookie).toMatch(/^footfall_sso=/);
    return { location: res.headers.get('location')!, cookie };
  };
  try {
    expect((await app.call('GET', '/api/v1/session/methods')).json()).toEqual({
      passwords: true,
      single_sign_on: { name: 'single sign-on', start_url: '/api/v1/session/oidc' },
    });
    const first = await start();
    expect(first.location.startsWith(`${idp.issuer}/`)).toBe(true);
    expect(new URL(first.location).searchParams.get('code_challenge_method')).toBe('S256');
    const back = pathOf(await authorizeAt(first.location, 'ann'));
    const signedIn = await app.call('GET', back, { headers: { cookie: first.cookie, accept: 'text/html' } });
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).toBe('/sites');
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith('footfall_session='))).toBe(true);
    // the same return address again: used
    const replayed = await app.call('GET', back, { headers: { cookie: first.cookie } });
    expect(replayed.status).toBe(401);

    const unverified = await start();
    const eve = pathOf(await authorizeAt(unverified.location, 'eve'));
    expect((await app.call('GET', eve, { headers: { cookie: unverified.cookie } })).status).toBe(403);

    // the provider stops answering between the start and the return
    const late = await start();
    const lateBack = pathOf(await authorizeAt(late.location, 'ann'));
    await idp.close();
    const unreachable = await app.call('GET', lateBack, { headers: { cookie: late.cookie } });
    expect(unreachable.status).toBe(502);
    expect(unreachable.json()).toMatchObject({ code: 'provider_unreachable' });
    // and a provider never reached: the start is refused, as JSON or back to the sign-in screen
    const gone = await withSso({ ...env, FOOTFALL_OIDC_ISSUER: idp.issuer });
    expect((await gone.call('GET', '/api/v1/session/oidc')).status).toBe(502);
    const html = await gone.call('GET', '/api/v1/session/oidc', { headers: { accept: 'text/html' } });
    expect(html.headers.get('location')).toBe('/login?sso_error=unreachable');
  } finally {
    await idp.close().catch(() => undefined);
  }
}
