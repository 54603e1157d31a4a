import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from './errors.ts';

/**
 * The largest request body the query service takes (JSON settings, sign-in, MCP messages), and the
 * largest the gateway forwards to it. docs/operations.md, "Request bodies".
 */
export const API_BODY_BYTES = 64 * 1024;

/** The largest file an owner uploads to import (a Plausible export's zip): docs/imports.md. */
export const IMPORT_BODY_BYTES = 1024 * 1024 * 1024;
const IMPORT_UPLOAD = /^\/api\/v1\/sites\/[^/]+\/imports$/;

/** The largest body a request to `path` may carry: an import's upload, or API_BODY_BYTES. */
export const bodyLimitFor = (path: string): number =>
  IMPORT_UPLOAD.test(path) ? IMPORT_BODY_BYTES : API_BODY_BYTES;

/** The 413 every Footfall service answers for a body over `bytes`. */
export const bodyTooLarge = (bytes: number) =>
  new AppError('payload_too_large', `the body must be at most ${bytes} bytes`);

/**
 * Refuses a body over `bytes` before it is read: at once by its `Content-Length`, and while a
 * chunked body is read, as soon as it passes the limit, so no request holds more than `bytes`.
 */
export function limitBody(bytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: bytes,
    onError: () => {
      throw bodyTooLarge(bytes);
    },
  });
}
