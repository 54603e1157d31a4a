import { getSite, type Site, scopeAllows } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Context, MiddlewareHandler } from 'hono';
import type { AuthEnv } from './env.ts';

/**
 * For `/api/v1/sites/{site}/...` read routes: the site, if the caller may read it. No credential
 * is 401; an unknown site and a site this viewer may not see are both 404 with the same message,
 * so a limited viewer cannot probe which site ids exist.
 *
 * @example
 * app.get('/sites/:site/report', (c) => {
 *   const site = requireSiteRead(c, c.req.param('site'));
 *   ...
 * });
 */
export function requireSiteRead(c: Context<AuthEnv>, siteId: string): Site {
  const principal = c.get('principal');
  if (!principal) throw new AppError('unauthorized', 'sign in or send an API key');
  const site = getSite(c.get('control'), siteId);
  if (!site || !scopeAllows(principal.scope, site.id)) throw new AppError('not_found', 'no such site');
  return site;
}

/**
 * Middleware form of requireSiteRead for routes with a `:site` parameter; the handler reads
 * `c.get('site')`.
 *
 * @example
 * app.get('/sites/:site/now', siteRead(), (c) => c.json(now(c.get('site'))));
 */
export function siteRead(): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    c.set('site', requireSiteRead(c, c.req.param('site') ?? ''));
    await next();
  };
}
