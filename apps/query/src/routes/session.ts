import type { OidcSettings } from '@footfall/config';
import {
  createChallenge,
  DUMMY_HASH,
  deleteSession,
  endChallenge,
  findPersonByEmail,
  getPerson,
  type PersonRow,
  recoveryCodesLeft,
  toPerson,
  upgradePasswordHash,
  useChallenge,
  verifyPassword,
  verifyTwoStepCode,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { footfallVersion } from '@footfall/instance';
import { Hono } from 'hono';
import * as v from 'valibot';
import { clearSessionCookie } from '../auth/cookies.ts';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { checkKeys, sessionPrincipal, signedIn } from './auth-helpers.ts';
import { personJson } from './views.ts';

const SignIn = v.strictObject({
  email: v.pipe(v.string(), v.maxLength(254)),
  password: v.pipe(v.string(), v.maxLength(1000)),
});
const TwoStep = v.strictObject({
  challenge: v.pipe(v.string(), v.maxLength(100)),
  code: v.pipe(v.string(), v.maxLength(40)),
});

/**
 * Whether a password may sign this person in: always, unless FOOTFALL_OIDC_SSO_ONLY is on; then
 * only the break-glass owner's (FOOTFALL_OIDC_BREAK_GLASS, and an owner still).
 */
function passwordAllowed(oidc: OidcSettings | undefined, person: PersonRow | undefined): boolean {
  if (!oidc?.ssoOnly) return true;
  return person !== undefined && person.role === 'owner' && person.email === oidc.breakGlass;
}

/**
 * Sign-in, JSON only. `POST /session` checks the password; with two-step on it answers
 * `{ two_step_required: true, challenge }` and `POST /session/two-step` finishes with a code or
 * a recovery code. Success sets the session cookie and returns the CSRF token.
 */
export function sessionRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .post('/session', async (c) => {
      const body = await readJson(c, SignIn);
      const person = await findPersonByEmail(ctl, body.email);
      const allowed = passwordAllowed(deps.config.oidc, person);
      const ok = await deps.passwordChecks.password(checkKeys(c, body.email), async () => {
        // an unknown e-mail costs the same hash, so timing does not reveal who has an account
        const right = await verifyPassword(body.password, person?.password_hash ?? DUMMY_HASH);
        // a hash of older parameters is made again now, in the same slot (password.ts)
        if (right && person !== undefined && allowed) await upgradePasswordHash(ctl, person, body.password);
        return right && person !== undefined && allowed;
      });
      if (!ok || !person) {
        // with SSO only, one answer for a wrong password and a refused one: it does not tell
        // which address is the break-glass owner's
        throw new AppError(
          'unauthorized',
          deps.config.oidc?.ssoOnly
            ? `wrong e-mail or password, or password sign-in is off for this account: sign in with ${deps.config.oidc.name}`
            : 'wrong e-mail or password',
        );
      }
      if (person.totp_secret !== null) {
        return c.json({ two_step_required: true, challenge: await createChallenge(ctl, person.id) });
      }
      return signedIn(c, person);
    })
    .post('/session/two-step', async (c) => {
      const body = await readJson(c, TwoStep);
      const personId = await useChallenge(ctl, body.challenge);
      const person = personId === undefined ? undefined : await getPerson(ctl, personId);
      if (!person) throw new AppError('unauthorized', 'the sign-in has expired: enter your password again');
      const ok = await deps.passwordChecks.code(checkKeys(c, person.email), () =>
        verifyTwoStepCode(ctl, person.id, body.code),
      );
      if (!ok) throw new AppError('unauthorized', 'wrong or already used code');
      await endChallenge(ctl, body.challenge);
      return signedIn(c, person);
    })
    .get('/session', async (c) => {
      const p = sessionPrincipal(c);
      return c.json({
        person: personJson(toPerson(p.person)),
        csrf_token: p.session.csrfToken,
        expires_at: new Date(p.session.expiresAt).toISOString(),
        recovery_codes_left: p.person.totp_secret === null ? null : await recoveryCodesLeft(ctl, p.person.id),
        // what the dashboard needs of the instance: its version, and where an owner's browser may
        // look for a newer one (FOOTFALL_UPDATE_CHECK; off by default)
        instance: {
          version: footfallVersion(),
          update_check: deps.config.updateCheck !== undefined && p.person.role === 'owner',
          releases_url: p.person.role === 'owner' ? (deps.config.updateCheck ?? null) : null,
          retention_days: deps.config.retentionDays ?? null,
        },
      });
    })
    .delete('/session', async (c) => {
      await deleteSession(ctl, sessionPrincipal(c).session.tokenHash);
      clearSessionCookie(c);
      return c.body(null, 204);
    });
}
