import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AccountsApp, type Agent, accountsApp, PASSWORD, totp } from './harness.ts';

let h: AccountsApp;
let owner: Agent;
beforeEach(async () => {
  h = await accountsApp();
  owner = await h.setup('owner@example.com');
});
afterEach(() => h.cleanup());

const post = (path: string, body: unknown, agent?: Agent) => h.call('POST', path, { body, agent });

async function turnOn(
  agent: Agent,
  extra: Record<string, string> = {},
): Promise<{ secret: string; codes: string[] }> {
  const start = await post('/api/v1/account/two-step/setup', { password: PASSWORD, ...extra }, agent);
  expect(start.status).toBe(200);
  const { secret, otpauth_uri } = (await start.json()) as { secret: string; otpauth_uri: string };
  expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\/Footfall:owner%40example\.com\?/);
  const confirm = await post(
    '/api/v1/account/two-step/confirm',
    { code: totp(secret, h.clock.now()) },
    agent,
  );
  expect(confirm.status).toBe(200);
  const { recovery_codes } = (await confirm.json()) as { recovery_codes: string[] };
  return { secret, codes: recovery_codes };
}

/** Password step of a sign-in; returns the challenge. */
async function passwordStep(): Promise<string> {
  const res = await post('/api/v1/session', { email: 'owner@example.com', password: PASSWORD });
  const body = (await res.json()) as { two_step_required?: boolean; challenge?: string };
  expect(body.two_step_required).toBe(true);
  expect(res.headers.get('set-cookie')).toBeNull();
  return body.challenge!;
}

describe('two-step sign-in', () => {
  it('asks for a code after the password and signs in with it once', async () => {
    const { secret } = await turnOn(owner);
    h.clock.advance(30_000);
    const code = totp(secret, h.clock.now());
    const first = await post('/api/v1/session/two-step', { challenge: await passwordStep(), code });
    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie')).toMatch(/footfall_session=/);
    const replay = await post('/api/v1/session/two-step', { challenge: await passwordStep(), code });
    expect(replay.status).toBe(401);
  });

  it('refuses an older code inside its 90-second window once a newer one signed in', async () => {
    const { secret } = await turnOn(owner);
    h.clock.advance(60_000);
    const older = totp(secret, h.clock.now());
    h.clock.advance(30_000);
    expect(
      (
        await post('/api/v1/session/two-step', {
          challenge: await passwordStep(),
          code: totp(secret, h.clock.now()),
        })
      ).status,
    ).toBe(200);
    expect(
      (await post('/api/v1/session/two-step', { challenge: await passwordStep(), code: older })).status,
    ).toBe(401);
  });

  it('accepts each recovery code once', async () => {
    const { codes } = await turnOn(owner);
    expect(
      (await post('/api/v1/session/two-step', { challenge: await passwordStep(), code: codes[3]! })).status,
    ).toBe(200);
    expect(
      (await post('/api/v1/session/two-step', { challenge: await passwordStep(), code: codes[3]! })).status,
    ).toBe(401);
    expect(
      (await post('/api/v1/session/two-step', { challenge: await passwordStep(), code: codes[4]! })).status,
    ).toBe(200);
  });

  it('lets a challenge expire and caps wrong codes per challenge', async () => {
    const { secret } = await turnOn(owner);
    const challenge = await passwordStep();
    h.clock.advance(5 * 60_000 + 30_000);
    expect(
      (await post('/api/v1/session/two-step', { challenge, code: totp(secret, h.clock.now()) })).status,
    ).toBe(401);
    const other = await passwordStep();
    for (let i = 0; i < 5; i++)
      expect((await post('/api/v1/session/two-step', { challenge: other, code: '000000' })).status).toBe(401);
    h.clock.advance(30_000);
    expect(
      (await post('/api/v1/session/two-step', { challenge: other, code: totp(secret, h.clock.now()) }))
        .status,
    ).toBe(401);
  });

  it('lets a setup expire after 10 minutes', async () => {
    const start = await post('/api/v1/account/two-step/setup', { password: PASSWORD }, owner);
    const { secret } = (await start.json()) as { secret: string };
    h.clock.advance(10 * 60_000);
    const late = await post('/api/v1/account/two-step/confirm', { code: totp(secret, h.clock.now()) }, owner);
    expect(late.status).toBe(409);
    expect(h.control.raw.prepare('SELECT totp_secret FROM people').get()).toEqual({ totp_secret: null });
  });

  it('needs the password, and a current code or recovery code when two-step is on, to set up a new phone', async () => {
    const { secret, codes } = await turnOn(owner);
    const stored = () => h.control.raw.prepare('SELECT totp_secret FROM people').get();
    const before = stored();
    expect(
      (await post('/api/v1/account/two-step/setup', { password: 'wrong password!' }, owner)).status,
    ).toBe(400);
    const noCode = await post('/api/v1/account/two-step/setup', { password: PASSWORD }, owner);
    expect(noCode.status).toBe(400);
    expect(await noCode.json()).toMatchObject({ field: 'code' });
    expect(
      (await post('/api/v1/account/two-step/setup', { password: PASSWORD, code: '123456' }, owner)).status,
    ).toBe(400);
    expect(stored()).toEqual(before);
    h.clock.advance(30_000);
    const next = await turnOn(owner, { code: totp(secret, h.clock.now()) });
    expect(next.secret).not.toBe(secret);
    expect(stored()).not.toEqual(before);
    // the old phone's recovery codes are gone with it; a recovery code of the new phone works
    h.clock.advance(30_000);
    expect(
      (await post('/api/v1/account/two-step/setup', { password: PASSWORD, code: codes[0]! }, owner)).status,
    ).toBe(400);
    expect(
      (await post('/api/v1/account/two-step/setup', { password: PASSWORD, code: next.codes[0]! }, owner))
        .status,
    ).toBe(200);
  });

  it('keeps the two-step secret sealed with the instance key', async () => {
    const { secret } = await turnOn(owner);
    const row = h.control.raw.prepare('SELECT totp_secret FROM people').get() as { totp_secret: string };
    expect(row.totp_secret).not.toContain(secret);
    expect(h.control.cipher.openText(row.totp_secret, 'two-step')).toBe(secret);
  });
});
