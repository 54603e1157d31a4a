import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDsync, nodeFs, type WalFileHandle, type WalFs } from './fs.ts';
import { openWalReader } from './reader.ts';
import { isZero } from './scan.ts';

/** Test helpers (not exported from the package). */

export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'footfall-wal-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
export const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

function errno(code: string): Error {
  return Object.assign(new Error(`${code}: injected by the test`), { code });
}

/**
 * node:fs with counters and switchable faults on segment files, for what a real disk will not do
 * on demand: count fsyncs, fail a write with ENOSPC after writing part of it, fail an fsync.
 * A segment opened with O_DSYNC (the writer's, see fs.ts APPEND_FLAGS) syncs in every write: such
 * a write counts as an fsync too, and `beforeSync`/`failSyncs` act once its bytes are written.
 */
export class FaultyFs implements WalFs {
  segmentSyncs = 0;
  segmentWrites = 0;
  /** errno code thrown by segment writes while set; `partialBytes` of the write land first. */
  failWrites: string | null = null;
  partialBytes = 0;
  /** errno code thrown by segment fsyncs while set. */
  failSyncs: string | null = null;
  /** errno code thrown by writes of zeros only (the writer's zero fill) while set. */
  failFills: string | null = null;
  /** writes of zeros only (the writer's zero fill) so far */
  fills = 0;
  /** errno code thrown by segment truncates while set. */
  failTruncates: string | null = null;
  /** errno code thrown by writes of the durable mark while set. */
  failMarkWrites: string | null = null;
  /** Runs before each segment fsync; tests use it to hold an fsync open. */
  beforeSync: (() => Promise<void>) | null = null;
  /** writes of the durable mark started so far */
  markWrites = 0;
  /** Runs before each write of the durable mark; tests use it to hold one open. */
  beforeMarkWrite: (() => Promise<void>) | null = null;

  async open(path: string, flags: string | number, mode?: number): Promise<WalFileHandle> {
    const handle = await nodeFs.open(path, flags, mode);
    if (path.endsWith('.seg')) return this.#wrap(handle, isDsync(flags));
    if (path.endsWith('durable-seq')) return this.#wrapMark(handle);
    return handle;
  }

  #wrapMark(handle: WalFileHandle): WalFileHandle {
    return {
      read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
      write: async (buffer, offset, length, position) => {
        this.markWrites++;
        await this.beforeMarkWrite?.();
        if (this.failMarkWrites) throw errno(this.failMarkWrites);
        return handle.write(buffer, offset, length, position);
      },
      sync: () => handle.sync(),
      truncate: (length) => handle.truncate(length),
      stat: () => handle.stat(),
      close: () => handle.close(),
    };
  }

  readdir = nodeFs.readdir;
  mkdir = nodeFs.mkdir;
  rename = nodeFs.rename;
  unlink = nodeFs.unlink;
  stat = nodeFs.stat;

  #wrap(handle: WalFileHandle, dsync: boolean): WalFileHandle {
    const sync = async () => {
      await this.beforeSync?.();
      this.segmentSyncs++;
      if (this.failSyncs) throw errno(this.failSyncs);
    };
    return {
      read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
      write: async (buffer, offset, length, position) => {
        this.segmentWrites++;
        if (isZero(buffer.subarray(offset, offset + length))) {
          this.fills++;
          if (this.failFills) throw errno(this.failFills);
        }
        if (this.failWrites) {
          if (this.partialBytes > 0)
            await handle.write(buffer, offset, Math.min(length, this.partialBytes), position);
          throw errno(this.failWrites);
        }
        const written = await handle.write(buffer, offset, length, position);
        if (dsync) await sync();
        return written;
      },
      sync: async () => {
        await sync();
        return handle.sync();
      },
      truncate: async (length) => {
        if (this.failTruncates) throw errno(this.failTruncates);
        return handle.truncate(length);
      },
      stat: () => handle.stat(),
      close: () => handle.close(),
    };
  }
}

/** Every payload of a stream as text, read from the start. */
export async function payloads(dir: string): Promise<string[]> {
  const reader = openWalReader({ dir });
  try {
    return (await reader.read({ after: 0n })).map((r) => text(r.payload));
  } finally {
    await reader.close();
  }
}
