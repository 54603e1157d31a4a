import { AppError, parseInput } from '@footfall/http';
import type { Context } from 'hono';
import type * as v from 'valibot';

/**
 * Reads a JSON body and validates it. Anything but `application/json` is a 415: browsers cannot
 * send that cross-site without a CORS preflight, which this service never grants. The body's size
 * was already bounded by the app's body limit (app.ts), before any of it was read.
 */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  requireJsonType(c, 'send JSON with Content-Type: application/json');
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new AppError('invalid_body', 'the body is not valid JSON');
  }
  return parseInput(schema, body);
}

/** 415 unless the request says its body is JSON. */
export function requireJsonType(c: Context, message: string): void {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
    throw new AppError('unsupported_media_type', message);
  }
}
