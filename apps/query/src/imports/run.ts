import { setImmediate as yieldToLoop } from 'node:timers/promises';
import {
  addImported,
  beginImport,
  type ControlDb,
  checkServiceAccountKey,
  finishImport,
  type Import,
  type ImportedDay,
  type ImportedRow,
  type ImportSource,
  removeImport,
  type Site,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import type { GoogleApi } from '../search-console.ts';
import { exportFiles, ImportFileError, keepsDay } from './files.ts';
import { importFootfall } from './footfall.ts';
import { importGa4 } from './ga4.ts';
import { plausibleTable, readPlausibleFile } from './plausible.ts';
import { importUmami } from './umami.ts';

/** How an import went: what was read, what was kept and what was skipped, by reason. */
export interface ImportSummary {
  import: Import;
  /** events written for the query service to load (Umami's); 0 for daily aggregates */
  events: number;
  files: { name: string; rows: number }[];
  /** files of the export that are none of its tables, left unread */
  ignored: string[];
  rowsRead: number;
  days: number;
  skipped: Record<string, number>;
}

/** Progress while an import runs: rows read so far, and the file being read. */
export interface ImportProgress {
  file: string;
  rowsRead: number;
}

export interface ImportOptions {
  control: ControlDb;
  siteId: string;
  /** a Plausible export: its zip, or the folder it was unpacked into */
  path: string;
  /** what the list shows it as (the file name) */
  name: string;
  personId: string | null;
  /**
   * Days kept: before the site's first day of native data (null: it has none), so the two never
   * add up, unless `through` is given: then every day up to and including it.
   */
  firstNativeDay: string | null;
  through?: string;
  progress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
}

/** Rows written per transaction: small enough that the gateway's reads of app.db never wait long. */
const CHUNK = 5000;

const SKIP_NATIVE = 'the site has its own data from that day';
const SKIP_IMPORTED = 'that day is already imported';

/**
 * Imports a Plausible CSV export into the site: every file streamed, each record checked and
 * mapped, written in chunks under an import that reports read only once it is done. Any error
 * (a wrong header, a bad date, a truncated zip, a stop) removes what was written and is thrown,
 * naming the file and line.
 */
export async function importPlausible(o: ImportOptions): Promise<ImportSummary> {
  const source = await exportFiles(o.path, o.name);
  const known = source.files.filter((f) => plausibleTable(f.name) !== null);
  const ignored = source.files.filter((f) => plausibleTable(f.name) === null).map((f) => f.name);
  if (!known.some((f) => plausibleTable(f.name) === 'visitors')) {
    source.close();
    throw new ImportFileError(
      o.name,
      null,
      known.length === 0
        ? 'no file of a Plausible export in it (imported_visitors.csv, imported_pages.csv, …)'
        : 'it has no imported_visitors file, which holds the daily totals',
    );
  }
  const held = heldDays(o.control, o.siteId);
  const keep = keepsDay(o);
  const id = beginImport(o.control, {
    siteId: o.siteId,
    source: 'plausible',
    name: o.name,
    personId: o.personId,
  });
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  const files: ImportSummary['files'] = [];
  let rowsRead = 0;
  let days: ImportedDay[] = [];
  let rows: ImportedRow[] = [];
  const flush = () => {
    addImported(o.control, id, days, rows);
    days = [];
    rows = [];
  };
  try {
    for (const file of known) {
      let fileRows = 0;
      const table = plausibleTable(file.name);
      if (table === null) continue;
      for await (const mapped of readPlausibleFile(file, table)) {
        rowsRead++;
        fileRows++;
        if ('skip' in mapped) skip(mapped.skip);
        else if (!keep(mapped.day)) skip(SKIP_NATIVE);
        else if (held.has(mapped.day)) skip(SKIP_IMPORTED);
        else if ('rows' in mapped) rows.push(...mapped.rows);
        else days.push(mapped.totals);
        if (days.length + rows.length >= CHUNK) {
          o.signal?.throwIfAborted();
          flush();
          o.progress?.({ file: file.name, rowsRead });
          await yieldToLoop();
        }
      }
      files.push({ name: file.name, rows: fileRows });
    }
    flush();
    o.signal?.throwIfAborted();
    const done = finishImport(o.control, id, { rowsRead, skipped });
    const kept = o.control.raw
      .prepare('SELECT COUNT(*) FROM imported_days WHERE import_id = ?')
      .pluck()
      .get(id);
    return { import: done, events: 0, files, ignored, rowsRead, days: Number(kept), skipped };
  } catch (error) {
    removeImport(o.control, id);
    throw error;
  } finally {
    source.close();
  }
}

/** The days the site's finished imports already hold: an import never counts a day twice. */
export function heldDays(control: ControlDb, siteId: string): Set<string> {
  const days = control.raw
    .prepare(
      `SELECT DISTINCT d.day FROM imported_days d JOIN imports i ON i.id = d.import_id
       WHERE i.site_id = ? AND i.state = 'done'`,
    )
    .pluck()
    .all(siteId) as string[];
  return new Set(days);
}

/**
 * Runs one import of any kind for a site whose first native day is known: Plausible's and GA4's
 * daily aggregates into app.db, or Umami's and Footfall's events into a WAL stream the query
 * service loads.
 */
export async function runImport(
  r: {
    source: ImportSource;
    /** GA4: the property, the service account's key file (never stored) and the days */
    ga4?: { property: string; key: string; from: string; to: string } | undefined;
    path: string;
    name: string;
    personId: string | null;
    website?: string | undefined;
    through?: string | undefined;
    progress?: ((p: ImportProgress) => void) | undefined;
    signal?: AbortSignal | undefined;
  },
  o: {
    control: ControlDb;
    site: Site;
    firstNativeDay: string | null;
    paths: { imports: string; wal: string };
    memoryLimit: string;
    google: GoogleApi;
    now: number;
  },
): Promise<ImportSummary> {
  if (r.source === 'ga4') {
    if (!r.ga4)
      throw new AppError('invalid_body', 'a GA4 import needs property, service_account_key, from and to');
    return importGa4({
      control: o.control,
      siteId: o.site.id,
      api: o.google,
      key: checkServiceAccountKey(r.ga4.key),
      property: r.ga4.property,
      from: r.ga4.from,
      to: r.ga4.to,
      personId: r.personId,
      firstNativeDay: o.firstNativeDay,
      through: r.through,
      held: heldDays(o.control, o.site.id),
      now: o.now,
      progress: r.progress,
      signal: r.signal,
    });
  }
  if (r.source === 'plausible') {
    return importPlausible({
      control: o.control,
      siteId: o.site.id,
      path: r.path,
      name: r.name,
      personId: r.personId,
      firstNativeDay: o.firstNativeDay,
      through: r.through,
      progress: r.progress,
      signal: r.signal,
    });
  }
  if (r.source === 'footfall') {
    const f = await importFootfall({
      control: o.control,
      site: o.site,
      path: r.path,
      name: r.name,
      personId: r.personId,
      firstNativeDay: o.firstNativeDay,
      through: r.through,
      scratchRoot: o.paths.imports,
      walRoot: o.paths.wal,
      memoryLimit: o.memoryLimit,
      progress: r.progress,
      signal: r.signal,
    });
    return { ...f, ignored: [], days: 0 };
  }
  const u = await importUmami({
    control: o.control,
    site: o.site,
    path: r.path,
    name: r.name,
    website: r.website,
    personId: r.personId,
    firstNativeDay: o.firstNativeDay,
    through: r.through,
    scratchRoot: o.paths.imports,
    walRoot: o.paths.wal,
    memoryLimit: o.memoryLimit,
    progress: r.progress,
    signal: r.signal,
  });
  return {
    import: u.import,
    events: u.events,
    files: [],
    ignored: [],
    rowsRead: u.rowsRead,
    days: 0,
    skipped: u.skipped,
  };
}
