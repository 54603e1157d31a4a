import type { Config } from '@footfall/config';
import { type ControlDb, getSite, safeEqual, scopeAllows } from '@footfall/control';
import { AppError, type Logger } from '@footfall/http';
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { accessOf, BEFORE_PASSWORD_CHANGE, isReadMethod, SHARE_READS } from './access.ts';
import { CSRF_HEADER } from './cookies.ts';
import type { AuthEnv } from './env.ts';
import { credentialsOf, lookupPrincipal, resolvePrincipal, unauthorized } from './principal.ts';

/**
 * The one access check, run before every handler: looks up the matched route in ROUTE_ACCESS and
 * refuses what the caller may not do, before the body is even read. So a viewer or an API key
 * gets 403 on every state-changing route and nothing changes.
 *
 * State-changing requests with a session cookie must carry the session's CSRF token in
 * `X-Footfall-CSRF`, and no state-changing request is taken from a cross-site page
 * (`Sec-Fetch-Site: cross-site`).
 */
export function accessGuard(deps: {
  control: ControlDb;
  config: Config;
  logger: Logger;
}): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    c.set('control', deps.control);
    c.set('principal', undefined);
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const route = matchedRoutes(c)
      .filter((r) => r.method === method)
      .at(-1);
    if (!route) return next(); // no handler: the 404 answer
    const key = `${method} ${route.path}`;
    const access = accessOf(key);
    if (access === undefined) {
      deps.logger.error({ route: key }, 'route has no access declaration; refusing it');
      throw new Error(`route ${key} has no access declaration`);
    }
    const changing = !isReadMethod(method);
    if (changing && c.req.header('sec-fetch-site') === 'cross-site') {
      throw new AppError('forbidden', 'cross-site requests cannot change anything');
    }
    if (
      access === 'public' ||
      access === 'setup' ||
      access === 'sign-in' ||
      access === 'operator' ||
      access === 'metrics'
    )
      return next();

    const principal = await resolvePrincipal(c, deps.control, deps.config);
    if (!principal) throw unauthorized(c, 'sign in or send an API key');
    c.set('principal', principal);
    const credentials = credentialsOf(c);
    c.set('mayStillRead', async (site) => {
      const now = await lookupPrincipal(credentials, deps.control, deps.config).catch(() => undefined);
      return (
        typeof now === 'object' && scopeAllows(now.scope, site) && getSite(deps.control, site) !== undefined
      );
    });

    if (access === 'mcp') {
      if (principal.kind === 'session' || principal.kind === 'share') {
        throw new AppError('forbidden', 'the MCP server takes an API key (Authorization: Bearer ffk_…)');
      }
      return next();
    }

    if (principal.kind === 'share') {
      if (changing || !SHARE_READS.has(key)) {
        throw new AppError('forbidden', 'a share link reads only the dashboard it shares');
      }
      return next();
    }
    if (principal.kind !== 'session') {
      if (access !== 'viewer' || changing) throw new AppError('forbidden', 'API keys are read-only');
      return next();
    }
    if (principal.person.must_change_password === 1 && !BEFORE_PASSWORD_CHANGE.has(key)) {
      throw new AppError('forbidden', 'choose a new password first (PUT /api/v1/account/password)');
    }
    if (access === 'owner' && principal.role !== 'owner') {
      throw new AppError('forbidden', changing ? 'viewers are read-only' : 'only owners can see this');
    }
    if (changing && !safeEqual(c.req.header(CSRF_HEADER) ?? '', principal.session.csrfToken)) {
      throw new AppError('forbidden', `missing or wrong ${CSRF_HEADER} header`);
    }
    return next();
  };
}
