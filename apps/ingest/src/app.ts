import { notFound, onError } from '@footfall/http';
import { Hono } from 'hono';
import { timing } from 'hono/timing';
import type { IngestDeps } from './deps.ts';

/**
 * The gateway's own routes (events, crawl hits, webhooks, tracker scripts). Everything else never
 * reaches this app: the front door forwards it to the query service.
 */
export function createIngestApp(deps: IngestDeps) {
  const app = new Hono();
  app.use('*', timing({ crossOrigin: true }));
  app.onError(onError(deps.logger));
  app.notFound(notFound);
  return app;
}
