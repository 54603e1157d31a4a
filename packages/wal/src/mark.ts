import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { errnoCode } from './errors.ts';
import { FILE_MODE, readAt, type WalFileHandle, type WalFs, writeFully } from './fs.ts';

/**
 * The durable mark: the highest seq the writer has fsynced, rewritten in place after every group
 * commit. Readers stop at it, so they never hand out a record a power loss could still take back.
 * It is itself not fsynced (that would double the cost of a commit); being written only after the
 * records' fsync, it can lag behind the segments after a crash but never run ahead of them.
 *
 * Layout (12 bytes): seq u64 LE, then CRC-32C of those 8 bytes as u32 LE.
 */
export const MARK_FILE = 'durable-seq';
const MARK_BYTES = 12;

export function encodeMark(seq: bigint): Uint8Array {
  const out = new Uint8Array(MARK_BYTES);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, seq, true);
  view.setUint32(8, crc32c(out.subarray(0, 8)), true);
  return out;
}

/** The seq in a mark, or null when the bytes are missing, short or damaged. */
export function decodeMark(bytes: Uint8Array): bigint | null {
  if (bytes.length < MARK_BYTES) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, MARK_BYTES);
  if (view.getUint32(8, true) !== crc32c(bytes.subarray(0, 8))) return null;
  return view.getBigUint64(0, true);
}

/** Reads a stream's mark; null when there is none yet (or it is unreadable). */
export async function readMark(fs: WalFs, dir: string): Promise<bigint | null> {
  let handle: WalFileHandle;
  try {
    handle = await fs.open(join(dir, MARK_FILE), 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    return decodeMark(await readAt(handle, 0, MARK_BYTES));
  } finally {
    await handle.close();
  }
}

/** The writer's open mark file. */
export class MarkFile {
  private constructor(
    private readonly handle: WalFileHandle,
    readonly path: string,
  ) {}

  static async open(fs: WalFs, dir: string): Promise<MarkFile> {
    const path = join(dir, MARK_FILE);
    try {
      return new MarkFile(await fs.open(path, 'r+'), path);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      return new MarkFile(await fs.open(path, 'w+', FILE_MODE), path);
    }
  }

  /** Overwrites the mark in place; one small pwrite, no fsync (see the module comment). */
  async write(seq: bigint): Promise<void> {
    await writeFully(this.handle, encodeMark(seq), 0);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
