import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a file so that a crash leaves the old one or the new one whole: into `<path>.<pid>.tmp`
 * (0600), fsynced, renamed over `path`, the directory fsynced. When `write` throws, the temp file
 * is removed and `path` is untouched.
 */
export function replaceDurably(path: string, write: (fd: number) => void): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    write(fd);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, path);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
