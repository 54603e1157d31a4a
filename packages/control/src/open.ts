import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@footfall/http';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { writeBeforeUpgrade } from './before-upgrade.ts';
import { type Cipher, createCipher } from './crypto.ts';
import { ensureKeyCheck } from './key-check.ts';

import { CONTROL_MIGRATIONS, type ControlMigration } from './migrations.ts';
import type { ControlSchema } from './schema.ts';

/** An open control database. Both processes hold one. */
export interface ControlDb {
  /** typed queries */
  db: Kysely<ControlSchema>;
  /** the better-sqlite3 handle, for fast synchronous reads (the gateway's site lookups) */
  raw: Database.Database;
  /** seals values with the instance key */
  cipher: Cipher;
  /** the clock every time rule reads (unix ms); injectable for tests */
  now: () => number;
  path: string;
  close(): Promise<void>;
}

export interface OpenControlDbOptions {
  /** data/app.db */
  path: string;
  /** the instance key */
  secret: string;
  /** the running Footfall version (footfallVersion()) */
  version: string;
  log?: Pick<Logger, 'info' | 'warn'>;
  now?: () => number;
  /** where `before-upgrade/` lives; defaults to `backups/` beside the database */
  backupsDir?: string;
  /**
   * false when the caller has already written a backup of everything as it was (the query
   * service's before-upgrade backup): no separate sealed image of app.db is then written
   */
  copyBeforeUpgrade?: boolean;
  /** for tests of the upgrade path only */
  migrations?: readonly ControlMigration[];
  /**
   * Test seam (FOOTFALL_UNSAFE_MIGRATION_PAUSE_MS): after the first migration of this open (and
   * `before`, which writes out its log line), the thread waits `ms` inside the transaction, before
   * the other migrations and the commit; a test kills the process there.
   */
  migrationPause?: { ms: number; before?: () => void };
}

/** The database was written by a newer Footfall: migrations only run forwards. */
export class NewerDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NewerDatabaseError';
  }
}

/** The before-upgrade copy could not be written, so nothing was changed. */
export class BeforeUpgradeError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'BeforeUpgradeError';
  }

  /** For the copy of `what` ('control database', 'analytics database') that failed in `dir`. */
  static copying(what: string, dir: string, cause: unknown): BeforeUpgradeError {
    const why = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    return new BeforeUpgradeError(
      `cannot write the before-upgrade copy of the ${what} into ${dir} (${why}); nothing was changed`,
      { cause },
    );
  }
}

/**
 * Opens `data/app.db` (created 0600 if missing) in WAL mode and brings it to this version's
 * schema. Safe to call from both processes at once: the migration runs under `BEGIN IMMEDIATE`,
 * and whoever gets the lock second finds the work done.
 *
 * Before any change to an existing database, a copy sealed with the instance key is written to
 * `backups/before-upgrade/app-<old version>.db.sealed`; if that fails nothing is changed and this
 * throws BeforeUpgradeError. A database from a newer version throws NewerDatabaseError.
 *
 * @example
 * const control = openControlDb({ path: paths.controlDb, secret: instance.secret, version: footfallVersion() });
 */
export function openControlDb(options: OpenControlDbOptions): ControlDb {
  const { path } = options;
  closeSync(openSync(path, 'a', 0o600));
  if ((statSync(path).mode & 0o777) !== 0o600) chmodSync(path, 0o600);
  const raw = new Database(path);
  try {
    raw.pragma('busy_timeout = 10000');
    withBusyRetry(() => raw.pragma('journal_mode = WAL'));
    raw.pragma('synchronous = FULL');
    raw.pragma('foreign_keys = ON');
    const cipher = createCipher(options.secret);
    migrate(raw, cipher, options);
    // the instance key's check value (key-check.ts)
    withBusyRetry(() => ensureKeyCheck(raw, cipher));
    const db = new Kysely<ControlSchema>({ dialect: new SqliteDialect({ database: raw }) });
    return {
      db,
      raw,
      cipher,
      now: options.now ?? Date.now,
      path,
      close: () => db.destroy(),
    };
  } catch (e) {
    raw.close();
    throw e;
  }
}

/** The schema version and the Footfall version that last wrote the database. */
function readStamp(raw: Database.Database): { schema: number; written: string | undefined } {
  const schema = raw.pragma('user_version', { simple: true }) as number;
  const hasMeta = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`).get();
  const row = hasMeta
    ? (raw.prepare(`SELECT value FROM meta WHERE key = 'footfall_version'`).get() as
        | { value: string }
        | undefined)
    : undefined;
  return { schema, written: row?.value };
}

/**
 * The version a control database at `path` would be upgraded from (the name its before-upgrade
 * copy carries), or null when this version would not migrate it: missing or new, current, or
 * written by a newer version (which openControlDb refuses). Read without changing anything.
 */
export function controlUpgradeFrom(
  path: string,
  version: string,
  migrations: readonly ControlMigration[] = CONTROL_MIGRATIONS,
): string | null {
  if (!existsSync(path) || statSync(path).size === 0) return null;
  const raw = new Database(path, { readonly: true, fileMustExist: true });
  try {
    raw.pragma('busy_timeout = 10000');
    const s = readStamp(raw);
    const latest = migrations.at(-1)?.version ?? 0;
    if (s.schema === 0 || s.schema > latest) return null;
    if (s.written !== undefined && compareVersions(s.written, version) > 0) return null;
    if (s.schema === latest && s.written === version) return null;
    return s.written ?? `schema-${s.schema}`;
  } finally {
    raw.close();
  }
}

/**
 * Resolves once the control database needs no upgrade, polling while another process (the query
 * service, after its before-upgrade backup) migrates it. Rejects with `signal`'s reason when aborted.
 */
export async function waitForControlUpgrade(
  path: string,
  version: string,
  o: { signal?: AbortSignal; onWaiting?: () => void; intervalMs?: number } = {},
): Promise<void> {
  let told = false;
  while (controlUpgradeFrom(path, version) !== null) {
    if (!told) o.onWaiting?.();
    told = true;
    o.signal?.throwIfAborted();
    await sleep(o.intervalMs ?? 500, undefined, { signal: o.signal }).catch((e: unknown) => {
      o.signal?.throwIfAborted();
      throw e;
    });
  }
}

function migrate(raw: Database.Database, cipher: Cipher, options: OpenControlDbOptions): void {
  const migrations = options.migrations ?? CONTROL_MIGRATIONS;
  const latest = migrations.at(-1)?.version ?? 0;
  const read = () => readStamp(raw);
  const refuseNewer = (s: { schema: number; written: string | undefined }) => {
    if (s.schema > latest || (s.written !== undefined && compareVersions(s.written, options.version) > 0)) {
      throw new NewerDatabaseError(
        `${options.path} was written by Footfall ${s.written ?? 'of a newer version'} (schema ${s.schema}); ` +
          `this is Footfall ${options.version} (schema ${latest}). Migrations only run forwards: ` +
          `run Footfall ${s.written ?? 'of that version'} or newer, or restore a backup made by this version.`,
      );
    }
  };
  const upToDate = (s: { schema: number; written: string | undefined }) =>
    s.schema === latest && s.written === options.version;

  const before = read();
  refuseNewer(before);
  if (upToDate(before)) return;

  withBusyRetry(() => raw.exec('BEGIN IMMEDIATE'));
  try {
    const now = read();
    refuseNewer(now);
    if (upToDate(now)) {
      raw.exec('COMMIT');
      return;
    }
    if (now.schema > 0 && options.copyBeforeUpgrade !== false) {
      const from = now.written ?? `schema-${now.schema}`; // as controlUpgradeFrom names it
      const dir = join(options.backupsDir ?? join(dirname(options.path), 'backups'), 'before-upgrade');
      try {
        const file = writeBeforeUpgrade(dir, from, portableImage(raw.serialize()), cipher);
        options.log?.info({ file }, 'control database copied before upgrade');
      } catch (e) {
        throw BeforeUpgradeError.copying('control database', dir, e);
      }
    }
    let first = true;
    for (const m of migrations) {
      if (m.version <= now.schema) continue;
      raw.exec(m.sql);
      options.log?.info({ migration: m.version, name: m.name }, 'control database migrated');
      // the transaction is synchronous (better-sqlite3): the seam blocks the thread
      if (first && options.migrationPause) {
        options.migrationPause.before?.();
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, options.migrationPause.ms);
      }
      first = false;
    }
    raw.pragma(`user_version = ${latest}`);
    raw
      .prepare(`INSERT INTO meta (key, value) VALUES ('footfall_version', ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
      .run(options.version);
    raw.exec('COMMIT');
  } catch (e) {
    if (raw.inTransaction) raw.exec('ROLLBACK');
    throw e;
  }
}

/**
 * A WAL-mode image marks itself as such (header bytes 18 and 19 = 2) and cannot then be opened
 * from memory; marked as a rollback-journal database it opens anywhere, and openControlDb switches
 * a restored copy back to WAL.
 */
function portableImage(image: Buffer): Buffer {
  if (image.length >= 20) image.fill(1, 18, 20);
  return image;
}

/** Compares X.Y.Z versions (a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.split('-', 2);
    return { nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** Switching to WAL needs a moment of exclusive access; the busy handler does not cover every case. */
function withBusyRetry<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || attempt >= 50) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + attempt * 10);
    }
  }
}
