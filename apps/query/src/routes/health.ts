import { footfallVersion } from '@footfall/instance';
import { Hono } from 'hono';
import type { QueryDeps } from '../deps.ts';

/** The public part of Health: enough for an uptime monitor, nothing about the data. */
export interface PublicHealth {
  status: 'ok';
  version: string;
  uptime_seconds: number;
}

/** `GET /api/v1/health`: version and uptime. */
export function healthRoutes(deps: QueryDeps) {
  return new Hono().get('/health', (c) =>
    c.json({
      status: 'ok',
      version: footfallVersion(),
      uptime_seconds: Math.floor((deps.now() - deps.startedAt) / 1000),
    } satisfies PublicHealth),
  );
}
