import { getImport, type Import, listImports, removeImport } from '@footfall/control';
import { AppError } from '@footfall/http';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import type { ImportSummary } from '../imports/run.ts';
import { sessionPrincipal } from './auth-helpers.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An import as the API answers it. */
export const importJson = (i: Import) => ({
  id: i.id,
  source: i.source,
  name: i.name,
  state: i.state,
  from: i.firstDay,
  to: i.lastDay,
  rows_read: i.rowsRead,
  rows_skipped: i.rowsSkipped,
  skipped: i.skipped,
  created_at: iso(i.createdAt),
  finished_at: iso(i.finishedAt),
});

export const summaryJson = (s: ImportSummary) => ({
  import: importJson(s.import),
  events: s.events,
  files: s.files,
  ignored_files: s.ignored,
  rows_read: s.rowsRead,
  days: s.days,
  skipped: s.skipped,
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (s: string) => DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);
const day = v.pipe(v.string(), v.check(isDate, 'must be a date YYYY-MM-DD'));
const Ga4Request = v.strictObject({
  property: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
  service_account_key: v.pipe(v.string(), v.minLength(1), v.maxLength(20_000)),
  from: day,
  to: day,
});

/**
 * A site's imports (docs/imports.md), owners only: the list, an upload of a Plausible export's zip
 * (the body, up to 1 GiB: answered once it is imported), and deleting one.
 */
export function importRoutes(deps: QueryDeps) {
  return new Hono<AuthEnv>()
    .get('/sites/:site/imports', (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      return c.json({ imports: listImports(deps.control, site.id).map(importJson) });
    })
    .post('/sites/:site/imports', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const imports = deps.imports;
      if (imports === undefined) throw new AppError('unavailable', 'imports are not available here');
      const query = c.req.query();
      for (const key of Object.keys(query)) {
        if (!['source', 'name', 'through', 'website'].includes(key)) {
          throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
        }
      }
      const source = query['source'];
      if (source !== 'plausible' && source !== 'umami' && source !== 'ga4') {
        throw new AppError('invalid_parameter', 'source must be plausible, umami or ga4', {
          field: 'source',
        });
      }
      const website = query['website'];
      if (website !== undefined && (source !== 'umami' || website.length === 0 || website.length > 100)) {
        throw new AppError('invalid_parameter', "website is Umami's website id, for source=umami", {
          field: 'website',
        });
      }
      const through = query['through'];
      if (through !== undefined && !isDate(through)) {
        throw new AppError('invalid_parameter', 'through must be a date YYYY-MM-DD', { field: 'through' });
      }
      const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      const common = {
        siteId: site.id,
        personId: sessionPrincipal(c).person.id,
        through,
        signal: c.req.raw.signal,
      };
      if (source === 'ga4') {
        // a property read with a service account's key: JSON, the key used for this import only
        const body = await readJson(c, Ga4Request);
        if (body.from > body.to)
          throw new AppError('invalid_body', 'from must not be after to', { field: 'from' });
        const summary = await imports.run({
          ...common,
          source,
          path: '',
          name: `GA4 property ${body.property}`,
          ga4: { property: body.property, key: body.service_account_key, from: body.from, to: body.to },
        });
        return c.json(summaryJson(summary), 201);
      }
      if (type !== 'application/zip' && type !== 'application/octet-stream') {
        throw new AppError('unsupported_media_type', 'the body must be the export as application/zip');
      }
      const name = (query['name'] ?? 'upload.zip').slice(0, 200);
      const body = c.req.raw.body;
      if (body === null) throw new AppError('invalid_body', 'the body must be the export (a zip file)');
      const summary = await imports.upload(body, { ...common, source, website, name });
      return c.json(summaryJson(summary), 201);
    })
    .delete('/sites/:site/imports/:id', (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const found = getImport(deps.control, c.req.param('id'));
      if (found === undefined || found.siteId !== site.id) throw new AppError('not_found', 'no such import');
      if (found.state === 'importing') throw new AppError('conflict', 'the import is still running');
      if (found.source === 'umami' || found.source === 'footfall') {
        throw new AppError(
          'conflict',
          `events imported from ${found.source === 'umami' ? 'Umami' : 'a Footfall export'} are the site's own events now: they are removed as other events are (retention, erasure)`,
        );
      }
      removeImport(deps.control, found.id);
      return c.body(null, 204);
    });
}
