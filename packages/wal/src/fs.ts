import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * The few file operations the WAL uses. The real implementation is node:fs; tests pass a wrapper
 * that counts fsyncs or fails a write with ENOSPC, which cannot be provoked reliably on a real disk.
 */
export interface WalFileHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  write(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  /** fdatasync: flushes the data and the metadata needed to read it back (the size), not mtime */
  datasync?(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number; mtimeMs: number }>;
  close(): Promise<void>;
}

export interface WalFs {
  /**
   * `flags` as in node:fs ('r', 'r+', 'wx', ... or numeric `O_*` bits, see APPEND_FLAGS); `mode`
   * applies when the file is created.
   */
  open(path: string, flags: string | number, mode?: number): Promise<WalFileHandle>;
  readdir(path: string): Promise<string[]>;
  /** Creates the directory and its parents; no error when it exists. */
  mkdir(path: string, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  stat(path: string): Promise<{ size: number; mtimeMs: number; isDirectory(): boolean }>;
}

/** The real file system. */
export const nodeFs: WalFs = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  readdir: (path) => fsp.readdir(path),
  mkdir: async (path, mode) => {
    await fsp.mkdir(path, { recursive: true, mode });
  },
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  stat: (path) => fsp.stat(path),
};

/**
 * How the writer opens the segment it appends to. Where the platform has O_DSYNC (Linux, macOS),
 * every write returns only once its bytes, and the file size needed to read them back, are on
 * the disk: what write + fdatasync give, in one system call and one trip through libuv's thread
 * pool instead of two. That halves the event loop's cost per group commit. Elsewhere the writer
 * writes, then calls fdatasync.
 */
export const APPEND_SYNCS = constants.O_DSYNC !== undefined;
export const APPEND_FLAGS: string | number = APPEND_SYNCS ? constants.O_RDWR | constants.O_DSYNC : 'r+';

/** Whether numeric open flags ask for synchronous data writes. */
export const isDsync = (flags: string | number): boolean =>
  typeof flags === 'number' && APPEND_SYNCS && (flags & constants.O_DSYNC) === constants.O_DSYNC;

/** Data files are readable by the service's own user only. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/**
 * Makes a directory's entries (a created, renamed or deleted file) durable. Without it a crash can
 * lose a whole new segment even though its contents were fsynced.
 */
export async function fsyncDir(fs: WalFs, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates `dir` (and missing parents) so that it survives a crash: each new directory's entry is
 * fsynced in its parent.
 */
export async function ensureDir(fs: WalFs, dir: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let current = resolve(dir); !(await isDirectory(fs, current)); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current) break;
  }
  if (missing.length === 0) return;
  await fs.mkdir(dir, mode);
  for (const created of missing) await fsyncDir(fs, dirname(created));
}

async function isDirectory(fs: WalFs, path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Writes all of `bytes` at `position`, looping over short writes. */
export async function writeFully(handle: WalFileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    if (bytesWritten <= 0) throw Object.assign(new Error('write wrote no bytes'), { code: 'EIO' });
    done += bytesWritten;
  }
}

/** Reads up to `length` bytes at `position`; the result is shorter only at the end of the file. */
export async function readAt(handle: WalFileHandle, position: number, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(out, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? out : out.subarray(0, done);
}
