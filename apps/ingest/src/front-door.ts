import { type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { Logger } from '@footfall/http';
import { API_BODY_BYTES, bodyTooLarge, LIVENESS_PATH } from '@footfall/http';

/** Paths the gateway answers itself; everything else goes to the query service. */
export function isIngestPath(path: string): boolean {
  return (
    path === '/api/e' ||
    path === '/api/crawl' ||
    path === '/api/event' ||
    path === '/api/send' ||
    path.startsWith('/js/') ||
    path.startsWith('/webhooks/') ||
    path === LIVENESS_PATH
  );
}

/** Headers that describe one connection, not the message (RFC 9110 7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/**
 * Internal headers the gateway sets for the query service. Any copy a client sends is dropped, so
 * only the gateway can speak for the client's address.
 */
export const CLIENT_ADDRESS_HEADER = 'x-footfall-client-address';
export const CLIENT_PROTO_HEADER = 'x-footfall-client-proto';

export interface ForwardOptions {
  socketPath: string;
  logger: Logger;
  /** the visitor's address as the trust-proxy rule reads it; in memory only, never logged */
  clientAddress: (req: IncomingMessage) => string;
  /** 'https' when the client reached us over TLS, directly or through a trusted proxy */
  clientProto: (req: IncomingMessage) => 'http' | 'https';
  /** seconds a client should wait while the query service is down */
  retryAfterSeconds?: number;
  /** the largest body forwarded (API_BODY_BYTES unless a test says otherwise) */
  maxBodyBytes?: number;
}

/** How long a refused body is still read and dropped, so its client reads the 413 (refuseBody). */
const LINGER_MS = 5000;

/**
 * Forwards one request to the query service over its unix socket, streaming both ways: the body
 * is piped, not buffered, and the answer is piped back chunk by chunk, so Server-Sent Events pass
 * through unbuffered. While the query service is down the client gets 503 with `Retry-After`.
 * A body over `maxBodyBytes` is refused with 413: at once by its `Content-Length`, else as soon as
 * the bytes read pass the limit (the query service then gets nothing, or an aborted request).
 */
export function forwardToQuery(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): void {
  const started = performance.now();
  const maxBody = options.maxBodyBytes ?? API_BODY_BYTES;
  if (declaresTooLarge(req, maxBody)) {
    refuseBody(req, res, maxBody);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  const connectionTokens = new Set(
    String(req.headers.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase()),
  );
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    if (name === CLIENT_ADDRESS_HEADER || name === CLIENT_PROTO_HEADER) continue;
    headers[name] = value;
  }
  headers[CLIENT_ADDRESS_HEADER] = options.clientAddress(req);
  headers[CLIENT_PROTO_HEADER] = options.clientProto(req);

  const upstream = request({
    socketPath: options.socketPath,
    method: req.method,
    path: req.url,
    headers,
  });
  upstream.on('response', (answer) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    }
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
    // Server-Sent Events and other streams: send each chunk as it comes
    if (String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const down = err.code === 'ECONNREFUSED' || err.code === 'ENOENT' || err.code === 'ECONNRESET';
    options.logger.warn({ code: err.code, route: pathPattern(req.url) }, 'query service unreachable');
    const body = JSON.stringify({
      code: 'unavailable',
      message: down ? 'the query service is not available right now; try again shortly' : 'bad gateway',
    });
    res.writeHead(503, {
      'content-type': 'application/json; charset=UTF-8',
      'retry-after': String(options.retryAfterSeconds ?? 5),
      'server-timing': `gateway;dur=${(performance.now() - started).toFixed(1)}`,
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  // a client that goes away takes its upstream request with it
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  // a chunked body is counted as it streams through: past the limit, the query service's request
  // is aborted and the client gets the 413 (unless the query service has answered already)
  let read = 0;
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read <= maxBody) return;
    req.off('data', count);
    req.unpipe(upstream);
    upstream.destroy();
    if (res.headersSent) res.destroy();
    else refuseBody(req, res, maxBody);
  };
  req.on('data', count);
  req.pipe(upstream);
}

/**
 * Answers 413 for a body over `bytes` and closes the connection, but not at once: Node ends a
 * connection's last answer with `destroySoon` (end, then destroy once written), and destroying it
 * while the body still arrives resets the connection, which can reach the client before it has read
 * the answer. So, as nginx's lingering close does, the rest is read and dropped until the client
 * stops sending, for LINGER_MS at most.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, bytes: number): void {
  const { code, message } = bodyTooLarge(bytes);
  const body = JSON.stringify({ code, message });
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
  res.writeHead(413, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
  req.resume();
}

/** Whether a request declares a body over what the gateway forwards (its `Content-Length`). */
export function declaresTooLarge(req: IncomingMessage, maxBody = API_BODY_BYTES): boolean {
  return Number(req.headers['content-length'] ?? 0) > maxBody;
}

/**
 * A request path as it may be logged: segments that are not plain words (ids, share and milestone
 * tokens, visitor ids, file names with digits) become `:id`, so no credential or identifier reaches
 * the log. `/api/v1/shared/ffsh_x1/session` is logged as `/api/v1/shared/:id/session`.
 */
export function pathPattern(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0]!;
  return path
    .split('/')
    .map((segment) =>
      segment === '' || /^(v\d|[a-z][a-z-]{0,23}(\.[a-z]{1,5})?)$/.test(segment) ? segment : ':id',
    )
    .join('/');
}
