import { Hono } from 'hono';
import type { QueryDeps } from '../deps.ts';
import { healthContent } from '../health-content.ts';

/**
 * `GET /api/v1/health`: the Health content (health-content.ts) for anyone signed in and for API
 * keys. Uptime monitors and container health checks use `GET /livez`, which needs no credential
 * and tells nothing.
 */
export function healthRoutes(deps: QueryDeps) {
  return new Hono().get('/health', async (c) => c.json(await healthContent(deps)));
}
