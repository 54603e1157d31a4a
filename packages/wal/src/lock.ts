import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { errnoCode, WalLockedError } from './errors.ts';
import { FILE_MODE, readAt, type WalFs, writeFully } from './fs.ts';

/**
 * One writer per stream. The lock is a file created exclusively (O_CREAT|O_EXCL) holding the
 * owner's pid and host name. A lock left by a dead process on this host is taken over; a lock from
 * another host (another container on a shared volume) cannot be checked and is always respected.
 */
export const LOCK_FILE = 'writer.lock';

interface LockOwner {
  pid: number;
  host: string;
}

/** Streams locked by this process: a pid check alone cannot tell "me, now" from "me, last boot". */
const heldHere = new Set<string>();

/** The lock on one stream directory, held until released. */
export class StreamLock {
  private released = false;

  private constructor(
    private readonly fs: WalFs,
    private readonly key: string,
    readonly path: string,
  ) {}

  /** Takes the lock on `dir`, or throws WalLockedError naming the live holder. */
  static async acquire(fs: WalFs, dir: string): Promise<StreamLock> {
    const key = resolve(dir);
    const path = join(dir, LOCK_FILE);
    if (heldHere.has(key)) throw new WalLockedError(path, `this process, pid ${process.pid}`);
    heldHere.add(key);
    try {
      if (!(await tryCreate(fs, path))) {
        const owner = await readOwner(fs, path);
        if (owner && isAlive(owner)) throw new WalLockedError(path, `pid ${owner.pid} on ${owner.host}`);
        if (!owner && (await isFresh(fs, path))) throw new WalLockedError(path, 'a writer still creating it');
        // Stale (dead pid on this host, or an old unreadable lock): take it over. Two
        // processes doing this at the same instant could both succeed; README lists that limit.
        await fs.unlink(path).catch(ignoreMissing);
        if (!(await tryCreate(fs, path)))
          throw new WalLockedError(path, 'a writer that took over the stale lock');
      }
      return new StreamLock(fs, key, path);
    } catch (error) {
      heldHere.delete(key);
      throw error;
    }
  }

  /** Removes the lock file if it is still ours. Safe to call twice. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.key);
    const owner = await readOwner(this.fs, this.path).catch(() => null);
    if (owner && owner.pid === process.pid && owner.host === hostname()) {
      await this.fs.unlink(this.path).catch(ignoreMissing);
    }
  }
}

async function tryCreate(fs: WalFs, path: string): Promise<boolean> {
  let handle: Awaited<ReturnType<WalFs['open']>>;
  try {
    handle = await fs.open(path, 'wx', FILE_MODE);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    const owner: LockOwner = { pid: process.pid, host: hostname() };
    await writeFully(handle, new TextEncoder().encode(`${JSON.stringify(owner)}\n`), 0);
  } finally {
    await handle.close();
  }
  return true;
}

async function readOwner(fs: WalFs, path: string): Promise<LockOwner | null> {
  let handle: Awaited<ReturnType<WalFs['open']>>;
  try {
    handle = await fs.open(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const text = new TextDecoder().decode(await readAt(handle, 0, 4096));
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { pid, host } = parsed as Record<string, unknown>;
    return typeof pid === 'number' && typeof host === 'string' ? { pid, host } : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  // Our own pid in the file, but not in heldHere: a previous run in a container that reuses pids.
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(error) === 'EPERM';
  }
}

/** An unreadable lock younger than this may be one another process is still writing. */
const HALF_WRITTEN_GRACE_MS = 5_000;

async function isFresh(fs: WalFs, path: string): Promise<boolean> {
  try {
    return Date.now() - (await fs.stat(path)).mtimeMs < HALF_WRITTEN_GRACE_MS;
  } catch (error) {
    ignoreMissing(error);
    return false;
  }
}

function ignoreMissing(error: unknown): void {
  if (errnoCode(error) !== 'ENOENT') throw error;
}
