import { join } from 'node:path';
import { errnoCode, WalClosedError, WalCorruptionError } from './errors.ts';
import { decodeSegmentHeader, SEGMENT_HEADER_BYTES } from './format.ts';
import { nodeFs, readAt, type WalFileHandle, type WalFs } from './fs.ts';
import { readMark } from './mark.ts';
import { scanRecord } from './scan.ts';
import { ByteWindow, listSegments, type SegmentRef } from './segments.ts';

export interface WalReaderOptions {
  /** The stream's directory, e.g. `<dataDir>/wal/<streamId>`. */
  dir: string;
  fs?: WalFs;
}

export interface ReadOptions {
  /** Return records with a seq above this one (the position already applied); 0n from the start. */
  after: bigint;
  /** Most records in one batch (default 1000). */
  maxRecords?: number;
  /** Most payload bytes in one batch (default 4 MiB); a single larger record is still returned. */
  maxBytes?: number;
}

export interface WalRecord {
  seq: bigint;
  payload: Uint8Array;
}

/**
 * Lists the streams under a WAL root (`<dataDir>/wal`): the names of its subdirectories, sorted.
 * A missing root has no streams.
 */
export async function listWalStreams(root: string, fs: WalFs = nodeFs): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const streams: string[] = [];
  for (const name of names) {
    const isDir = await fs.stat(join(root, name)).then(
      (stat) => stat.isDirectory(),
      () => false,
    );
    if (isDir) streams.push(name);
  }
  return streams.sort();
}

/**
 * Opens a stream for reading, alongside its live writer if it has one. Nothing is opened until the
 * first read, so a stream whose writer has not started yet is simply empty.
 *
 * @example
 * const reader = openWalReader({ dir: join(walRoot, stream) });
 * const batch = await reader.read({ after: appliedSeq, maxRecords: 500 });
 */
export function openWalReader(options: WalReaderOptions): WalReader {
  return new WalReader(options.dir, options.fs ?? nodeFs);
}

interface Cursor {
  segment: SegmentRef;
  handle: WalFileHandle;
  /** Byte offset of the record with seq `nextSeq`. */
  offset: number;
  nextSeq: bigint;
}

/**
 * Reads a stream's records in seq order. It hands out only durable records (seq at or below the
 * writer's durable mark), so a record being written right now is "not yet", never an error; a
 * damaged durable record is a WalCorruptionError naming the segment and offset.
 */
export class WalReader {
  #cursor: Cursor | null = null;
  #segments: SegmentRef[] = [];
  #closed = false;
  /** The last mark read intact, for the rare read that races the writer's in-place rewrite. */
  #knownDurable = 0n;

  /** @internal use openWalReader */
  constructor(
    readonly dir: string,
    private readonly fs: WalFs,
  ) {}

  /** The last durable seq of the stream (0n when empty): one 12-byte read, cheap to poll for lag. */
  async lastSeq(): Promise<bigint> {
    const mark = (await readMark(this.fs, this.dir)) ?? (await readMark(this.fs, this.dir));
    if (mark !== null) this.#knownDurable = mark;
    return this.#knownDurable;
  }

  /** The next records after `after`, in order; an empty array when there are none yet. */
  async read(options: ReadOptions): Promise<WalRecord[]> {
    if (this.#closed) throw new WalClosedError('WAL reader is closed');
    const maxRecords = options.maxRecords ?? 1000;
    const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
    // The mark is read before any segment bytes: everything at or below it is already written.
    const durable = await this.lastSeq();
    if (options.after >= durable || maxRecords <= 0) return [];
    const cursor = await this.#seek(options.after + 1n);
    let window = new ByteWindow(cursor.handle);
    const out: WalRecord[] = [];
    let bytes = 0;
    while (out.length < maxRecords && cursor.nextSeq <= durable) {
      const found = await scanRecord(window, cursor.offset);
      if (found.kind === 'end') {
        await this.#nextSegment(cursor);
        window = new ByteWindow(cursor.handle);
        continue;
      }
      if (found.kind === 'bad' || found.seq !== cursor.nextSeq) {
        const reason =
          found.kind === 'bad' ? found.reason : `seq ${found.seq} where ${cursor.nextSeq} was expected`;
        throw new WalCorruptionError(
          cursor.segment.path,
          cursor.offset,
          `${reason}; seq ${cursor.nextSeq} is durable (mark ${durable})`,
        );
      }
      if (found.seq > options.after) {
        if (out.length > 0 && bytes + found.payload.length > maxBytes) break;
        out.push({ seq: found.seq, payload: found.payload });
        bytes += found.payload.length;
      }
      cursor.offset += found.size;
      cursor.nextSeq += 1n;
    }
    return out;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#cursor?.handle.close();
    this.#cursor = null;
  }

  /** A cursor at or before `seq` in the segment that holds it. */
  async #seek(seq: bigint): Promise<Cursor> {
    if (this.#cursor?.nextSeq === seq) return this.#cursor;
    await this.#cursor?.handle.close();
    this.#cursor = null;
    this.#segments = await listSegments(this.fs, this.dir);
    const holder = this.#segments.findLast((segment) => segment.firstSeq <= seq);
    if (!holder) {
      const first = this.#segments[0];
      const why = first ? `the oldest segment starts at seq ${first.firstSeq}` : 'there are no segment files';
      throw new WalCorruptionError(first?.path ?? this.dir, 0, `seq ${seq} is durable but ${why}`);
    }
    this.#cursor = await openSegment(this.fs, holder);
    return this.#cursor;
  }

  /** Moves `cursor` (at the end of its segment) to the next segment, which must start at its seq. */
  async #nextSegment(cursor: Cursor): Promise<void> {
    let next = this.#segments.find((segment) => segment.firstSeq > cursor.segment.firstSeq);
    if (!next) {
      this.#segments = await listSegments(this.fs, this.dir);
      next = this.#segments.find((segment) => segment.firstSeq > cursor.segment.firstSeq);
    }
    if (!next || next.firstSeq !== cursor.nextSeq) {
      const found = next ? `the next segment starts at seq ${next.firstSeq}` : 'there is no next segment';
      throw new WalCorruptionError(
        cursor.segment.path,
        cursor.offset,
        `segment ends before durable seq ${cursor.nextSeq} and ${found}`,
      );
    }
    const opened = await openSegment(this.fs, next);
    await cursor.handle.close();
    Object.assign(cursor, opened);
  }
}

async function openSegment(fs: WalFs, segment: SegmentRef): Promise<Cursor> {
  const handle = await fs.open(segment.path, 'r');
  const header = decodeSegmentHeader(await readAt(handle, 0, SEGMENT_HEADER_BYTES));
  if (header !== segment.firstSeq) {
    await handle.close();
    throw new WalCorruptionError(
      segment.path,
      0,
      'segment header is missing or does not match the file name',
    );
  }
  return { segment, handle, offset: SEGMENT_HEADER_BYTES, nextSeq: segment.firstSeq };
}
