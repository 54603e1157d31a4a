import { Hono } from 'hono';
import { cors } from 'hono/cors';

/** CORS preflight of `POST /api/e` (the tracker posts JSON from the site's own origin). */
export function preflightRoutes() {
  return new Hono().use(
    '/api/e',
    cors({
      origin: '*',
      allowMethods: ['POST'],
      allowHeaders: ['Content-Type'],
      exposeHeaders: ['Retry-After'],
      maxAge: 86400,
    }),
  );
}
