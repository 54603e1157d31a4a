import { notFound, onError } from '@footfall/http';
import { Hono } from 'hono';
import { timing } from 'hono/timing';
import type { QueryDeps } from './deps.ts';
import { healthRoutes } from './routes/health.ts';
import { operatorRoutes } from './routes/operator.ts';

/**
 * The query service's HTTP app: `/api/v1`, the operator endpoints and (later) the dashboard.
 * Every answer carries `Server-Timing`.
 */
export function createQueryApp(deps: QueryDeps) {
  const app = new Hono();
  app.use('*', timing({ crossOrigin: false }));
  app.onError(onError(deps.logger));
  app.notFound(notFound);
  app.route('/api/v1', healthRoutes(deps));
  app.route('/_footfall', operatorRoutes(deps));
  return app;
}
