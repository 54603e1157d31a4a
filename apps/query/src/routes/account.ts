import {
  beginTwoStepSetup,
  confirmTwoStepSetup,
  disableTwoStep,
  getPerson,
  type PersonRow,
  setPassword,
  verifyPassword,
  verifyTwoStepCode,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { checkKeys, sessionPrincipal } from './auth-helpers.ts';

const str = (max: number) => v.pipe(v.string(), v.maxLength(max));
const PasswordChange = v.strictObject({ current_password: str(1000), new_password: str(1000) });
const SetupStart = v.strictObject({ password: str(1000), code: v.optional(str(40)) });
const SetupConfirm = v.strictObject({ code: str(40) });
const TwoStepOff = v.strictObject({ password: str(1000), code: str(40) });

/**
 * The caller's own account (`self` routes): password change, and two-step set-up, confirmation
 * and removal. Changing what protects an account needs the password, and a current code or a
 * recovery code while two-step is on.
 */
export function accountRoutes(deps: QueryDeps) {
  const ctl = deps.control;

  const checkPassword = async (c: Context, person: PersonRow, password: string, field: string) => {
    const ok = await deps.passwordChecks.password(checkKeys(c, person.email), () =>
      verifyPassword(password, person.password_hash),
    );
    if (!ok) throw new AppError('invalid_body', `${field}: wrong password`, { field });
  };
  const checkCode = async (c: Context, person: PersonRow, code: string | undefined) => {
    if (person.totp_secret === null) return;
    if (code === undefined) {
      throw new AppError('invalid_body', 'code is required: two-step is on (a recovery code works too)', {
        field: 'code',
      });
    }
    const ok = await deps.passwordChecks.code(checkKeys(c, person.email), () =>
      verifyTwoStepCode(ctl, person.id, code),
    );
    if (!ok) throw new AppError('invalid_body', 'code: wrong or already used code', { field: 'code' });
  };
  const me = async (c: Context<AuthEnv>) => {
    const person = await getPerson(ctl, sessionPrincipal(c).person.id);
    if (!person) throw new AppError('unauthorized', 'sign in first');
    return person;
  };

  return new Hono<AuthEnv>()
    .put('/account/password', async (c) => {
      const body = await readJson(c, PasswordChange);
      const person = await me(c);
      await checkPassword(c, person, body.current_password, 'current_password');
      if (body.new_password === body.current_password) {
        throw new AppError('invalid_body', 'new_password must differ from the current one', {
          field: 'new_password',
        });
      }
      await setPassword(ctl, person.id, body.new_password, {
        keepSessionHash: sessionPrincipal(c).session.tokenHash,
      });
      return c.body(null, 204);
    })
    .post('/account/two-step/setup', async (c) => {
      const body = await readJson(c, SetupStart);
      const person = await me(c);
      await checkPassword(c, person, body.password, 'password');
      await checkCode(c, person, body.code);
      const setup = await beginTwoStepSetup(ctl, person.id, person.email);
      return c.json({
        secret: setup.secret,
        otpauth_uri: setup.uri,
        expires_at: new Date(setup.expiresAt).toISOString(),
      });
    })
    .post('/account/two-step/confirm', async (c) => {
      const body = await readJson(c, SetupConfirm);
      const person = await me(c);
      return c.json({ recovery_codes: await confirmTwoStepSetup(ctl, person.id, body.code) });
    })
    .delete('/account/two-step', async (c) => {
      const body = await readJson(c, TwoStepOff);
      const person = await me(c);
      if (person.totp_secret === null) throw new AppError('conflict', 'two-step is not on');
      await checkPassword(c, person, body.password, 'password');
      await checkCode(c, person, body.code);
      await disableTwoStep(ctl, person.id);
      return c.body(null, 204);
    });
}
