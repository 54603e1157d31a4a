import { beginTwoStepSetup, confirmTwoStepSetup, createPerson, createSession } from '@footfall/control';
import { expect } from 'vitest';
import { Agent, PASSWORD, SETUP_TOKEN, totp } from '../accounts/harness.ts';
import type { DocumentedApp } from './documented-app.ts';

/**
 * The 429 and 503 answers of the password-checked routes, on apps whose limits are turned down
 * so they are reached deterministically: `tight` allows one failed check per address, `busy`
 * has no check slot at all (every check waits, then answers 503 busy).
 */

const LIMITED = '198.51.100.7';

/** 429 with Retry-After on every route that checks a password or a code, from a limited address. */
export async function rateLimited(tight: DocumentedApp) {
  const wrong = { email: 'nobody@example.com', password: 'not the password at all' };
  expect((await tight.call('POST', '/api/v1/session', { body: wrong, address: LIMITED })).status).toBe(401);
  const setup = { token: SETUP_TOKEN, email: 'owner@example.com', password: PASSWORD };
  expect((await tight.call('POST', '/api/v1/setup', { body: setup, address: LIMITED })).status).toBe(429);
  const owner = await tight.setup();
  const turnOn = await tight.call('POST', '/api/v1/account/two-step/setup', {
    body: { password: PASSWORD },
    agent: owner,
  });
  const { secret } = turnOn.json<{ secret: string }>();
  const code = totp(secret, tight.clock.now());
  expect(
    (await tight.call('POST', '/api/v1/account/two-step/confirm', { body: { code }, agent: owner })).status,
  ).toBe(200);
  tight.clock.advance(31_000);

  const first = await tight.call('POST', '/api/v1/session', {
    body: { email: 'owner@example.com', password: PASSWORD },
  });
  const { challenge } = first.json<{ challenge: string }>();
  const fresh = totp(secret, tight.clock.now());
  const calls: [string, string, unknown][] = [
    ['POST', '/api/v1/session', { email: 'owner@example.com', password: PASSWORD }],
    ['POST', '/api/v1/session/two-step', { challenge, code: fresh }],
    [
      'PUT',
      '/api/v1/account/password',
      { current_password: PASSWORD, new_password: 'another long password' },
    ],
    ['POST', '/api/v1/account/two-step/setup', { password: PASSWORD, code: fresh }],
    ['DELETE', '/api/v1/account/two-step', { password: PASSWORD, code: fresh }],
  ];
  for (const [method, path, body] of calls) {
    const res = await tight.call(method, path, { body, agent: owner, address: LIMITED });
    expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 429`);
  }
}

/** 503 busy with Retry-After on every route whose password check waits for a slot. */
export async function busy(app: DocumentedApp) {
  const setup = { token: SETUP_TOKEN, email: 'owner@example.com', password: PASSWORD };
  expect((await app.call('POST', '/api/v1/setup', { body: setup })).status).toBe(503);
  const person = await createPerson(app.control, {
    email: 'owner@example.com',
    password: PASSWORD,
    role: 'owner',
  });
  const login = { email: 'owner@example.com', password: PASSWORD };
  expect((await app.call('POST', '/api/v1/session', { body: login })).status).toBe(503);

  const session = await createSession(app.control, person.id);
  const agent = Object.assign(new Agent(), {
    cookie: `footfall_session=${session.token}`,
    csrf: session.csrfToken,
  });
  const pending = await beginTwoStepSetup(app.control, person.id, person.email);
  await confirmTwoStepSetup(app.control, person.id, totp(pending.secret, app.clock.now()));
  app.clock.advance(31_000);
  const code = totp(pending.secret, app.clock.now());
  const calls: [string, string, unknown][] = [
    [
      'PUT',
      '/api/v1/account/password',
      { current_password: PASSWORD, new_password: 'another long password' },
    ],
    ['POST', '/api/v1/account/two-step/setup', { password: PASSWORD, code }],
    ['DELETE', '/api/v1/account/two-step', { password: PASSWORD, code }],
  ];
  for (const [method, path, body] of calls) {
    const res = await app.call(method, path, { body, agent });
    expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 503`);
  }
}
