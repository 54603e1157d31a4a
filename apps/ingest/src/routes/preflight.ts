import { Hono } from 'hono';
import { cors } from 'hono/cors';

/**
 * CORS preflight of `POST /api/e` (the tracker posts JSON from the site's own origin), and of the
 * Plausible and Umami endpoints (Umami's script posts JSON too).
 */
export function preflightRoutes() {
  const preflight = cors({
    origin: '*',
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type'],
    exposeHeaders: ['Retry-After'],
    maxAge: 86400,
  });
  return new Hono().use('/api/e', preflight).use('/api/event', preflight).use('/api/send', preflight);
}
