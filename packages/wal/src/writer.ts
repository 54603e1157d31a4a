import { setTimeout as delay } from 'node:timers/promises';
import { WalClosedError, WalWriteError } from './errors.ts';
import {
  FLAG_BATCH_START,
  MAX_PAYLOAD_BYTES,
  type Payload,
  payloadBytes,
  recordSize,
  SEGMENT_HEADER_BYTES,
  writeRecord,
} from './format.ts';
import {
  APPEND_SYNCS,
  DIR_MODE,
  ensureDir,
  nodeFs,
  type WalFileHandle,
  type WalFs,
  writeFully,
} from './fs.ts';
import { StreamLock } from './lock.ts';
import { MarkFile } from './mark.ts';
import { recoverTail, type TailRecovery } from './recover.ts';
import { createSegment, removeTempFiles, type SegmentRef } from './segments.ts';

export interface WalWriterOptions {
  /** The stream's directory, e.g. `<dataDir>/wal/<streamId>`; created when missing. */
  dir: string;
  /** A new segment is started before a batch would take the current one past this size. */
  segmentBytes?: number;
  /** Most bytes one group commit writes; more waiting appends go in the next one. */
  maxBatchBytes?: number;
  /**
   * Zero-filled bytes written ahead of the last record, so that commits overwrite space the file
   * already has (see #fill); 0 turns this off and every commit extends the file.
   */
  fillBytes?: number;
  /** File operations; tests inject failures here. Defaults to node:fs. */
  fs?: WalFs;
}

export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_BATCH_BYTES = 4 * 1024 * 1024;
export const DEFAULT_FILL_BYTES = 4 * 1024 * 1024;
/**
 * Least time between two writes of the durable mark while commits keep coming. Readers see a
 * record at most this much later than its append resolved; the query service polls every 250 ms.
 * Each write is a trip through libuv's thread pool that the event loop pays for: at 10 ms, mark
 * writes took 1.7 % of the busy gateway's event loop samples, more than the commits' own writes.
 */
export const MARK_INTERVAL_MS = 50;

interface PendingAppend {
  payload: Payload;
  /** the payload's length in bytes */
  bytes: number;
  resolve: (seq: bigint) => void;
  reject: (error: Error) => void;
}

/**
 * Opens a stream for appending: takes its lock, cuts a torn tail, and continues after the last
 * durable record. Throws WalLockedError if another writer holds the stream, WalCorruptionError if
 * the stream's end is damaged in a way that is not a torn write.
 *
 * @example
 * const wal = await openWalWriter({ dir: join(dataDir, 'wal', streamId) });
 * const seq = await wal.append(new TextEncoder().encode(JSON.stringify(record))); // fsynced
 * if (wal.pending > 1000) answer503();
 */
export async function openWalWriter(options: WalWriterOptions): Promise<WalWriter> {
  const fs = options.fs ?? nodeFs;
  await ensureDir(fs, options.dir, DIR_MODE);
  const lock = await StreamLock.acquire(fs, options.dir);
  let tail: TailRecovery | undefined;
  let mark: MarkFile | undefined;
  try {
    await removeTempFiles(fs, options.dir);
    tail = await recoverTail(fs, options.dir);
    mark = await MarkFile.open(fs, options.dir);
    await mark.write(tail.lastSeq);
    const writer = new WalWriter(fs, options, lock, mark, tail);
    await writer.filled();
    return writer;
  } catch (error) {
    await tail?.handle.close().catch(() => {});
    await mark?.close().catch(() => {});
    await lock.release().catch(() => {});
    throw error;
  }
}

/** The single writer of one WAL stream. Appends are durable (fsynced) when their promise resolves. */
export class WalWriter {
  /** The torn tail cut off when this writer opened (worth a log line), or null. */
  readonly recovered: TailRecovery['cut'];
  readonly #fs: WalFs;
  readonly #dir: string;
  readonly #segmentBytes: number;
  readonly #maxBatchBytes: number;
  readonly #fillBytes: number;
  readonly #lock: StreamLock;
  readonly #mark: MarkFile;
  #segment: SegmentRef;
  #handle: WalFileHandle;
  /** Bytes of the current segment that are written and fsynced: where the next batch goes. */
  #size: number;
  /** The segment file's durable length: `#size` plus the zero-filled space ahead of it. */
  #fileBytes: number;
  /** the zero fill under way (at most one), see #fill */
  #filling: Promise<void> | null = null;
  /** a fill failed in this segment: the next ones extend the file as they go */
  #fillOff = false;
  #lastSeq: bigint;
  #queue: PendingAppend[] = [];
  /** the mark write under way (at most one at a time), so close can wait for it */
  #marking: Promise<void> | null = null;
  /** the newest durable seq the mark has not been written with yet */
  #markDue: bigint | null = null;
  #inFlight = 0;
  #draining: Promise<void> | null = null;
  #failure: WalWriteError | null = null;
  #closing: Promise<void> | null = null;

  /** @internal use openWalWriter */
  constructor(fs: WalFs, options: WalWriterOptions, lock: StreamLock, mark: MarkFile, tail: TailRecovery) {
    this.#fs = fs;
    this.#dir = options.dir;
    this.#segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.#maxBatchBytes = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    this.#fillBytes = options.fillBytes ?? DEFAULT_FILL_BYTES;
    this.#lock = lock;
    this.#mark = mark;
    this.#segment = tail.segment;
    this.#handle = tail.handle;
    this.#size = tail.size;
    this.#fileBytes = tail.fileBytes;
    this.#lastSeq = tail.lastSeq;
    this.recovered = tail.cut;
    this.#fillAhead();
  }

  /** @internal Resolves once the zero fill under way (if any) is done; openWalWriter waits for it. */
  filled(): Promise<void> {
    return this.#filling ?? Promise.resolve();
  }

  /** Appends waiting for the disk (queued or in the write + fsync under way): a pressure gauge. */
  get pending(): number {
    return this.#queue.length + this.#inFlight;
  }

  /** Seq of the last durable record; 0n while the stream is empty. */
  get lastSeq(): bigint {
    return this.#lastSeq;
  }

  /** The sticky write failure, or null while the writer is healthy. */
  get failure(): WalWriteError | null {
    return this.#failure;
  }

  /** Path of the segment appends currently go to (pruning never removes it). */
  get currentSegment(): string {
    return this.#segment.path;
  }

  /**
   * Appends one record and resolves with its seq once it is fsynced. A string payload is stored as
   * its UTF-8 bytes, encoded straight into the commit's buffer. Rejects with the sticky
   * WalWriteError after a failed write, WalClosedError after close(), RangeError for a payload
   * over MAX_PAYLOAD_BYTES.
   */
  append(payload: Payload): Promise<bigint> {
    const bytes = payloadBytes(payload);
    const refusal = this.#refusal([bytes]);
    if (refusal) return Promise.reject(refusal);
    const done = new Promise<bigint>((resolve, reject) =>
      this.#queue.push({ payload, bytes, resolve, reject }),
    );
    this.#kick();
    return done;
  }

  /** Appends several records, with consecutive seqs, in one group commit when they fit one batch. */
  appendMany(payloads: readonly Payload[]): Promise<bigint[]> {
    const sizes = payloads.map(payloadBytes);
    const refusal = this.#refusal(sizes);
    if (refusal) return Promise.reject(refusal);
    const all = payloads.map(
      (payload, i) =>
        new Promise<bigint>((resolve, reject) =>
          this.#queue.push({ payload, bytes: sizes[i]!, resolve, reject }),
        ),
    );
    this.#kick();
    return Promise.all(all);
  }

  /**
   * Waits for queued appends to be written, then releases the files and the lock. After a sticky
   * failure, close and open a new writer to retry (that cuts whatever the failed batch left).
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#draining;
      await this.#marking;
      await this.#filling;
      await this.#handle.close().catch(() => {});
      await this.#mark.close().catch(() => {});
      await this.#lock.release();
    })();
    return this.#closing;
  }

  #refusal(sizes: readonly number[]): Error | null {
    if (this.#closing) return new WalClosedError('WAL writer is closed');
    if (this.#failure) return this.#failure;
    for (const bytes of sizes) {
      if (bytes > MAX_PAYLOAD_BYTES) {
        return new RangeError(`WAL payload of ${bytes} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
      }
    }
    return null;
  }

  #kick(): void {
    if (!this.#draining) this.#draining = this.#drain();
  }

  /** The group commit loop: whatever queued while one fsync ran goes out together in the next. */
  async #drain(): Promise<void> {
    try {
      // Let appends made in the same tick join the first batch.
      await Promise.resolve();
      while (this.#queue.length > 0 && !this.#failure) {
        const batch = this.#takeBatch();
        this.#inFlight = batch.length;
        try {
          const firstSeq = await this.#commit(batch);
          batch.forEach((item, i) => {
            item.resolve(firstSeq + BigInt(i));
          });
        } catch (error) {
          await this.#fail(error, batch);
        } finally {
          this.#inFlight = 0;
        }
      }
      // A failed mark write fails the writer after its batch succeeded: refuse what queued since.
      if (this.#failure) for (const item of this.#queue.splice(0)) item.reject(this.#failure);
    } finally {
      // Cleared in the same step that saw the queue empty, so an append arriving next starts a drain.
      this.#draining = null;
    }
  }

  #takeBatch(): PendingAppend[] {
    const limit = Math.min(this.#maxBatchBytes, this.#segmentBytes - SEGMENT_HEADER_BYTES);
    let bytes = 0;
    let count = 0;
    for (const item of this.#queue) {
      const size = recordSize(item.bytes);
      if (count > 0 && bytes + size > limit) break;
      bytes += size;
      count++;
    }
    return this.#queue.splice(0, count);
  }

  /** Writes and fsyncs one batch; returns the seq of its first record. */
  async #commit(batch: PendingAppend[]): Promise<bigint> {
    const bytes = batch.reduce((sum, item) => sum + recordSize(item.bytes), 0);
    if (this.#size > SEGMENT_HEADER_BYTES && this.#size + bytes > this.#segmentBytes) await this.#roll();
    // The batch may go past the zeros only once no fill is writing there.
    if (this.#filling && this.#size + bytes > this.#fileBytes) await this.#filling;
    const firstSeq = this.#lastSeq + 1n;
    // every byte is written below: records' headers and payloads, back to back
    const buffer = Buffer.allocUnsafeSlow(bytes);
    let at = 0;
    batch.forEach((item, i) => {
      at = writeRecord(
        buffer,
        at,
        firstSeq + BigInt(i),
        i === 0 ? FLAG_BATCH_START : 0,
        item.payload,
        item.bytes,
      );
    });
    const path = this.#segment.path;
    // With O_DSYNC (fs.ts APPEND_FLAGS) the write returns once the batch is on the disk.
    await writeFully(this.#handle, buffer, this.#size).catch((error: unknown) => {
      throw new WalWriteError(APPEND_SYNCS ? 'write and fsync (O_DSYNC)' : 'write', path, error);
    });
    if (!APPEND_SYNCS) {
      // fdatasync is enough for an append: it also flushes the new file size
      const flush = this.#handle.datasync ? this.#handle.datasync() : this.#handle.sync();
      await flush.catch((error: unknown) => {
        throw new WalWriteError('fsync', path, error);
      });
    }
    this.#size += bytes;
    this.#fileBytes = Math.max(this.#fileBytes, this.#size);
    this.#lastSeq = firstSeq + BigInt(batch.length - 1);
    this.#fillAhead();
    // The batch is durable now: its appends resolve at once, while the mark (which readers follow)
    // is written in the background.
    this.#markDue = this.#lastSeq;
    this.#marking ??= this.#writeMarks();
    return firstSeq;
  }

  /**
   * Writes the mark until it holds the newest durable seq: one write at a time, and at most one
   * every MARK_INTERVAL_MS while commits keep coming. Commits in between only move `#markDue`,
   * so a busy stream writes its mark twenty times a second rather than once per commit (each
   * write is a trip through libuv's thread pool), and the mark only ever moves forward. A failed
   * mark write refuses later batches.
   */
  async #writeMarks(): Promise<void> {
    try {
      // a do-while: the first write is always awaited, so `#marking` is set before it is cleared
      do {
        const started = performance.now();
        const seq = this.#markDue!;
        this.#markDue = null;
        await this.#mark.write(seq).catch((error: unknown) => {
          this.#failure ??= new WalWriteError('durable mark write', this.#mark.path, error);
        });
        const wait = MARK_INTERVAL_MS - (performance.now() - started);
        if (this.#markDue !== null && wait > 0) await delay(wait);
      } while (this.#markDue !== null && !this.#failure);
    } finally {
      // cleared in the step that saw nothing due, so the next commit starts a new round
      this.#marking = null;
    }
  }

  /** Starts a zero fill when less than half of `fillBytes` is left ahead of the last record. */
  #fillAhead(): void {
    if (this.#filling || this.#fillOff || this.#fillBytes <= 0) return;
    if (this.#fileBytes >= this.#segmentBytes || this.#fileBytes - this.#size >= this.#fillBytes / 2) return;
    this.#filling = this.#fill().finally(() => {
      this.#filling = null;
    });
  }

  /**
   * Writes zeros past the end of the file, up to `fillBytes` more and at most to `segmentBytes`.
   * A commit writing over space the file already has changes no file metadata, so its O_DSYNC
   * write (or fdatasync) waits for the data only; one that extends the file also waits for the
   * file system's journal to commit the new size. That is fewer trips through the kernel and its
   * threads per commit, which is most of a commit's latency on a busy machine. Readers and
   * recovery take a record header of zeros as the end of the records.
   */
  async #fill(): Promise<void> {
    const handle = this.#handle;
    const from = this.#fileBytes;
    const to = Math.min(this.#segmentBytes, from + this.#fillBytes);
    try {
      await writeFully(handle, new Uint8Array(to - from), from);
      if (!APPEND_SYNCS) await (handle.datasync ? handle.datasync() : handle.sync());
      if (handle === this.#handle) this.#fileBytes = Math.max(this.#fileBytes, to);
    } catch {
      // Only an optimisation: commits extend the file instead. A full disk fails them on its own.
      this.#fillOff = true;
    }
  }

  async #roll(): Promise<void> {
    await this.#filling;
    const next = await createSegment(this.#fs, this.#dir, this.#lastSeq + 1n).catch((error: unknown) => {
      throw new WalWriteError('segment creation', this.#dir, error);
    });
    await this.#handle.close().catch(() => {});
    this.#segment = next.segment;
    this.#handle = next.handle;
    this.#size = SEGMENT_HEADER_BYTES;
    this.#fileBytes = SEGMENT_HEADER_BYTES;
    this.#fillOff = false;
    this.#fillAhead();
  }

  async #fail(error: unknown, batch: PendingAppend[]): Promise<void> {
    const failure =
      error instanceof WalWriteError ? error : new WalWriteError('append', this.#segment.path, error);
    this.#failure ??= failure;
    const rejected = [...batch, ...this.#queue.splice(0)];
    // Best effort: drop the half-written batch now, so its (rejected) records are not kept; if this
    // fails too, the next open cuts them as a torn tail instead.
    await this.#filling;
    await this.#handle.truncate(this.#size).catch(() => {});
    for (const item of rejected) item.reject(failure);
  }
}
