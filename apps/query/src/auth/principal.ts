import type { Config } from '@footfall/config';
import {
  type ControlDb,
  getSite,
  resolveApiKey,
  resolveSession,
  resolveShareCredential,
  SHARE_CREDENTIAL_PREFIX,
  safeEqual,
  siteScopeOf,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { SESSION_COOKIE } from './cookies.ts';
import type { Principal } from './env.ts';

/**
 * Finds the caller: a bearer credential (FOOTFALL_API_TOKEN or an API key) first, else the session
 * cookie. A bearer credential that matches nothing is a 401 (not a silent fall-back to the cookie).
 */
export async function resolvePrincipal(
  c: Context,
  control: ControlDb,
  config: Config,
): Promise<Principal | undefined> {
  const found = await lookupPrincipal(credentialsOf(c), control, config);
  if (typeof found === 'string') throw unauthorized(c, found);
  return found;
}

/** What a request presents as its credentials: its Authorization header and session cookie. */
export interface Credentials {
  authorization: string | undefined;
  session: string | undefined;
}

export const credentialsOf = (c: Context): Credentials => ({
  authorization: c.req.header('authorization'),
  session: getCookie(c, SESSION_COOKIE),
});

/**
 * The caller `credentials` stand for now: undefined when they carry none (or a session that ended),
 * or why a bearer credential is refused. Asked once per request by the guard, and again by a live
 * stream while it stays open, so it ends when its access does.
 */
export async function lookupPrincipal(
  credentials: Credentials,
  control: ControlDb,
  config: Config,
): Promise<Principal | undefined | string> {
  const auth = credentials.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) return 'the Authorization header must be "Bearer <API key>"';
    const value = m[1]!;
    if (value.startsWith(SHARE_CREDENTIAL_PREFIX)) {
      const share = resolveShareCredential(control, value);
      const site = share === undefined ? undefined : getSite(control, share.siteId);
      if (!share || !site?.modules.shares) {
        return 'this share link was revoked, or its access ended: open the link again';
      }
      return {
        kind: 'share',
        role: 'viewer',
        shareId: share.id,
        showNotes: share.showNotes,
        scope: new Set([share.siteId]),
      };
    }
    if (config.apiToken !== undefined && safeEqual(value, config.apiToken)) {
      return { kind: 'api-token', role: 'viewer', scope: 'all' };
    }
    const key = await resolveApiKey(control, value);
    if (!key) return 'the API key is not valid (revoked or mistyped?)';
    return { kind: 'api-key', role: 'viewer', keyId: key.id, scope: key.scope };
  }
  const token = credentials.session;
  if (!token) return undefined;
  const session = await resolveSession(control, token);
  if (!session) return undefined;
  return {
    kind: 'session',
    role: session.person.role,
    person: session.person,
    session,
    scope: await siteScopeOf(control, session.person),
  };
}

export function unauthorized(c: Context, message: string): AppError {
  c.header('WWW-Authenticate', 'Bearer realm="footfall"');
  return new AppError('unauthorized', message);
}
