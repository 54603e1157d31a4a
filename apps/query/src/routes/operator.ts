import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '@footfall/http';
import { footfallVersion } from '@footfall/instance';
import { Hono, type MiddlewareHandler } from 'hono';
import type { QueryDeps } from '../deps.ts';
import { disk, healthContent } from '../health-content.ts';
import { gatewayHealth } from '../ingest-status.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Compares a bearer token in constant time. */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), digest(expected));
}

/**
 * `/_footfall/health` and `/_footfall/usage`: they exist only while FOOTFALL_OPERATOR_TOKEN is set
 * (404 otherwise, as if there were no such path) and need it as bearer token (401 without).
 */
export function operatorRoutes(deps: QueryDeps) {
  const token = deps.config.operatorToken;
  const guard: MiddlewareHandler = async (c, next) => {
    if (token === undefined) throw new AppError('not_found', `no route for ${c.req.method} ${c.req.path}`);
    if (!bearerMatches(c.req.header('authorization'), token)) {
      c.header('WWW-Authenticate', 'Bearer realm="footfall-operator"');
      throw new AppError('unauthorized', 'the operator token is missing or wrong');
    }
    await next();
  };
  return new Hono()
    .use('*', guard)
    .get('/health', async (c) => {
      // the Health content, with each gateway's whole status answer and where the key lives
      const ingest = await gatewayHealth(deps.instance.paths.run);
      // the reader-facing parts (gateway counters, key check) give way to the operator's own
      const {
        events: _events,
        ingest: _streams,
        key_matches: _keyMatches,
        ...health
      } = await healthContent(deps, { gateways: ingest });
      return c.json({ ...health, ingest, key_on_volume: deps.instance.keyOnVolume });
    })
    .get('/usage', async (c) => c.json({ version: footfallVersion(), disk: await disk(deps) }));
}
