import { mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cipher, readBeforeUpgrade } from '@footfall/control';
import type { DataPaths } from '@footfall/instance';
import Database from 'better-sqlite3';
import { type AnalyticsCopy, copyControl } from './capture.ts';
import { createBackup } from './create.ts';

/**
 * The backup of everything before an upgrade: `backups/before-upgrade/footfall-<version it
 * upgrades from>.ffbackup`, a backup like any other (restore it with `footfall backup restore`
 * and run that version), kept until the next upgrade replaces it.
 *
 * The control database is opened by both processes and migrated by whichever opens it first,
 * inside its own lock, after sealing its old image into `before-upgrade/app-<version>.db.sealed`
 * (packages/control/src/before-upgrade.ts). The query service then writes this backup before it
 * changes the analytics database, with that old image as its control database: so it holds both
 * databases as they were before the upgrade, and the image's own file is removed once it is in.
 */
const CONTROL_COPY = /^app-(.+)\.db\.sealed$/;

/** The control database's image sealed by an upgrade and not yet in a full backup, if any. */
export function pendingControlCopy(dir: string): { fromVersion: string; path: string } | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const copies = names
    .map((name) => ({ name, m: CONTROL_COPY.exec(name) }))
    .filter((c) => c.m !== null)
    .map((c) => ({ fromVersion: c.m![1]!, path: join(dir, c.name), at: statSync(join(dir, c.name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  return copies[0] ? { fromVersion: copies[0].fromVersion, path: copies[0].path } : null;
}

export const beforeUpgradeBackupName = (fromVersion: string) =>
  `footfall-${fromVersion.replace(/[^0-9A-Za-z.+-]/g, '_')}.ffbackup`;

/**
 * Writes the before-upgrade backup into `dir` and removes everything else there (earlier
 * upgrades' backups, the control image it now holds, copies of older versions of Footfall).
 * Throws when it cannot be written: the caller then changes nothing and does not start.
 */
export async function writeBeforeUpgradeBackup(o: {
  dir: string;
  paths: DataPaths;
  cipher: Cipher;
  secret: string;
  fromVersion: string;
  settings: string[];
  /** the control database's old image (pendingControlCopy), else `control` as it is */
  controlCopy: string | null;
  /** the open control database, or its file (read, not changed, before it is migrated) */
  control: Database.Database | string;
  analytics: (
    target: string,
    during: (positions: Map<string, bigint>) => Promise<void>,
  ) => Promise<AnalyticsCopy>;
}): Promise<string> {
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const target = join(o.dir, beforeUpgradeBackupName(o.fromVersion));
  await createBackup({
    paths: o.paths,
    cipher: o.cipher,
    // the data is the old version's: that version restores it when going back
    version: o.fromVersion,
    reason: 'before-upgrade',
    settings: o.settings,
    target,
    sources: {
      control: async (path) => {
        if (o.controlCopy === null) return copyControl(o.control, path);
        writeFileSync(path, readBeforeUpgrade(o.controlCopy, o.secret), { mode: 0o600 });
        const db = new Database(path, { readonly: true });
        try {
          return db.pragma('user_version', { simple: true }) as number;
        } finally {
          db.close();
        }
      },
      analytics: o.analytics,
    },
  });
  for (const name of readdirSync(o.dir)) if (join(o.dir, name) !== target) unlinkSync(join(o.dir, name));
  return target;
}
