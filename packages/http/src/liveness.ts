import { Hono } from 'hono';

/** Where each process answers that it is up, for container and service-manager health checks. */
export const LIVENESS_PATH = '/livez';

/**
 * `GET /livez`: `{ "status": "up" }` and nothing else, without a credential, for health checks
 * (the image's HEALTHCHECK runs `footfall live`). The gateway answers it for itself on
 * FOOTFALL_ADDR; the query service answers it on its socket. It tells nothing about the data.
 */
export function livenessRoutes() {
  return new Hono().get(LIVENESS_PATH, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ status: 'up' });
  });
}
