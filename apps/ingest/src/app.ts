import { notFound, onError } from '@footfall/http';
import { Hono } from 'hono';
import { timing } from 'hono/timing';
import type { IngestDeps } from './deps.ts';
import { crawlRoutes } from './routes/crawl.ts';
import { eventRoutes } from './routes/event.ts';
import type { GatewayEnv } from './routes/request.ts';
import { scriptRoutes } from './routes/script.ts';

/**
 * The gateway's own routes (events, crawl hits, webhooks, tracker scripts). Everything else never
 * reaches this app: the front door forwards it to the query service.
 */
export function createIngestApp(deps: IngestDeps) {
  const app = new Hono<GatewayEnv>();
  app.use('*', timing({ crossOrigin: true }));
  app.onError(onError(deps.logger));
  app.notFound(notFound);
  app.route('/', eventRoutes(deps));
  app.route('/', crawlRoutes(deps));
  app.route('/', scriptRoutes(deps));
  return app;
}
