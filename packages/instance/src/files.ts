import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Directories of the data volume are for the service's user only. */
export const DIR_MODE = 0o700;
/** Files of the data volume are for the service's user only. */
export const FILE_MODE = 0o600;

/** Creates a directory (and parents) readable by the service's user only, tightening an existing one. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
  if ((statSync(path).mode & 0o777) !== DIR_MODE) chmodSync(path, DIR_MODE);
}

/** fsyncs a directory so that a file created or renamed in it survives a crash. */
export function fsyncDir(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to `path` only if no file is there yet, durably and atomically: temp file,
 * fsync, hard link to the final name (fails if it exists), fsync the directory. Two processes racing
 * to create the same file both end up reading the one that won.
 *
 * @returns the content now stored at `path` (ours, or the winner's)
 */
export function createOnce(path: string, content: string): string {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, 'wx', FILE_MODE);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    fsyncDir(dirname(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  return readFileSync(path, 'utf8');
}

/** Reads a file, or undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
