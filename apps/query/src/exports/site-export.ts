import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { Config } from '@footfall/config';
import { type ControlDb, getSite, type Site } from '@footfall/control';
import { AppError } from '@footfall/http';
import { footfallVersion, type Instance } from '@footfall/instance';
import * as v from 'valibot';
import { dayNumber } from '../engine/buckets.ts';
import { midnight } from '../engine/clickhouse/time-plan.ts';
import type { Engine } from '../engine/engine.ts';
import { EXPORT_COLUMNS, type ExportCounts, type ExportFormat } from '../engine/site-export.ts';
import { openEngineOffline } from '../imports/offline.ts';

/**
 * `footfall export` (docs/export.md): a folder holding a site's events, visits and robot counters
 * as Parquet or newline-delimited JSON, and `manifest.json` saying what it holds. It is written
 * beside its final name and renamed into place once whole, so a folder of that name is always a
 * complete export. `footfall import footfall` reads it back.
 */

/** The manifest's format version: `footfall import footfall` refuses a newer one. */
export const EXPORT_VERSION = 1;
export const MANIFEST = 'manifest.json';

export interface ExportRequest {
  site: Site;
  /** local days of the site, inclusive; undefined: from the first, to the last */
  from?: string | undefined;
  to?: string | undefined;
  format: ExportFormat;
  /** the folder to write (absolute; must not exist) */
  out: string;
}

export interface Manifest {
  format: 'footfall-export';
  version: number;
  footfall: string;
  exported_at: string;
  site: { id: string; domain: string; time_zone: string };
  from: string | null;
  to: string | null;
  file_format: ExportFormat;
  files: Record<keyof ExportCounts, { name: string; rows: number; columns: readonly string[] }>;
}

const extension = (format: ExportFormat) => (format === 'parquet' ? 'parquet' : 'ndjson');

/** Writes the export; answers its manifest. Nothing is left at `out` when it fails. */
export async function writeExport(engine: Engine, r: ExportRequest, now = Date.now()): Promise<Manifest> {
  if (r.from !== undefined && r.to !== undefined && r.from > r.to) {
    throw new AppError('invalid_parameter', `from (${r.from}) is after to (${r.to})`);
  }
  if (existsSync(r.out)) throw new AppError('conflict', `${r.out} exists already: name a new folder`);
  const parent = dirname(r.out);
  if (!existsSync(parent) || !statSync(parent).isDirectory()) {
    throw new AppError('invalid_body', `${parent}: no such folder to write the export in`);
  }
  const staging = join(parent, `.${basename(r.out)}.partial-${now.toString(36)}`);
  await mkdir(staging, { mode: 0o700 });
  try {
    const ext = extension(r.format);
    const names = { events: `events.${ext}`, visits: `visits.${ext}`, robots: `robots.${ext}` };
    const zone = r.site.timezone;
    const counts = await engine.exportSite({
      site: r.site.id,
      fromMs: r.from === undefined ? null : midnight(zone, dayNumber(r.from)),
      toMs: r.to === undefined ? null : midnight(zone, dayNumber(r.to) + 1),
      fromDay: r.from ?? null,
      toDay: r.to ?? null,
      format: r.format,
      files: {
        events: join(staging, names.events),
        visits: join(staging, names.visits),
        robots: join(staging, names.robots),
      },
    });
    const file = (table: keyof ExportCounts) => ({
      name: names[table],
      rows: counts[table],
      columns: EXPORT_COLUMNS[table],
    });
    const manifest: Manifest = {
      format: 'footfall-export',
      version: EXPORT_VERSION,
      footfall: footfallVersion(),
      exported_at: new Date(now).toISOString(),
      site: { id: r.site.id, domain: r.site.domain, time_zone: zone },
      from: r.from ?? null,
      to: r.to ?? null,
      file_format: r.format,
      files: { events: file('events'), visits: file('visits'), robots: file('robots') },
    };
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await rename(staging, r.out);
    return manifest;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

const day = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'));
const ExportBody = v.strictObject({
  site: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  from: v.optional(day),
  to: v.optional(day),
  format: v.picklist(['parquet', 'ndjson']),
  out: v.pipe(v.string(), v.check(isAbsolute, 'must be an absolute path')),
});
export type ExportBody = v.InferOutput<typeof ExportBody>;

/** Checks a request and finds its site: the admin socket's and the stopped command's way in. */
export function exportRequest(control: ControlDb, body: unknown): ExportRequest {
  const parsed = v.safeParse(ExportBody, body);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = issue.path?.map((p) => String(p.key)).join('.') ?? 'body';
    throw new AppError('invalid_body', `${at}: ${issue.message}`);
  }
  const { site: siteId, ...rest } = parsed.output;
  const site = getSite(control, siteId);
  if (site === undefined) throw new AppError('not_found', `no site ${siteId}`);
  return { site, ...rest };
}

/**
 * `POST /export` on the admin socket, for `footfall export` while Footfall runs: a JSON body names
 * the site, the days, the format and the folder to write on this machine; the answer is the
 * manifest (200) or `{ code, message }`.
 */
export function exportAdminRoute(control: ControlDb, engine: Engine) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      (async () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          throw new AppError('invalid_body', 'the body must be JSON');
        }
        return writeExport(engine, exportRequest(control, body));
      })().then(
        (manifest) => answer(200, manifest),
        (error: unknown) =>
          error instanceof AppError
            ? answer(error.status, { code: error.code, message: error.message })
            : answer(500, { code: 'internal', message: (error as Error).message }),
      );
    });
  };
}

/** `footfall export` while Footfall is stopped: the command opens the engine itself. */
export async function exportOffline(o: {
  config: Config;
  instance: Instance;
  control: ControlDb;
  body: unknown;
}): Promise<Manifest> {
  const request = exportRequest(o.control, o.body);
  const engine = await openEngineOffline(o.config, o.instance, 'export');
  try {
    return await writeExport(engine, request);
  } finally {
    await engine.close();
  }
}
