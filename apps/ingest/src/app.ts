import { livenessRoutes, notFound, onError } from '@footfall/http';
import { Hono } from 'hono';
import { timing } from 'hono/timing';
import type { IngestDeps } from './deps.ts';
import { preflightRoutes } from './routes/preflight.ts';
import { scriptRoutes } from './routes/script.ts';
import { webhookRoutes } from './routes/webhooks.ts';

/**
 * The gateway's own Hono routes (tracker scripts, CORS preflight, webhooks, its liveness). `POST /api/e` and
 * `POST /api/crawl` are answered before this app, on node:http (post-handler.ts); everything else
 * never reaches it: the front door forwards it to the query service.
 */
export function createIngestApp(deps: IngestDeps) {
  const app = new Hono();
  app.use('*', timing({ crossOrigin: true }));
  app.onError(onError(deps.logger));
  app.notFound(notFound);
  app.route('/', livenessRoutes());
  app.route('/', preflightRoutes());
  app.route('/', scriptRoutes(deps));
  app.route('/', webhookRoutes(deps));
  return app;
}
