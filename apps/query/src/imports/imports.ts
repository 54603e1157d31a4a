import { randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ControlDb, getSite, type ImportSource, removeUnfinishedImports } from '@footfall/control';
import { AppError, type Logger } from '@footfall/http';
import { ensurePrivateDir, type Instance } from '@footfall/instance';
import type { Engine } from '../engine/engine.ts';
import { todayIn } from '../engine/report-params.ts';
import type { GoogleApi } from '../search-console.ts';
import { ImportFileError } from './files.ts';
import { type ImportProgress, type ImportSummary, runImport } from './run.ts';

export interface ImportRequest {
  source: ImportSource;
  /** GA4: the property, the service account's key file (never stored) and the days */
  ga4?: { property: string; key: string; from: string; to: string } | undefined;
  siteId: string;
  /** Umami's website id (umami only) */
  website?: string | undefined;
  /** the export on this machine: a zip or a folder */
  path: string;
  name: string;
  personId: string | null;
  /** keep imported days through this date, over native ones too (default: only before them) */
  through?: string | undefined;
  progress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
}

/**
 * The query service's imports (docs/imports.md): one at a time, so two never count a day twice;
 * each through an upload (the dashboard, the API) or a path on this machine (`footfall import`
 * over the admin socket). At start, what a stop left half-imported is removed.
 */
export class Imports {
  #queue: Promise<unknown> = Promise.resolve();
  readonly #dir: string;

  constructor(
    private readonly o: {
      control: ControlDb;
      engine: Engine;
      instance: Instance;
      logger: Logger;
      /** the scratch database of an Umami import: FOOTFALL_ENGINE_MEMORY */
      memoryLimit: string;
      /** Google's endpoints (GA4) */
      google: GoogleApi;
    },
  ) {
    this.#dir = o.instance.paths.imports;
  }

  /** Removes imports and uploads a stop interrupted. */
  cleanUp(): void {
    const removed = removeUnfinishedImports(this.o.control);
    if (removed > 0) this.o.logger.warn({ imports: removed }, 'removed imports a stop interrupted');
    ensurePrivateDir(this.#dir);
    for (const name of readdirSync(this.#dir))
      rmSync(join(this.#dir, name), { recursive: true, force: true });
  }

  /** Runs an import after any running one; ImportFileError becomes a 422 naming the file and line. */
  run(r: ImportRequest): Promise<ImportSummary> {
    const site = getSite(this.o.control, r.siteId);
    if (site === undefined) return Promise.reject(new AppError('not_found', `no site ${r.siteId}`));
    const next = this.#queue.then(async () => {
      const { firstVisit } = await this.o.engine.status({ site: site.id });
      const started = Date.now();
      try {
        const summary = await runImport(r, {
          control: this.o.control,
          site,
          firstNativeDay: firstVisit === null ? null : todayIn(site.timezone, firstVisit),
          paths: this.o.instance.paths,
          memoryLimit: this.o.memoryLimit,
          google: this.o.google,
          now: Date.now(),
        });
        this.o.logger.info(
          {
            site: site.id,
            import: summary.import.id,
            rows: summary.rowsRead,
            days: summary.days,
            ms: Date.now() - started,
          },
          'imported',
        );
        return summary;
      } catch (error) {
        if (error instanceof ImportFileError) {
          throw new AppError('invalid_import', error.message, { field: error.file });
        }
        throw error;
      }
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Imports an uploaded file: written to data/imports first (zip reading needs a file), removed after. */
  async upload(body: ReadableStream<Uint8Array>, r: Omit<ImportRequest, 'path'>): Promise<ImportSummary> {
    ensurePrivateDir(this.#dir);
    const path = join(this.#dir, `upload-${randomBytes(8).toString('hex')}.zip`);
    try {
      await pipeline(
        Readable.fromWeb(body as import('node:stream/web').ReadableStream),
        createWriteStream(path, { mode: 0o600 }),
      );
      return await this.run({ ...r, path });
    } finally {
      rmSync(path, { force: true });
    }
  }
}
