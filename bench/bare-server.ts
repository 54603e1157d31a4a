// The baseline for the ingest benchmark: a bare Hono handler that answers 202 doing nothing.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono().post('/api/e', (c) => c.body(null, 202));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: info.port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
