import { mkdirSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cipher } from '@footfall/control';
import type { DataPaths } from '@footfall/instance';
import { type ArchiveEntry, type BackupReason, type Manifest, writeArchive } from './archive.ts';
import { type AnalyticsCopy, filesUnder, linkWal } from './capture.ts';

/** Where a backup's two databases come from: the running service's handles, or the closed files. */
export interface BackupSources {
  /** writes a consistent copy of the control database to `target`; returns its schema */
  control(target: string): Promise<number>;
  /**
   * writes a consistent copy of the analytics database to `target` and, while no batch can be
   * applied, runs `during` with the stream positions the copy holds
   */
  analytics(
    target: string,
    during: (positions: Map<string, bigint>) => Promise<void>,
  ): Promise<AnalyticsCopy>;
}

export interface CreateBackupOptions {
  paths: DataPaths;
  cipher: Cipher;
  /** the running Footfall version */
  version: string;
  reason: BackupReason;
  sources: BackupSources;
  /** `footfall config`'s lines (secrets masked), kept in the backup for reference */
  settings: string[];
  /** the backup file to write; default `backups/<backupName(now)>` */
  target?: string;
  now?: () => number;
  signal?: AbortSignal;
}

export interface BackupResult {
  /** the backup file */
  file: string;
  bytes: number;
  manifest: Omit<Manifest, 'files'>;
}

/** `footfall-<UTC time>-v<version>.ffbackup`: names sort by time. */
export function backupName(ms: number, version: string): string {
  const stamp = new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `footfall-${stamp}-v${version.replace(/[^0-9A-Za-z.+-]/g, '_')}.ffbackup`;
}
export const BACKUP_FILE = /^footfall-\d{8}T\d{6}Z-v.+\.ffbackup$/;

/**
 * Writes one backup of everything needed to restore the instance: the control database, the
 * analytics database with the write-ahead log it has not applied yet, the quarantined records and
 * the settings, sealed with the instance key (archive.ts). Copies are staged in
 * `backups/.staging-*` (about the size of the databases, removed at the end) and streamed into
 * the sealed file.
 */
export async function createBackup(o: CreateBackupOptions): Promise<BackupResult> {
  const now = o.now ?? Date.now;
  const started = now();
  mkdirSync(o.paths.backups, { recursive: true, mode: 0o700 });
  const staging = join(o.paths.backups, `.staging-${process.pid}-${started}`);
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    const control = join(staging, 'app.db');
    const controlSchema = await o.sources.control(control);
    const analytics = join(staging, 'analytics.duckdb');
    let wal: ArchiveEntry[] = [];
    const copy = await o.sources.analytics(analytics, async (positions) => {
      wal = await linkWal(o.paths.wal, join(staging, 'wal'), positions);
    });
    const settings = join(staging, 'settings.txt');
    writeFileSync(settings, `${o.settings.join('\n')}\n`, { mode: 0o600 });
    const entries: ArchiveEntry[] = [
      { name: 'app.db', path: control, bytes: statSync(control).size },
      ...(copy.schema === null
        ? []
        : [{ name: 'analytics.duckdb', path: analytics, bytes: statSync(analytics).size }]),
      ...wal,
      ...filesUnder(o.paths.quarantine, 'quarantine'),
      { name: 'settings.txt', path: settings, bytes: statSync(settings).size },
    ];
    const manifest: Omit<Manifest, 'files'> = {
      format: 1,
      footfall_version: o.version,
      created_at: new Date(started).toISOString(),
      reason: o.reason,
      control_schema: controlSchema,
      analytics_schema: copy.schema,
    };
    const file = o.target ?? join(o.paths.backups, backupName(started, o.version));
    const bytes = await writeArchive(file, manifest, entries, o.cipher, o.signal);
    return { file, bytes, manifest };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The backups in `dir` (not before-upgrade ones), newest first, with their sizes. */
export function localBackups(dir: string): { name: string; path: string; bytes: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => BACKUP_FILE.test(n))
    .sort()
    .reverse()
    .map((name) => ({ name, path: join(dir, name), bytes: statSync(join(dir, name)).size }));
}

/** Removes all but the newest `keep` backups from `dir`, and staging left by a process that died. */
export function pruneLocal(dir: string, keep: number): string[] {
  const removed: string[] = [];
  for (const b of localBackups(dir).slice(keep)) {
    unlinkSync(b.path);
    removed.push(b.name);
  }
  for (const name of readdirSync(dir)) {
    const m = /^\.staging-(\d+)-/.exec(name);
    if (m && !processAlive(Number(m[1]))) rmSync(join(dir, name), { recursive: true, force: true });
    if (/\.ffbackup\.\d+\.tmp$/.test(name) && !processAlive(Number(name.split('.').at(-2)))) {
      rmSync(join(dir, name), { force: true });
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
