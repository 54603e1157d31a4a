import { WalCorruptionError } from './errors.ts';
import { decodeSegmentHeader, SEGMENT_HEADER_BYTES } from './format.ts';
import { APPEND_FLAGS, readAt, type WalFileHandle, type WalFs } from './fs.ts';
import { readMark } from './mark.ts';
import { findLaterBatchStart, isZero, scanRecord } from './scan.ts';
import { ByteWindow, createSegment, listSegments, type SegmentRef } from './segments.ts';

/** What a writer found (and cut) at the end of its stream when it opened. */
export interface TailRecovery {
  /** The segment appends continue in, open for writing. */
  segment: SegmentRef;
  handle: WalFileHandle;
  /** Where the next record goes: the end of the last record kept. */
  size: number;
  /** The file's length after any cut: `size` plus the zero-filled space the writer keeps ahead. */
  fileBytes: number;
  /** Seq of the last record kept; 0n for an empty stream. */
  lastSeq: bigint;
  /** The torn tail that was cut off, if there was one. */
  cut: { segment: string; offset: number; bytes: number; reason: string } | null;
}

/**
 * Finds where a stream ends and makes that end durable, for a writer about to append.
 *
 * Only the last segment is scanned: earlier ones were complete and fsynced before the writer moved
 * on, and the reader checks every record of them as it reads. In the last segment, the first bad
 * record (cut short, CRC mismatch, wrong seq, a zero header with data after it) ends the stream
 * and everything from it on is cut, unless it is provably not a torn write: its seq is at or
 * below the durable mark, or a later write batch starts after it. Then it is corruption and
 * opening fails.
 */
export async function recoverTail(fs: WalFs, dir: string): Promise<TailRecovery> {
  const durable = (await readMark(fs, dir)) ?? 0n;
  const segments = await listSegments(fs, dir);
  const last = segments.at(-1);
  if (!last) {
    if (durable > 0n) {
      throw new WalCorruptionError(dir, 0, `no segment files, yet records up to seq ${durable} were durable`);
    }
    const created = await createSegment(fs, dir, 1n);
    return {
      ...created,
      size: SEGMENT_HEADER_BYTES,
      fileBytes: SEGMENT_HEADER_BYTES,
      lastSeq: 0n,
      cut: null,
    };
  }

  const handle = await fs.open(last.path, APPEND_FLAGS);
  try {
    const result = await scanTail(handle, last, durable);
    if (result.cut) await handle.truncate(result.size);
    // Also makes durable what a crashed writer wrote but never fsynced, before the mark covers it.
    await handle.sync();
    return { segment: last, handle, ...result };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function scanTail(
  handle: WalFileHandle,
  segment: SegmentRef,
  durable: bigint,
): Promise<Pick<TailRecovery, 'size' | 'fileBytes' | 'lastSeq' | 'cut'>> {
  const header = decodeSegmentHeader(await readAt(handle, 0, SEGMENT_HEADER_BYTES));
  if (header !== segment.firstSeq) {
    throw new WalCorruptionError(
      segment.path,
      0,
      'segment header is missing or does not match the file name',
    );
  }
  const fileSize = (await handle.stat()).size;
  const window = new ByteWindow(handle);
  let offset = SEGMENT_HEADER_BYTES;
  let expected = segment.firstSeq;
  for (;;) {
    let found = await scanRecord(window, offset);
    if (found.kind === 'end' && offset < fileSize && !(await zeroUpTo(handle, offset, fileSize))) {
      // A zero header ends the records only when nothing but zeros follows it: a torn write can
      // leave its first bytes unwritten and later ones on the disk.
      found = { kind: 'bad', reason: 'zero bytes where a record should start, yet data follows' };
    }
    if (found.kind === 'end') break;
    if (found.kind === 'record' && found.seq === expected) {
      offset += found.size;
      expected += 1n;
      continue;
    }
    const reason = found.kind === 'bad' ? found.reason : `seq ${found.seq} where ${expected} was expected`;
    if (expected <= durable) {
      throw new WalCorruptionError(segment.path, offset, `${reason}; seq ${expected} was already durable`);
    }
    const later = findLaterBatchStart(await readAt(handle, offset, fileSize - offset), expected);
    if (later >= 0) {
      throw new WalCorruptionError(
        segment.path,
        offset,
        `${reason}; a later write batch follows at offset ${offset + later}, so this is not a torn tail`,
      );
    }
    // what the torn write left, not counting the zero fill after it
    const bytes = (await dataEnd(handle, offset, fileSize)) - offset;
    return {
      size: offset,
      fileBytes: offset,
      lastSeq: expected - 1n,
      cut: { segment: segment.path, offset, bytes, reason },
    };
  }
  if (expected - 1n < durable) {
    throw new WalCorruptionError(
      segment.path,
      offset,
      `stream ends at seq ${expected - 1n}, yet records up to seq ${durable} were durable`,
    );
  }
  return { size: offset, fileBytes: fileSize, lastSeq: expected - 1n, cut: null };
}

const ZERO_CHECK_CHUNK = 1024 * 1024;

/** Where the bytes between `from` and `to` end once trailing zeros are left out. */
async function dataEnd(handle: WalFileHandle, from: number, to: number): Promise<number> {
  for (let end = to; end > from; end -= ZERO_CHECK_CHUNK) {
    const start = Math.max(from, end - ZERO_CHECK_CHUNK);
    const bytes = await readAt(handle, start, end - start);
    if (isZero(bytes)) continue;
    for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== 0) return start + i + 1;
  }
  return from;
}

/** Whether the file holds only zero bytes from `from` to `to`. */
async function zeroUpTo(handle: WalFileHandle, from: number, to: number): Promise<boolean> {
  for (let at = from; at < to; at += ZERO_CHECK_CHUNK) {
    if (!isZero(await readAt(handle, at, Math.min(ZERO_CHECK_CHUNK, to - at)))) return false;
  }
  return true;
}
