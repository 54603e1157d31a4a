import { SESSION_TTL_MS } from '@footfall/control';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';

export const SESSION_COOKIE = 'footfall_session';
/**
 * Beside the session cookie, which scripts cannot read: tells the dashboard that a session may be
 * there, so a signed-out browser does not ask for one (a 401 is a console error on every visit).
 * It says nothing else; the session cookie alone signs in.
 */
export const SIGNED_IN_COOKIE = 'footfall_signed_in';
/** The header that carries a session's CSRF token on every state-changing request. */
export const CSRF_HEADER = 'x-footfall-csrf';
/** Set by the ingest gateway: 'https' when the client reached it over TLS. */
export const CLIENT_PROTO_HEADER = 'x-footfall-client-proto';
/** Set by the ingest gateway: the client's address (trust-proxy rule). Memory only, never logged. */
export const CLIENT_ADDRESS_HEADER = 'x-footfall-client-address';

const secure = (c: Context) => c.req.header(CLIENT_PROTO_HEADER) === 'https';

/** Sets the session cookie: HttpOnly, SameSite=Lax, Secure when the client used https. */
export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c),
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
  setSignedInCookie(c);
}

/** The dashboard's hint that a session cookie is there (SIGNED_IN_COOKIE). */
export function setSignedInCookie(c: Context): void {
  setCookie(c, SIGNED_IN_COOKIE, '1', {
    sameSite: 'Lax',
    secure: secure(c),
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

export function clearSignedInCookie(c: Context): void {
  deleteCookie(c, SIGNED_IN_COOKIE, { path: '/', secure: secure(c), sameSite: 'Lax' });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: secure(c), httpOnly: true, sameSite: 'Lax' });
  clearSignedInCookie(c);
}
