import { createSession, type PersonRow, toPerson } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Context } from 'hono';
import { addressKey } from '../auth/address.ts';
import { CLIENT_ADDRESS_HEADER, CLIENT_PROTO_HEADER, setSessionCookie } from '../auth/cookies.ts';
import type { AuthEnv, Principal } from '../auth/env.ts';
import { personJson } from './views.ts';

/** Whom a password check counts against: the client's address (its /64 for IPv6) and the e-mail. */
export const checkKeys = (c: Context, person?: string) => ({
  address: addressKey(c.req.header(CLIENT_ADDRESS_HEADER)),
  person: person?.trim().toLowerCase(),
});

/** The session principal of a `self` or `owner` route (the guard has already required one). */
export function sessionPrincipal(c: Context<AuthEnv>): Extract<Principal, { kind: 'session' }> {
  const p = c.get('principal');
  if (p?.kind !== 'session') throw new AppError('unauthorized', 'sign in first');
  return p;
}

/** Starts a session for `person`: sets the cookie and answers with the person and the CSRF token. */
export async function signedIn(c: Context<AuthEnv>, person: PersonRow, status: 200 | 201 = 200) {
  const session = await createSession(c.get('control'), person.id);
  setSessionCookie(c, session.token);
  return c.json(
    {
      person: personJson(toPerson(person)),
      csrf_token: session.csrfToken,
      expires_at: new Date(session.expiresAt).toISOString(),
    },
    status,
  );
}

/** The address people reach Footfall at: FOOTFALL_BASE_URL, else the request's own origin. */
export function publicOrigin(c: Context, baseUrl: string | undefined): string {
  if (baseUrl) return baseUrl.replace(/\/+$/, '');
  const proto = c.req.header(CLIENT_PROTO_HEADER) === 'https' ? 'https' : 'http';
  return `${proto}://${c.req.header('host') ?? 'localhost'}`;
}
