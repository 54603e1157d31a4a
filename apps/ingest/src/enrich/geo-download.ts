import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { createGunzip } from 'node:zlib';

/** Which DB-IP Lite database: country (about 4 MB) or city (about 130 MB). */
export type GeoDbKind = 'country' | 'city';

/** The part of a `fetch` Response used here, so tests can inject their own. */
export interface FetchResponseLike {
  ok: boolean;
  status: number;
  body: ReadableStream<Uint8Array> | globalThis.ReadableStream<Uint8Array> | null;
}
export type FetchLike = (url: string, init: { signal: AbortSignal }) => Promise<FetchResponseLike>;

export type GeoDownloadOutcome =
  | { ok: true; status: 'downloaded' | 'current'; month: string; file: string; at: number }
  /** `file` is the database still in place from before (usable), or null when there is none */
  | { ok: false; reason: string; file: string | null; at: number };

export interface UpdateGeoOptions {
  dir: string;
  kind: GeoDbKind;
  fetch?: FetchLike;
  now?: () => Date;
  /** whole download time limit; default 10 minutes (the city file is large) */
  timeoutMs?: number;
  /** default https://download.db-ip.com/free */
  baseUrl?: string;
  /** default 0o600: files in the data directory are the service user's only */
  fileMode?: number;
  /** refuse a database that unpacks larger than this; default 1 GiB */
  maxBytes?: number;
}

const DEFAULT_BASE = 'https://download.db-ip.com/free';
const METADATA_MARKER = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com')]);
/** MaxMind DB metadata is within the last 128 KiB of the file (format spec). */
const METADATA_WINDOW = 128 * 1024;

/** The file name a database is kept under in its directory (also what geoDir mode reads). */
export function geoFileName(kind: GeoDbKind): string {
  return `dbip-${kind}-lite.mmdb`;
}

/** `YYYY-MM` of a date, in UTC (DB-IP publishes by UTC month). */
export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

function previousMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return monthOf(new Date(Date.UTC(y, m - 2, 1)));
}

/** The DB-IP Lite download address of one month's database. */
export function dbipUrl(kind: GeoDbKind, month: string, baseUrl = DEFAULT_BASE): string {
  return `${baseUrl}/dbip-${kind}-lite-${month}.mmdb.gz`;
}

/** The month of the database installed in `dir`, from its sidecar file, or null. */
export async function installedMonth(dir: string, kind: GeoDbKind): Promise<string | null> {
  try {
    const meta: unknown = JSON.parse(await readFile(join(dir, `${geoFileName(kind)}.json`), 'utf8'));
    await stat(join(dir, geoFileName(kind)));
    const month = (meta as { month?: unknown }).month;
    return typeof month === 'string' && /^\d{4}-\d{2}$/.test(month) ? month : null;
  } catch {
    return null;
  }
}

async function fsyncPath(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function tempName(dir: string, name: string): string {
  return join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Renames a fully written, fsynced temp file into place and fsyncs the directory. */
async function commit(tmp: string, dir: string, name: string): Promise<void> {
  await fsyncPath(tmp, 'r+');
  await rename(tmp, join(dir, name));
  await fsyncPath(dir, 'r');
}

async function hasMetadata(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, METADATA_WINDOW);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    return tail.includes(METADATA_MARKER);
  } finally {
    await handle.close();
  }
}

function sizeLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new Error(`database larger than ${maxBytes} bytes`) : null, chunk);
    },
  });
}

/** A short, address-free reason for Health. */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError')
      return `timed out after ${timeoutMs} ms`;
    const cause = (error as Error & { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? `: ${cause.code}` : '';
    return `${error.message}${code}`;
  }
  return String(error);
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

async function download(
  url: string,
  options: Required<Omit<UpdateGeoOptions, 'now' | 'baseUrl'>>,
): Promise<void> {
  const name = geoFileName(options.kind);
  const tmp = tempName(options.dir, name);
  try {
    const signal = AbortSignal.timeout(options.timeoutMs);
    const response = await options.fetch(url, { signal });
    if (!response.ok) throw new HttpStatusError(response.status);
    if (response.body === null) throw new Error('empty response');
    await pipeline(
      Readable.fromWeb(response.body as ReadableStream<Uint8Array>, { signal }),
      createGunzip(),
      sizeLimit(options.maxBytes),
      createWriteStream(tmp, { mode: options.fileMode }),
      { signal },
    );
    if (!(await hasMetadata(tmp))) throw new Error('not a MaxMind database');
    await commit(tmp, options.dir, name);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
}

async function writeSidecar(options: UpdateGeoOptions, month: string, at: number): Promise<void> {
  const name = `${geoFileName(options.kind)}.json`;
  const tmp = tempName(options.dir, name);
  const handle = await open(tmp, 'w', options.fileMode ?? 0o600);
  try {
    await handle.writeFile(JSON.stringify({ month, downloadedAt: new Date(at).toISOString() }));
  } finally {
    await handle.close();
  }
  await commit(tmp, options.dir, name);
}

/**
 * Makes sure `dir` holds this month's DB-IP Lite database, downloading it when it is missing
 * or from an earlier month. The file is streamed through gunzip into a temp file, fsynced,
 * checked to be a MaxMind database, renamed into place and the directory fsynced, so a reader
 * sees the old file or the new one, never half of one. Early in a month, before DB-IP has
 * published, the previous month's file is taken when it is newer than what is installed.
 *
 * Never throws: with no network, an HTTP error, a timeout, a broken file or a full disk it
 * returns `{ ok: false, reason, at }` (for Health) and leaves any installed database in place.
 *
 * @example
 * const outcome = await updateGeoDatabase({ dir: '/data/geo', kind: 'country' });
 */
export async function updateGeoDatabase(options: UpdateGeoOptions): Promise<GeoDownloadOutcome> {
  const now = options.now ?? (() => new Date());
  const file = join(options.dir, geoFileName(options.kind));
  const month = monthOf(now());
  const settings = {
    dir: options.dir,
    kind: options.kind,
    fetch: options.fetch ?? (fetch as FetchLike),
    timeoutMs: options.timeoutMs ?? 10 * 60 * 1000,
    fileMode: options.fileMode ?? 0o600,
    maxBytes: options.maxBytes ?? 1024 * 1024 * 1024,
  };
  let installed: string | null = null;
  try {
    installed = await installedMonth(options.dir, options.kind);
    if (installed === month) return { ok: true, status: 'current', month, file, at: now().getTime() };
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const candidates = [month, previousMonth(month)].filter((m) => installed === null || m > installed);
    let lastError: unknown = null;
    for (const candidate of candidates) {
      try {
        await download(dbipUrl(options.kind, candidate, options.baseUrl), settings);
        const at = now().getTime();
        await writeSidecar(options, candidate, at);
        return { ok: true, status: 'downloaded', month: candidate, file, at };
      } catch (error) {
        lastError = error;
        // Only "not published yet" moves on to the previous month.
        if (!(error instanceof HttpStatusError && error.status === 404)) break;
      }
    }
    // Early in a month DB-IP has not published yet: last month's file is as new as it gets.
    if (
      installed === previousMonth(month) &&
      lastError instanceof HttpStatusError &&
      lastError.status === 404
    ) {
      return { ok: true, status: 'current', month: installed, file, at: now().getTime() };
    }
    throw lastError ?? new Error('no newer database');
  } catch (error) {
    return {
      ok: false,
      reason: describe(error, settings.timeoutMs),
      file: installed === null ? null : file,
      at: now().getTime(),
    };
  }
}

/** What Health shows about geo downloads. */
export interface GeoUpdateStatus {
  lastSuccess: { at: number; month: string } | null;
  lastFailure: { at: number; reason: string } | null;
}

/**
 * Runs `updateGeoDatabase` for the gateway (not in geoDir mode, where someone else keeps the
 * directory fresh) and keeps its outcome for Health. One run at a time; after a failure, runs
 * within `retryAfterMs` (default 1 hour) return the failure again without touching the
 * network. The caller schedules `run()` (at start, then e.g. hourly); when the month turns,
 * the next run downloads the new file and the MmdbGeoLookup picks it up by itself.
 */
export class GeoUpdater {
  readonly #options: UpdateGeoOptions;
  readonly #retryAfterMs: number;
  #running: Promise<GeoDownloadOutcome> | null = null;
  #lastFailure: { outcome: GeoDownloadOutcome; at: number } | null = null;
  #status: GeoUpdateStatus = { lastSuccess: null, lastFailure: null };

  constructor(options: UpdateGeoOptions & { retryAfterMs?: number }) {
    this.#options = options;
    this.#retryAfterMs = options.retryAfterMs ?? 60 * 60 * 1000;
  }

  run(): Promise<GeoDownloadOutcome> {
    const now = (this.#options.now ?? (() => new Date()))().getTime();
    if (this.#lastFailure !== null && now - this.#lastFailure.at < this.#retryAfterMs) {
      return Promise.resolve(this.#lastFailure.outcome);
    }
    this.#running ??= updateGeoDatabase(this.#options)
      .then((outcome) => {
        if (outcome.ok) {
          this.#lastFailure = null;
          this.#status = { lastSuccess: { at: outcome.at, month: outcome.month }, lastFailure: null };
        } else {
          this.#lastFailure = { outcome, at: outcome.at };
          this.#status = { ...this.#status, lastFailure: { at: outcome.at, reason: outcome.reason } };
        }
        return outcome;
      })
      .finally(() => {
        this.#running = null;
      });
    return this.#running;
  }

  status(): GeoUpdateStatus {
    return { ...this.#status };
  }
}
