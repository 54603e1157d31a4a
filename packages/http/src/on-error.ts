import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { matchedRoutes } from 'hono/route';
import type { Logger } from 'pino';
import { AppError, type ErrorBody, type ErrorCode } from './errors.ts';

/** Answers an error as `{ code, message, field? }` JSON with the right status and headers. */
export function errorResponse(c: Context, error: AppError): Response {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.field !== undefined) body.field = error.field;
  if (error.permission !== undefined) body.permission = error.permission;
  if (error.retryAfter !== undefined)
    c.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfter))));
  return c.json(body, error.status as 400);
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/**
 * The route a request matched, as it is declared (`GET /api/v1/shared/:token`), or its method
 * alone when it matched none: what logs name instead of the path, which can hold a share or
 * milestone token, a visitor id or anything a client typed.
 */
export function routeOf(c: Context): string {
  const route = matchedRoutes(c)
    .filter((r) => r.method !== 'ALL')
    .at(-1);
  return route === undefined ? `${c.req.method} (no route)` : `${c.req.method} ${route.path}`;
}

/**
 * The one `onError` of every Footfall app: known errors become their JSON answer; anything else is
 * logged with its route, never its path (never with a visitor address: handlers do not put one
 * into errors), and answered as a plain 500 that shows no internal text.
 */
export function onError(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof AppError) return errorResponse(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code = STATUS_CODES[err.status] ?? 'bad_request';
      return c.json(
        { code, message: err.message || code.replace(/_/g, ' ') } satisfies ErrorBody,
        err.status,
      );
    }
    // the client went away while its body was read (the gateway aborts a body over its limit):
    // nobody reads this answer, and nothing failed here
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') {
      logger.debug({ route: routeOf(c) }, 'request aborted by its client');
      return c.json({ code: 'bad_request', message: 'the request was aborted' } satisfies ErrorBody, 400);
    }
    const requestId = crypto.randomUUID();
    logger.error(
      {
        err: { name: err.name, message: err.message, stack: err.stack },
        request_id: requestId,
        route: routeOf(c),
      },
      'request failed',
    );
    return c.json(
      { code: 'internal', message: 'internal error', request_id: requestId } satisfies ErrorBody,
      500,
    );
  };
}

/** The one 404 answer for unknown paths. */
export const notFound: NotFoundHandler = (c) =>
  c.json(
    { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } satisfies ErrorBody,
    404,
  );
