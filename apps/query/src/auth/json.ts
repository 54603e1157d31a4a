import { AppError, parseInput } from '@footfall/http';
import type { Context } from 'hono';
import type * as v from 'valibot';

const MAX_BODY = 64 * 1024;

/**
 * Reads a JSON body and validates it. Anything but `application/json` is a 415: browsers cannot
 * send that cross-site without a CORS preflight, which this service never grants.
 */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new AppError('unsupported_media_type', 'send JSON with Content-Type: application/json');
  }
  const text = await c.req.text();
  if (text.length > MAX_BODY) throw new AppError('payload_too_large', 'the body is too large');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('invalid_body', 'the body is not valid JSON');
  }
  return parseInput(schema, body);
}
