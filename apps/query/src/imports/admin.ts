import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute } from 'node:path';
import { AppError } from '@footfall/http';
import * as v from 'valibot';
import { summaryJson } from '../routes/imports.ts';
import type { Imports } from './imports.ts';

const Request = v.strictObject({
  source: v.picklist(['plausible', 'umami', 'ga4', 'footfall']),
  ga4: v.optional(
    v.strictObject({
      property: v.pipe(v.string(), v.maxLength(40)),
      key: v.pipe(v.string(), v.maxLength(20_000)),
      from: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')),
      to: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')),
    }),
  ),
  website: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  site: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  /** the export (a GA4 import has none) */
  path: v.optional(v.pipe(v.string(), v.check(isAbsolute, 'must be an absolute path'))),
  name: v.optional(v.pipe(v.string(), v.maxLength(200))),
  through: v.optional(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'))),
});

/**
 * `POST /import` on the admin socket, for `footfall import` while Footfall runs: a JSON body names
 * the site and the export's path on this machine. The answer is newline-delimited JSON: a
 * `progress` line now and then, then `done` with the summary or `error` with what went wrong.
 */
export function importAdminRoute(imports: Imports) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const line = (body: unknown) => res.write(`${JSON.stringify(body)}\n`);
      let parsed: v.InferOutput<typeof Request>;
      try {
        parsed = v.parse(Request, JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'invalid_body', message: (error as Error).message }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const abort = new AbortController();
      res.on('close', () => abort.abort(new Error('footfall import stopped')));
      imports
        .run({
          source: parsed.source,
          website: parsed.website,
          ga4: parsed.ga4,
          siteId: parsed.site,
          path: parsed.path ?? '',
          name: parsed.name ?? parsed.path ?? parsed.source,
          personId: null,
          through: parsed.through,
          signal: abort.signal,
          progress: (p) => line({ progress: { file: p.file, rows_read: p.rowsRead } }),
        })
        .then(
          (summary) => line({ done: summaryJson(summary) }),
          (error: unknown) =>
            line({
              error:
                error instanceof AppError
                  ? { code: error.code, message: error.message }
                  : { code: 'internal', message: (error as Error).message },
            }),
        )
        .finally(() => res.end());
    });
  };
}
