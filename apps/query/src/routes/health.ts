import { Hono } from 'hono';
import type { AuthEnv } from '../auth/env.ts';
import type { QueryDeps } from '../deps.ts';
import { healthContent } from '../health-content.ts';

/**
 * `GET /api/v1/health`: the Health content (health-content.ts) for anyone signed in and for API
 * keys, its payments limited to the caller's sites. Uptime monitors and container health checks
 * use `GET /livez`, which needs no credential and tells nothing.
 */
export function healthRoutes(deps: QueryDeps) {
  return new Hono<AuthEnv>().get('/health', async (c) => {
    const principal = c.get('principal')!;
    const owner = principal.kind === 'session' && principal.role === 'owner';
    return c.json(await healthContent(deps, { reader: { scope: principal.scope, owner } }));
  });
}
