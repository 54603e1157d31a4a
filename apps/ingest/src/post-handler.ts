import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, type ErrorBody } from '@footfall/http';
import { LIMITS } from '@footfall/schema';
import { acceptCrawl } from './accept-crawl.ts';
import { acceptEvent } from './accept-event.ts';
import { acceptPlausibleEvent, acceptUmamiEvent } from './compat.ts';
import type { IngestDeps } from './deps.ts';
import type { IngestRequest } from './ingest-request.ts';

/** How an ingest path reads its body. */
export interface PostRoute {
  accept: (deps: IngestDeps, r: IngestRequest) => Promise<void>;
  /** also a JSON body sent as text/plain (Plausible's script does, to skip the CORS preflight) */
  plainText?: boolean;
}

/**
 * The ingest paths, answered straight on node:http (no Request object per event): Footfall's
 * own two, and the endpoints of Plausible's and Umami's trackers (compat.ts).
 */
export const POST_ROUTES: Record<string, PostRoute> = {
  '/api/e': { accept: acceptEvent },
  '/api/crawl': { accept: acceptCrawl },
  '/api/event': { accept: acceptPlausibleEvent, plainText: true },
  '/api/send': { accept: acceptUmamiEvent },
};

/**
 * Answers the POST_ROUTES (`POST /api/e`, ...): 415 unless JSON, 413 past 8 KB without reading
 * further, 400 for a body that is not JSON, then the service; 202 with no body when accepted.
 * Errors are the JSON body of docs/errors.md. Every answer carries Server-Timing, and CORS headers
 * so pages on any origin can post and read the status (and Retry-After where there is one).
 */
export function handleIngestPost(
  deps: IngestDeps,
  route: PostRoute,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const started = performance.now();
  const declaredType = req.headers['content-type'];
  // the tracker's exact header skips the parsing
  const type =
    declaredType === 'application/json'
      ? declaredType
      : (declaredType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !(route.plainText && type === 'text/plain')) {
    fail(deps, res, started, new AppError('unsupported_media_type', 'the body must be application/json'));
    return;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > LIMITS.ingestBodyBytes) {
    tooLarge(deps, res, started);
    return;
  }
  // Callbacks are inline and unnamed: this runs per event, and a named closure is one more call
  // under tsx (its __name helper) every time.
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > LIMITS.ingestBodyBytes) {
      over = true;
      tooLarge(deps, res, started);
      return;
    }
    chunks.push(chunk);
  });
  req.on('error', () => res.destroy());
  req.on('end', () => {
    if (over) return;
    let body: unknown;
    try {
      body = JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8'));
    } catch {
      fail(deps, res, started, new AppError('invalid_body', 'the body is not valid JSON'));
      return;
    }
    route.accept(deps, { headers: req.headers, socketAddress: req.socket.remoteAddress, body }).then(
      () => {
        // Readable from any origin; an empty body said with Content-Length rather than an empty
        // chunked body; no Retry-After, so nothing to expose. A flat [name, value, ...] literal: no
        // header object to build and walk, nor a constant list to copy, per answer.
        res.writeHead(202, [
          'access-control-allow-origin',
          '*',
          'content-length',
          '0',
          'server-timing',
          timing(started),
        ]);
        res.end();
      },
      (error: unknown) => fail(deps, res, started, error),
    );
  });
}

const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After' };

function fail(deps: IngestDeps, res: ServerResponse, started: number, error: unknown): void {
  deps.stats.reject(error instanceof AppError ? error.code : 'internal');
  answerError(res, error, started, deps);
}

const timing = (started: number) => `total;dur=${(performance.now() - started).toFixed(1)}`;

/** 413 at once; the rest of the body is not read, so the connection closes after the answer. */
function tooLarge(deps: IngestDeps, res: ServerResponse, started: number) {
  res.setHeader('connection', 'close');
  fail(
    deps,
    res,
    started,
    new AppError('payload_too_large', `the body is over ${LIMITS.ingestBodyBytes} bytes`),
  );
}

function answerError(res: ServerResponse, error: unknown, started: number, deps: IngestDeps): void {
  if (res.headersSent) return;
  let status = 500;
  let body: ErrorBody = { code: 'internal', message: 'internal error' };
  const headers: Record<string, string> = { ...CORS, 'content-type': 'application/json; charset=UTF-8' };
  if (error instanceof AppError) {
    status = error.status;
    body = {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
    };
    if (error.retryAfter !== undefined)
      headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfter)));
    if (error.code === 'unauthorized') headers['www-authenticate'] = 'ProxyKey header="X-Footfall-Proxy-Key"';
  } else {
    body.request_id = crypto.randomUUID();
    const e = error as Error;
    deps.logger.error(
      { err: { name: e?.name, message: e?.message, stack: e?.stack }, request_id: body.request_id },
      'ingest failed',
    );
  }
  headers['server-timing'] = timing(started);
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}
