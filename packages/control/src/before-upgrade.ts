import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type Cipher, createCipher } from './crypto.ts';
import { replaceDurably } from './durable-file.ts';
import { sealFile } from './sealed-file.ts';

const PURPOSE = 'backup';
const PATTERN = /^app-(.+)\.db\.sealed$/;
const ANALYTICS_PATTERN = /^analytics-schema\d+\.duckdb\.sealed$/;

/** The file name of the control database's before-upgrade copy, named for the version it upgrades from. */
export function beforeUpgradeName(fromVersion: string): string {
  return `app-${fromVersion.replace(/[^0-9A-Za-z.+-]/g, '_')}.db.sealed`;
}

/**
 * Writes the sealed copy of the control database into `dir` (temp file, fsync, rename, fsync the
 * directory), then removes the control database's copies of earlier upgrades. Throws if any step
 * fails; the caller then changes nothing.
 */
export function writeBeforeUpgrade(dir: string, fromVersion: string, image: Buffer, cipher: Cipher): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = beforeUpgradeName(fromVersion);
  const path = join(dir, name);
  replaceDurably(path, (fd) => {
    writeSync(fd, cipher.seal(image, PURPOSE));
  });
  removeOthers(dir, name, PATTERN);
  return path;
}

/** The file name of the analytics database's before-upgrade copy, named for its schema version. */
export function analyticsBeforeUpgradeName(fromSchema: number): string {
  return `analytics-schema${fromSchema}.duckdb.sealed`;
}

/**
 * Seals the analytics database file at `dbPath` (checkpointed, with nothing writing to it) into
 * `dir` in chunks (sealed-file.ts), then removes its copies of earlier upgrades. Throws if any
 * step fails; the caller then changes nothing. Open the copy with `footfall admin open-backup`.
 */
export function writeAnalyticsBeforeUpgrade(
  dir: string,
  fromSchema: number,
  dbPath: string,
  cipher: Cipher,
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = analyticsBeforeUpgradeName(fromSchema);
  const path = join(dir, name);
  sealFile(dbPath, path, cipher);
  removeOthers(dir, name, ANALYTICS_PATTERN);
  return path;
}

/** Deletes the files in `dir` matching `pattern`, except `keep`. */
function removeOthers(dir: string, keep: string, pattern: RegExp): void {
  for (const other of readdirSync(dir)) {
    if (other !== keep && pattern.test(other)) unlinkSync(join(dir, other));
  }
}

/**
 * Opens a before-upgrade copy with the instance key: the SQLite database image, which
 * `new Database(image)` (better-sqlite3) opens in memory, or which can be written to a file to
 * restore it.
 */
export function readBeforeUpgrade(path: string, secret: string): Buffer {
  return createCipher(secret).open(readFileSync(path), PURPOSE);
}
