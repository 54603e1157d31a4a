import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Cipher, compareVersions } from '@footfall/control';
import { BackupOpenError, fsyncDir, type Manifest, readArchive } from './archive.ts';

/** The data directory holds data already: a restore goes only into an empty one. */
export class NotEmptyError extends Error {
  constructor(dir: string, found: string) {
    super(`${dir} is not empty (it holds ${found}): restore into an empty data directory`);
    this.name = 'NotEmptyError';
  }
}

/** What may already be in the directory a backup is restored into: the instance key, empty directories. */
function assertEmpty(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'secret.key') continue;
    if (statSync(path).isDirectory() && readdirSync(path).length === 0) continue;
    throw new NotEmptyError(dir, name);
  }
}

/**
 * Restores the backup `file` into the empty data directory `dataDir`: opened with the instance key
 * (`cipher`) into `.restoring-*` beside, checked whole, then moved into place, so a backup that
 * fails half-way (another key, damaged, cut short, from a newer Footfall) leaves the directory as
 * it was. The settings the backup was made with go to `backups/restored-settings.txt`.
 */
export async function restoreBackup(o: {
  file: string;
  dataDir: string;
  cipher: Cipher;
  /** the running Footfall version: a backup from a newer one is refused */
  version: string;
}): Promise<Manifest> {
  assertEmpty(o.dataDir);
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const staging = join(o.dataDir, `.restoring-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  try {
    const manifest = await readArchive(o.file, staging, o.cipher, (m) => {
      if (compareVersions(m.footfall_version, o.version) > 0) {
        throw new BackupOpenError(
          'newer',
          `this backup was made by Footfall ${m.footfall_version}; this is ${o.version}: restore it with Footfall ${m.footfall_version} or newer`,
        );
      }
    });
    for (const name of readdirSync(staging)) {
      if (name === 'settings.txt') {
        mkdirSync(join(o.dataDir, 'backups'), { recursive: true, mode: 0o700 });
        renameSync(join(staging, name), join(o.dataDir, 'backups', 'restored-settings.txt'));
        continue;
      }
      const target = join(o.dataDir, name);
      // an empty directory made by a first start (run/, wal/) gives way to the restored one
      if (existsSync(target)) rmSync(target, { recursive: true });
      renameSync(join(staging, name), target);
    }
    fsyncDir(o.dataDir);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
