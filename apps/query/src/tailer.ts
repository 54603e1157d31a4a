import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@footfall/http';
import { decodeWalRecord } from '@footfall/schema';
import { listWalStreams, openWalReader, pruneWal, WalCorruptionError, type WalReader } from '@footfall/wal';
import { ValiError } from 'valibot';
import type { Batch, BatchRecord, BatchResult } from './engine/loader.ts';

/** Records decoded between two turns of the event loop (see #read). */
const DECODE_SLICE = 1000;

/** Where the tailer loads records: the analytics engine. */
export interface TailTarget {
  /** applied sequence number per stream, as committed */
  positions(): Promise<Map<string, bigint>>;
  /** loads a batch and the streams' new positions in one transaction */
  applyBatch(batch: Batch): Promise<BatchResult>;
}

export interface TailerOptions {
  walRoot: string;
  target: TailTarget;
  logger: Logger;
  /** most records per transaction */
  batchSize?: number;
  /** wait between polls when there is nothing new (a visit shows within about 2 s) */
  idleMs?: number;
  /** applied WAL segments are deleted once older than this */
  retentionMs?: number;
  /** where a record this version cannot read is kept before the tailer moves past it */
  quarantineDir: string;
  now?: () => number;
  /** called after each committed batch with its records (live stream, cache) */
  onApplied?: (records: readonly BatchRecord[], result: BatchResult) => void;
  /** called by the loop each time a poll finds nothing left to load */
  onCaughtUp?: () => void;
}

/** Records read and decoded for one batch, and where each stream's reading ended. */
interface ReadBatch {
  records: BatchRecord[];
  advanced: Map<string, bigint>;
  /** WAL records read, including unreadable ones that were quarantined */
  consumed: number;
  lag: number;
}

/** A stream the tailer could not read past: corruption is reported, never skipped. */
export interface StuckStream {
  stream: string;
  error: string;
}

/**
 * Tails every WAL stream into the analytics engine exactly once: records after the stored
 * position are read in order, loaded in batches, and each batch commits together with the new
 * positions, so a crash keeps all of a batch or none and a restart resumes after the last commit.
 */
export class Tailer {
  readonly #o: Required<Omit<TailerOptions, 'onApplied' | 'onCaughtUp'>> &
    Pick<TailerOptions, 'onApplied' | 'onCaughtUp'>;
  readonly #readers = new Map<string, WalReader>();
  #positions = new Map<string, bigint>();
  #stuck = new Map<string, string>();
  #lag = 0;
  #unreadable = 0;
  #running: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;
  #lastPrune = 0;
  #failing: { since: number; error: string } | undefined;
  #applied = 0;
  /** the next batch, read while the last one loaded */
  #next: Promise<ReadBatch> | undefined;
  readonly #quarantined = new Set<string>();

  constructor(options: TailerOptions) {
    this.#o = {
      batchSize: 20_000,
      idleMs: 250,
      retentionMs: 7 * 24 * 3600 * 1000,
      now: Date.now,
      ...options,
    };
  }

  /** Loads the stored positions and starts the loop. */
  async start(): Promise<void> {
    await this.init();
    this.#running = this.#loop();
  }

  /**
   * Loads the stored positions and measures the lag (start does this; tests drive poll and drain
   * by hand after it), so Health never reports an empty backlog before the first batch is read.
   */
  async init(): Promise<void> {
    this.#positions = await this.#o.target.positions();
    let lag = 0;
    for (const stream of await listWalStreams(this.#o.walRoot)) {
      const last = await (await this.#reader(stream)).lastSeq();
      lag += Math.max(0, Number(last - (this.#positions.get(stream) ?? 0n)));
    }
    this.#lag = lag;
  }

  /** One batch across all streams; resolves with the number of WAL records it consumed. */
  poll(): Promise<number> {
    return this.#step();
  }

  /** Finishes the batch in progress (it commits or not, as a whole) and stops. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#running;
    await this.#next?.catch(() => undefined);
    this.#next = undefined;
    for (const r of this.#readers.values()) await r.close();
    this.#readers.clear();
  }

  /** Records in the WAL not yet in reports, as of the last poll. */
  get lag(): number {
    return this.#lag;
  }

  /** Payloads that passed their CRC but were not a record this version understands (quarantined, logged). */
  get unreadable(): number {
    return this.#unreadable;
  }

  /** Set while batches keep failing (retried): since when, and the last error. */
  /** WAL records applied to the engine since start (for /metrics). */
  get applied(): number {
    return this.#applied;
  }

  get failing(): { since: number; error: string } | undefined {
    return this.#failing === undefined ? undefined : { ...this.#failing };
  }

  get stuck(): StuckStream[] {
    return [...this.#stuck].map(([stream, error]) => ({ stream, error }));
  }

  /** Reads and applies until nothing is left; resolves with the number of records applied. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.#step();
      total += n;
      if (n === 0) return total;
    }
  }

  async #loop(): Promise<void> {
    let backoffMs = 0;
    while (!this.#stopping) {
      let applied = 0;
      try {
        applied = await this.#step();
        if (applied === 0) this.#o.onCaughtUp?.();
        if (this.#o.now() - this.#lastPrune > 10 * 60 * 1000) await this.#prune();
        backoffMs = 0;
        this.#failing = undefined;
      } catch (e) {
        // Retried soon, then less often: most failures pass (the engine out of memory while
        // reports run), and a batch that keeps failing is shown in operator health.
        backoffMs = Math.min(5000, backoffMs === 0 ? 250 : backoffMs * 2);
        const err = { name: (e as Error).name, message: (e as Error).message };
        this.#failing ??= { since: this.#o.now(), error: err.message };
        this.#failing.error = err.message;
        // out of engine memory is load that passes (reports running), any other failure a fault
        const transient = err.message.startsWith('Out of Memory Error');
        this.#o.logger[transient ? 'warn' : 'error'](
          { err, retry_ms: backoffMs },
          'tailing failed; retrying',
        );
        await this.#sleep(backoffMs);
      }
      if (applied === 0 && !this.#stopping) await this.#sleep(this.#o.idleMs);
    }
  }

  /**
   * One batch across all streams; returns how many records it consumed. While a batch loads
   * (DuckDB's threads) and more is waiting, the next one is read and decoded (JavaScript): a
   * backlog drains faster.
   * The next batch is read from the positions this one ends at, and thrown away if it fails.
   */
  async #step(): Promise<number> {
    const batch = await (this.#next ?? this.#read(this.#positions));
    this.#next = undefined;
    if (batch.consumed === 0) {
      this.#lag = batch.lag;
      return 0;
    }
    const after = new Map(this.#positions);
    for (const [stream, seq] of batch.advanced) after.set(stream, seq);
    // a batch ends at batchSize records or the reader's 4 MiB, whichever comes first: a backlog
    // is left whenever the streams hold more than it read
    const next = batch.lag > 0 && !this.#stopping ? this.#read(after) : undefined;
    try {
      if (batch.records.length > 0) {
        const result = await this.#o.target.applyBatch({ records: batch.records });
        this.#applied += batch.records.length;
        this.#o.onApplied?.(batch.records, result);
      }
    } catch (e) {
      await next?.catch(() => undefined);
      throw e;
    }
    // positions of skipped unreadable records are committed with the next batch that has any
    this.#positions = after;
    this.#lag = batch.lag;
    this.#next = next;
    return batch.consumed;
  }

  /** Reads and decodes up to a batch of records after `positions`, across all streams. */
  async #read(positions: ReadonlyMap<string, bigint>): Promise<ReadBatch> {
    const records: BatchRecord[] = [];
    const advanced = new Map<string, bigint>();
    let consumed = 0;
    let lag = 0;
    for (const stream of await listWalStreams(this.#o.walRoot)) {
      if (this.#stuck.has(stream)) continue;
      const reader = await this.#reader(stream);
      const after = positions.get(stream) ?? 0n;
      const room = this.#o.batchSize - consumed;
      if (room > 0) {
        try {
          for (const { seq, payload } of await reader.read({ after, maxRecords: room })) {
            advanced.set(stream, seq);
            consumed++;
            // Decoding a batch takes about 150 ms of JavaScript: it gives the event loop back every
            // DECODE_SLICE records, so report requests, and the loader's next statement when a
            // batch is read ahead, are not held up behind it
            if (consumed % DECODE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
            try {
              records.push({ stream, seq, record: decodeWalRecord(payload) });
            } catch (e) {
              await this.#quarantine(stream, seq, payload, e);
            }
          }
        } catch (e) {
          if (!(e instanceof WalCorruptionError)) throw e;
          this.#stuck.set(stream, e.message);
          this.#o.logger.error(
            { stream, segment: e.segment, offset: e.offset },
            'WAL stream is corrupt; tailing it stopped',
          );
          continue;
        }
      }
      lag += Number((await reader.lastSeq()) - (advanced.get(stream) ?? after));
    }
    return { records, advanced, consumed, lag };
  }

  /**
   * A record that passed its CRC but is not one this version can read. The gateway of this same
   * version only writes records it has checked, so this is a bug, never a skip in silence: the
   * payload is written durably to the quarantine directory (so a fixed version can load it), the
   * error is logged with what is wrong, and operator health counts it. Only then does the tailer
   * move past it; if the payload cannot be kept, the batch fails and is retried.
   */
  async #quarantine(stream: string, seq: bigint, payload: Uint8Array, error: unknown): Promise<void> {
    // a batch read ahead and thrown away is read again: its records are kept and counted once
    const key = `${stream}:${seq}`;
    if (this.#quarantined.has(key)) return;
    await mkdir(this.#o.quarantineDir, { recursive: true, mode: 0o700 });
    const file = join(this.#o.quarantineDir, `${stream}-${seq}.json`);
    const handle = await open(file, 'w', 0o600);
    try {
      await handle.writeFile(payload);
      await handle.sync();
    } finally {
      await handle.close();
    }
    this.#unreadable++;
    this.#quarantined.add(key);
    const problem =
      error instanceof ValiError
        ? error.issues
            .map(
              (i) =>
                `${i.path?.map((p: { key: unknown }) => String(p.key)).join('.') ?? '(record)'}: ${i.message}`,
            )
            .join('; ')
        : error instanceof Error
          ? error.message
          : String(error);
    this.#o.logger.error(
      { stream, seq: String(seq), file, problem },
      'a WAL record this version wrote cannot be read: kept in quarantine, not loaded',
    );
  }

  async #reader(stream: string): Promise<WalReader> {
    let r = this.#readers.get(stream);
    if (r === undefined) {
      r = await openWalReader({ dir: join(this.#o.walRoot, stream) });
      this.#readers.set(stream, r);
    }
    return r;
  }

  async #prune(): Promise<void> {
    this.#lastPrune = this.#o.now();
    for (const [stream, applied] of this.#positions) {
      await pruneWal({
        dir: join(this.#o.walRoot, stream),
        appliedThrough: applied,
        olderThanMs: this.#o.retentionMs,
        now: this.#o.now(),
      });
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
}
