import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type Cipher, createCipher } from './crypto.ts';

const PURPOSE = 'backup';
const PATTERN = /^app-(.+)\.db\.sealed$/;

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
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, cipher.seal(image, PURPOSE));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  for (const other of readdirSync(dir)) {
    if (other !== name && PATTERN.test(other)) unlinkSync(join(dir, other));
  }
  return path;
}

/**
 * Opens a before-upgrade copy with the instance key: the SQLite database image, which
 * `new Database(image)` (better-sqlite3) opens in memory, or which can be written to a file to
 * restore it.
 */
export function readBeforeUpgrade(path: string, secret: string): Buffer {
  return createCipher(secret).open(readFileSync(path), PURPOSE);
}
