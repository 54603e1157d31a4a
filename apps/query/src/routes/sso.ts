import type { OidcSettings } from '@footfall/config';
import {
  type ControlDb,
  createPerson,
  createSession,
  findPersonByEmail,
  getSite,
  getSiteByDomain,
  type PersonRow,
  randomToken,
  setPassword,
  setSiteAccess,
} from '@footfall/control';
import { AppError, type ErrorCode, type Logger } from '@footfall/http';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { CLIENT_PROTO_HEADER, setSessionCookie } from '../auth/cookies.ts';
import type { AuthEnv } from '../auth/env.ts';
import { OidcRelyingParty, SSO_PENDING_MS, SsoRefusal, type SsoRefusalCode } from '../auth/oidc.ts';
import type { QueryDeps } from '../deps.ts';

/** Binds a started single sign-on to the browser that started it (its hash is kept with the state). */
const BINDING_COOKIE = 'footfall_sso';
const CALLBACK_PATH = '/api/v1/session/oidc/callback';

/** The HTTP status of each refusal when the caller is not a browser (which is sent to /login instead). */
const REFUSAL_STATUS: Record<SsoRefusalCode, ErrorCode> = {
  expired: 'unauthorized',
  other_browser: 'unauthorized',
  provider_refused: 'unauthorized',
  token_refused: 'unauthorized',
  unverified_email: 'forbidden',
  no_email: 'forbidden',
  no_account: 'forbidden',
  unreachable: 'provider_unreachable',
};

/**
 * A dashboard path to return to after sign-in: same origin only. Never `//host`, and no backslash
 * or control character anywhere (browsers drop tabs and newlines, and read `\` as `/`, so
 * `/<tab>/host` would leave the site).
 */
export const safeNext = (next: string | undefined) =>
  next?.startsWith('/') &&
  !next.startsWith('//') &&
  ![...next].some((ch) => ch === '\\' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) &&
  next.length <= 2000
    ? next
    : '/';

/**
 * Single sign-on with OpenID Connect (docs/sign-in.md), when FOOTFALL_OIDC_ISSUER is set:
 *
 * - `GET /api/v1/session/methods`: how people may sign in here (the sign-in screen asks);
 * - `GET /api/v1/session/oidc?next=/path`: sends the browser to the provider;
 * - `GET /api/v1/session/oidc/callback`: where the provider sends it back; signs the person in
 *   and sends the browser on to `next`. A refused sign-in goes to `/login?sso_error=<code>` (a
 *   caller that does not take HTML gets the JSON error).
 */
export function ssoRoutes(deps: QueryDeps) {
  const settings = deps.config.oidc;
  const party =
    settings && deps.config.baseUrl
      ? new OidcRelyingParty(settings, `${deps.config.baseUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`, deps.now)
      : undefined;
  const configured = () => {
    if (!party || !settings)
      throw new AppError('not_found', 'single sign-on is not set up here (FOOTFALL_OIDC_ISSUER)');
    return { party, settings };
  };
  const secure = (c: Context) => c.req.header(CLIENT_PROTO_HEADER) === 'https';

  return new Hono<AuthEnv>()
    .get('/session/methods', (c) =>
      c.json({
        passwords: settings?.ssoOnly !== true,
        single_sign_on: settings ? { name: settings.name, start_url: '/api/v1/session/oidc' } : null,
      }),
    )
    .get('/session/oidc', async (c) => {
      const { party } = configured();
      const next = safeNext(c.req.query('next'));
      let started: Awaited<ReturnType<OidcRelyingParty['start']>>;
      try {
        started = await party.start(next);
      } catch (e) {
        return refused(c, e, deps.logger);
      }
      setCookie(c, BINDING_COOKIE, started.binding, {
        httpOnly: true,
        sameSite: 'Lax',
        secure: secure(c),
        path: CALLBACK_PATH,
        maxAge: SSO_PENDING_MS / 1000,
      });
      return c.redirect(started.url.href, 302);
    })
    .get('/session/oidc/callback', async (c) => {
      const { party, settings } = configured();
      const binding = getCookie(c, BINDING_COOKIE);
      deleteCookie(c, BINDING_COOKIE, {
        path: CALLBACK_PATH,
        secure: secure(c),
        httpOnly: true,
        sameSite: 'Lax',
      });
      try {
        const who = await party.finish(new URL(c.req.url).searchParams, binding);
        const person = await personFor(deps.control, settings, who.email, deps.logger);
        const session = await createSession(deps.control, person.id);
        setSessionCookie(c, session.token);
        deps.logger.info({ person: person.id }, 'signed in through single sign-on');
        return c.redirect(who.next, 302);
      } catch (e) {
        return refused(c, e, deps.logger);
      }
    });
}

/**
 * The account of a verified e-mail address: the person who has it, or a new one when
 * FOOTFALL_OIDC_DEFAULT_ROLE lets people join. A generated password still waiting to be replaced
 * is replaced by one nobody knows: this person signs in through the provider.
 */
async function personFor(
  ctl: ControlDb,
  settings: OidcSettings,
  email: string,
  logger: Logger,
): Promise<PersonRow> {
  const found = await findPersonByEmail(ctl, email);
  if (found) {
    if (found.must_change_password === 1) await setPassword(ctl, found.id, unknowable());
    return (await findPersonByEmail(ctl, email)) ?? found;
  }
  if (!settings.defaultRole) {
    throw new SsoRefusal('no_account', `nobody has the address ${email} here: ask an owner to add you`);
  }
  const person = await createPerson(ctl, { email, password: unknowable(), role: settings.defaultRole });
  if (person.role === 'viewer' && settings.defaultSites !== 'all') {
    const named = settings.defaultSites === 'none' ? [] : settings.defaultSites;
    const found = named.map((s) => (getSite(ctl, s) ?? getSiteByDomain(ctl, s))?.id);
    const missing = named.filter((_, i) => found[i] === undefined);
    if (missing.length)
      logger.warn({ sites: missing }, 'FOOTFALL_OIDC_DEFAULT_SITES names sites that do not exist');
    await setSiteAccess(
      ctl,
      person.id,
      found.filter((id) => id !== undefined),
    );
  }
  logger.info({ person: person.id, role: person.role }, 'a person joined through single sign-on');
  const row = await findPersonByEmail(ctl, email);
  if (!row) throw new Error('the person created by single sign-on is missing');
  return row;
}

/** A password nobody is told: 32 random bytes. */
const unknowable = () => `${randomToken(32)}Aa1!`;

/** A refused sign-in: a browser goes to the sign-in screen, which names it; others get JSON. */
function refused(c: Context, e: unknown, logger: Logger) {
  if (!(e instanceof SsoRefusal)) throw e;
  logger.warn({ reason: e.code, detail: e.message }, 'single sign-on refused');
  if ((c.req.header('accept') ?? '').includes('text/html')) {
    return c.redirect(`/login?sso_error=${e.code}`, 302);
  }
  throw new AppError(REFUSAL_STATUS[e.code], e.message);
}
