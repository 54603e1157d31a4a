import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  beginImport,
  type ControlDb,
  finishImport,
  type Import,
  listImports,
  removeImport,
} from '@footfall/control';
import {
  encodeWalRecord,
  type WalCrawl,
  WalCrawlSchema,
  type WalEvent,
  WalEventSchema,
} from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import * as v from 'valibot';
import { EXPORT_COLUMNS } from '../engine/site-export.ts';
import { EXPORT_VERSION, MANIFEST } from '../exports/site-export.ts';
import { dayFormat, ImportFileError, keepsDay, scratchDir } from './files.ts';
import type { ImportProgress } from './run.ts';

/**
 * `footfall import footfall` (docs/export.md): a folder `footfall export` wrote, read into a site
 * of this installation. Its events become the site's own, each at its own time with its own id and
 * visitor, and this service builds their visits by its rules, as it built them where they came
 * from: the same events give the same visits and the same reports. The visits file is not read.
 * Robot counters become robot requests. Like an Umami import, everything is written as a WAL
 * stream of its own under data/imports and moved into data/wal in one rename once whole.
 */
export interface FootfallImportSummary {
  import: Import;
  events: number;
  files: { name: string; rows: number }[];
  rowsRead: number;
  skipped: Record<string, number>;
}

type Row = Record<string, unknown>;

const REQUIRED = ['id', 'ts', 'kind', 'host', 'path', 'visitor', 'id_mode', 'channel', 'device'];
const NUMBERS = new Set(['screen_w', 'screen_h', 'engaged_ms', 'scroll', 'lcp', 'fcp', 'inp', 'ttfb', 'cls']);
const SKIP_NATIVE = 'the site has its own data from that day';
/** WAL records appended at once */
const CHUNK = 5000;

/** The export's files: from its folder's manifest, or an events file given by itself. */
function exportFilesOf(path: string, name: string): { events: string; robots: string | null; label: string } {
  if (!existsSync(path)) throw new ImportFileError(name, null, 'no such file or folder');
  if (!statSync(path).isDirectory()) {
    if (!/\.(parquet|ndjson|jsonl)$/.test(path)) {
      throw new ImportFileError(
        name,
        null,
        'a Footfall export is its folder, or its events .parquet or .ndjson file',
      );
    }
    return { events: path, robots: null, label: basename(path) };
  }
  const manifestPath = join(path, MANIFEST);
  if (!existsSync(manifestPath)) {
    throw new ImportFileError(name, null, `no ${MANIFEST}: not a folder footfall export wrote`);
  }
  let manifest: {
    format?: unknown;
    version?: unknown;
    exported_at?: unknown;
    files?: { events?: { name?: unknown }; robots?: { name?: unknown } };
  };
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new ImportFileError(MANIFEST, null, `not JSON (${(error as Error).message})`);
  }
  if (manifest.format !== 'footfall-export' || typeof manifest.version !== 'number') {
    throw new ImportFileError(MANIFEST, null, 'not the manifest of a Footfall export');
  }
  if (manifest.version > EXPORT_VERSION) {
    throw new ImportFileError(
      MANIFEST,
      null,
      `written by a newer Footfall (export version ${manifest.version}; this one reads up to ${EXPORT_VERSION}): upgrade this installation first`,
    );
  }
  const file = (f: { name?: unknown } | undefined) =>
    typeof f?.name === 'string' && basename(f.name) === f.name ? join(path, f.name) : null;
  const events = file(manifest.files?.events);
  if (events === null || !existsSync(events)) {
    throw new ImportFileError(MANIFEST, null, 'it names no events file that is in the folder');
  }
  const robots = file(manifest.files?.robots);
  return {
    events,
    robots: robots !== null && existsSync(robots) ? robots : null,
    label: `${basename(path)} (exported ${String(manifest.exported_at)})`,
  };
}

/** Each row of a file, numbered from 1: newline-delimited JSON read line by line, Parquet by DuckDB. */
async function* rowsOf(
  file: string,
  columns: readonly string[],
  required: readonly string[],
  times: { column: string; as: 'instant' | 'day' },
  memoryLimit: string,
): AsyncGenerator<{ row: Row; n: number }> {
  const name = basename(file);
  if (!file.endsWith('.parquet')) {
    let n = 0;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        throw new ImportFileError(name, n, 'not a JSON object');
      }
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        throw new ImportFileError(name, n, 'not a JSON object');
      }
      const missing = required.filter((c) => !(c in row));
      if (missing.length > 0) throw new ImportFileError(name, n, `no ${missing.join(', ')}`);
      yield { row: row as Row, n };
    }
    return;
  }
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    memory_limit: memoryLimit,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const db = await instance.connect();
  try {
    await db.run("SET TimeZone = 'UTC'");
    let present: Set<string>;
    try {
      const described = await db.runAndReadAll('DESCRIBE SELECT * FROM read_parquet($1)', [file]);
      present = new Set(described.getRowObjectsJS().map((r) => String(r['column_name'])));
    } catch (error) {
      throw new ImportFileError(
        name,
        null,
        `not a Parquet file (${(error as Error).message.split('\n')[0]})`,
      );
    }
    const missing = required.filter((c) => !present.has(c));
    if (missing.length > 0) throw new ImportFileError(name, null, `it has no ${missing.join(', ')} column`);
    const select = columns.map((c) => {
      if (!present.has(c)) return `NULL AS "${c}"`;
      if (c === times.column) {
        return times.as === 'instant'
          ? `epoch_ms(CAST("${c}" AS TIMESTAMPTZ))::DOUBLE AS "${c}"`
          : `strftime(CAST("${c}" AS DATE), '%Y-%m-%d') AS "${c}"`;
      }
      return NUMBERS.has(c) || c === 'hits' || c === 'status_class'
        ? `TRY_CAST("${c}" AS DOUBLE) AS "${c}"`
        : `CAST("${c}" AS VARCHAR) AS "${c}"`;
    });
    let result: Awaited<ReturnType<typeof db.stream>>;
    try {
      result = await db.stream(`SELECT ${select.join(', ')} FROM read_parquet($1)`, [file]);
    } catch (error) {
      throw new ImportFileError(name, null, (error as Error).message.split('\n')[0] ?? 'cannot be read');
    }
    const names = result.deduplicatedColumnNames();
    let n = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getRowObjects(names) as Row[]) yield { row, n: ++n };
    }
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : String(value);
const number = (value: unknown): number | null =>
  value === null || value === undefined || value === '' ? null : Number(value);

/** One exported event row as a WAL event of the site, or why it cannot be one. */
function toEvent(row: Row, site: string): WalEvent | string {
  const ts = row['ts'];
  const at = typeof ts === 'number' ? ts : typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
  if (!Number.isFinite(at)) return `ts "${String(ts)}" is not a time`;
  let props: unknown = row['props'] ?? null;
  if (typeof props === 'string') {
    try {
      props = JSON.parse(props);
    } catch {
      return 'props is not a JSON object';
    }
  }
  const id = text(row['id']) ?? '';
  const event = {
    t: 'event',
    id,
    site,
    at,
    kind: row['kind'],
    name: text(row['name']),
    props,
    host: row['host'],
    path: row['path'],
    // an event of no visit (an engagement report after its visit was gone) has no visitor id
    visitor: text(row['visitor']) ?? `no-visit-${id}`.slice(0, 64),
    idMode: row['id_mode'],
    carry: null,
    referrerHost: text(row['referrer_host']),
    referrerPath: text(row['referrer_path']),
    channel: row['channel'],
    assistant: text(row['assistant']),
    utmSource: text(row['utm_source']),
    utmMedium: text(row['utm_medium']),
    utmCampaign: text(row['utm_campaign']),
    utmTerm: text(row['utm_term']),
    utmContent: text(row['utm_content']),
    clickId: text(row['click_id']),
    browser: text(row['browser']),
    browserVersion: text(row['browser_version']),
    os: text(row['os']),
    osVersion: text(row['os_version']),
    device: row['device'],
    language: text(row['language']),
    country: text(row['country']),
    region: text(row['region']),
    city: text(row['city']),
    screenW: number(row['screen_w']),
    screenH: number(row['screen_h']),
    engagedMs: number(row['engaged_ms']),
    // whole percent, as the tracker's `d` (the day rollups sum it as an integer)
    scroll: ((x) => (x === null ? null : Math.round(x)))(number(row['scroll'])),
    lcp: number(row['lcp']),
    fcp: number(row['fcp']),
    inp: number(row['inp']),
    ttfb: number(row['ttfb']),
    cls: number(row['cls']),
  };
  const checked = v.safeParse(WalEventSchema, event);
  return checked.success ? (checked.output as WalEvent) : issueText(checked.issues);
}

/** What is wrong with a row, as valibot found it: the field and why. */
const issueText = (issues: readonly v.BaseIssue<unknown>[]) =>
  `${issues[0]?.path?.map((p) => String(p.key)).join('.') ?? 'the row'}: ${issues[0]?.message}`;

/** One robot counter row as the robot requests it counted, or why it cannot be. */
function toCrawls(row: Row, site: string): { crawl: WalCrawl; hits: number } | string {
  const hits = number(row['hits']);
  if (hits === null || !Number.isSafeInteger(hits) || hits < 0)
    return `hits "${String(row['hits'])}" is not a count`;
  const cls = number(row['status_class']) ?? 0;
  const crawl = {
    t: 'crawl',
    site,
    day: text(row['day']),
    robot: row['robot'],
    robotKind: row['robot_kind'],
    path: row['path'],
    // a class stands for its requests' statuses (1..5 for 1xx..5xx; 0 when not known)
    status: cls >= 1 && cls <= 5 ? cls * 100 : null,
  };
  const checked = v.safeParse(WalCrawlSchema, crawl);
  return checked.success ? { crawl: checked.output as WalCrawl, hits } : issueText(checked.issues);
}

/**
 * Imports a Footfall export into the site. Every row is checked as it is read; a row that cannot
 * be an event stops the import naming its file and row, and nothing of it stays (the stream is
 * handed over only once whole). The same export imported twice into one site is refused: events
 * would be stored once (their ids), but robot counters have no ids and would count twice.
 */
export async function importFootfall(o: {
  control: ControlDb;
  site: { id: string; timezone: string };
  path: string;
  name: string;
  personId: string | null;
  firstNativeDay: string | null;
  through?: string | undefined;
  scratchRoot: string;
  walRoot: string;
  memoryLimit: string;
  progress?: ((p: ImportProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}): Promise<FootfallImportSummary> {
  const files = exportFilesOf(o.path, o.name);
  const twice = listImports(o.control, o.site.id).find(
    (i) => i.source === 'footfall' && i.name === files.label,
  );
  if (twice !== undefined) {
    throw new ImportFileError(
      o.name,
      null,
      `this export was imported into the site already (import ${twice.id})`,
    );
  }
  const scratch = await scratchDir(o.scratchRoot, 'footfall');
  let id: string | undefined;
  try {
    id = beginImport(o.control, {
      siteId: o.site.id,
      source: 'footfall',
      name: files.label,
      personId: o.personId,
    });
    const stream = `import-${id.replace(/[^a-z0-9]/gi, '')}`;
    const staged = join(scratch, stream);
    const localDay = dayFormat(o.site.timezone);
    const keep = keepsDay(o);
    const skipped: Record<string, number> = {};
    const summary = {
      rowsRead: 0,
      events: 0,
      written: 0,
      first: null as string | null,
      last: null as string | null,
    };
    const counted: { name: string; rows: number }[] = [];
    const wal = await openWalWriter({ dir: staged });
    try {
      const pending: Uint8Array[] = [];
      const flush = async (file: string, force = false) => {
        if (pending.length === 0 || (!force && pending.length < CHUNK)) return;
        const batch = pending.splice(0);
        await wal.appendMany(batch);
        summary.written += batch.length;
        o.signal?.throwIfAborted();
        o.progress?.({ file, rowsRead: summary.rowsRead });
      };
      const seen = (day: string) => {
        summary.first = summary.first === null || day < summary.first ? day : summary.first;
        summary.last = summary.last === null || day > summary.last ? day : summary.last;
      };
      const eventsName = basename(files.events);
      let rows = 0;
      const eventColumns = EXPORT_COLUMNS.events.filter((c) => c !== 'visit_id');
      for await (const { row, n } of rowsOf(
        files.events,
        eventColumns,
        REQUIRED,
        { column: 'ts', as: 'instant' },
        o.memoryLimit,
      )) {
        rows++;
        summary.rowsRead++;
        const event = toEvent(row, o.site.id);
        if (typeof event === 'string') throw new ImportFileError(eventsName, n, event);
        const day = localDay(event.at);
        if (!keep(day)) {
          skipped[SKIP_NATIVE] = (skipped[SKIP_NATIVE] ?? 0) + 1;
          continue;
        }
        pending.push(encodeWalRecord(event));
        summary.events++;
        seen(day);
        await flush(eventsName);
      }
      await flush(eventsName, true);
      counted.push({ name: eventsName, rows });
      if (files.robots !== null) {
        const robotsName = basename(files.robots);
        rows = 0;
        for await (const { row, n } of rowsOf(
          files.robots,
          EXPORT_COLUMNS.robots,
          EXPORT_COLUMNS.robots,
          { column: 'day', as: 'day' },
          o.memoryLimit,
        )) {
          rows++;
          summary.rowsRead++;
          const counter = toCrawls(row, o.site.id);
          if (typeof counter === 'string') throw new ImportFileError(robotsName, n, counter);
          if (!keep(counter.crawl.day)) {
            skipped[SKIP_NATIVE] = (skipped[SKIP_NATIVE] ?? 0) + 1;
            continue;
          }
          seen(counter.crawl.day);
          const record = encodeWalRecord(counter.crawl);
          for (let i = 0; i < counter.hits; i++) {
            pending.push(record);
            await flush(robotsName);
          }
        }
        await flush(robotsName, true);
        counted.push({ name: robotsName, rows });
      }
    } finally {
      await wal.close();
    }
    // whole: the tailer sees the stream from now on, all of it at once
    if (summary.written > 0) await rename(staged, join(o.walRoot, stream));
    const done = finishImport(o.control, id, {
      rowsRead: summary.rowsRead,
      skipped,
      range: { first: summary.first, last: summary.last },
    });
    return { import: done, events: summary.events, files: counted, rowsRead: summary.rowsRead, skipped };
  } catch (error) {
    if (id !== undefined) removeImport(o.control, id);
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
