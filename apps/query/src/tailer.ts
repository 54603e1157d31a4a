import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@footfall/http';
import { readWalRecord } from '@footfall/schema';
import { listWalStreams, openWalReader, pruneWal, WalCorruptionError, type WalReader } from '@footfall/wal';
import type { BatchRecord, BatchResult, BatchWriter } from './engine/index.ts';

/** Records decoded between two turns of the event loop (see #read). */
const DECODE_SLICE = 1000;

const decoder = new TextDecoder();

/** Where the tailer loads records: the analytics engine. */
export interface TailTarget {
  /** applied sequence number per stream, as committed */
  positions(): Promise<Map<string, bigint>>;
  /** starts a batch: slices of records are added to it, then it commits as one transaction */
  beginBatch(): Promise<BatchWriter>;
}

/** What a committed batch held, for the live stream and the report cache. */
export interface AppliedBatch {
  /** the records `keep` asked for (the live stream's) */
  records: BatchRecord[];
  /** per site, the earliest and latest time its records reach (a crawl or bot record: its day) */
  spans: Map<string, { from: number; to: number }>;
  result: BatchResult;
}

export interface TailerOptions {
  walRoot: string;
  target: TailTarget;
  logger: Logger;
  /** most records per transaction */
  batchSize?: number;
  /** most records read and decoded at a time (a slice of a batch) */
  sliceSize?: number;
  /** a batch takes no more slices once it has loaded for this long, while catching up */
  batchMs?: number;
  /**
   * the same while keeping up (fewer than `liveLag` records waiting when the batch began): the
   * live stream shows a batch's visits when it commits, so a short batch keeps them within the
   * spec's 2 s
   */
  liveBatchMs?: number;
  /** records waiting under which the tail counts as keeping up (see liveBatchMs) */
  liveLag?: number;
  /** wait between polls when there is nothing new (a visit shows within about 2 s) */
  idleMs?: number;
  /** applied WAL segments are deleted once older than this */
  retentionMs?: number;
  /** where a record this version cannot read is kept before the tailer moves past it */
  quarantineDir: string;
  now?: () => number;
  /** which records onApplied gets (the live stream's); none unless asked */
  keep?: (record: BatchRecord) => boolean;
  /** called after each committed batch (live stream, cache) */
  onApplied?: (batch: AppliedBatch) => void;
  /** called by the loop each time a poll finds nothing left to load */
  onCaughtUp?: () => void;
}

/** Records read and decoded for one slice of a batch, and where each stream's reading ended. */
interface ReadSlice {
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
  readonly #o: Required<Omit<TailerOptions, 'onApplied' | 'onCaughtUp' | 'keep'>> &
    Pick<TailerOptions, 'onApplied' | 'onCaughtUp' | 'keep'>;
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
  /** the next slice, read while the last one loaded */
  #next: Promise<ReadSlice> | undefined;
  readonly #quarantined = new Set<string>();

  constructor(options: TailerOptions) {
    this.#o = {
      batchSize: 250_000,
      sliceSize: 10_000,
      batchMs: 5_000,
      liveBatchMs: 1_000,
      // about 10 s at 5,000 events/s: a pause of a few seconds (a checkpoint, a rollup built
      // between batches) is made up in short batches, a restart's backlog in long ones
      liveLag: 50_000,
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

  /** Records in the WAL not yet in reports, as of the last read (see liveLag). */
  get lag(): number {
    return this.#lag;
  }

  /**
   * Records in the WAL not yet in reports, now: each stream's durable end minus what the last
   * committed batch holds. `lag` is as of the tailer's last read, so it misses what arrives while
   * a batch loads and commits (under a steady 4,000 events/s, up to 20,000 events it said were
   * not there). Streams are those the tailer has opened (all at start, a new one within a poll).
   */
  async liveLag(): Promise<number> {
    let lag = 0;
    try {
      for (const [stream, reader] of this.#readers) {
        if (this.#stuck.has(stream)) continue;
        lag += Math.max(0, Number((await reader.lastSeq()) - (this.#positions.get(stream) ?? 0n)));
      }
    } catch {
      return this.#lag; // a reader closed as the tailer stops
    }
    return Math.max(lag, this.#lag);
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
   * One batch across all streams; returns how many records it consumed. A batch takes slices of
   * `sliceSize` records while more are waiting, up to `batchSize` records or `batchMs` of loading,
   * and commits them as one transaction: a backlog loads in large batches (a batch costs DuckDB
   * much less per event the larger it is), a trickle in small ones. A batch that began with fewer
   * than `liveLag` records waiting (the tail keeps up) stops taking slices after `liveBatchMs`: under a
   * steady 4,000 events/s a 5 s batch held each visit up to 5 s from the live stream (bench:live). While a slice loads and while
   * the batch commits (DuckDB's threads), the next slice is read and decoded (JavaScript). A read
   * ahead from positions past a batch that fails is thrown away.
   */
  async #step(): Promise<number> {
    let next: Promise<ReadSlice> | undefined = this.#next ?? this.#read(this.#positions);
    this.#next = undefined;
    const first = await next;
    next = undefined;
    if (first.consumed === 0) {
      this.#lag = first.lag;
      return 0;
    }
    const after = new Map(this.#positions);
    const kept: BatchRecord[] = [];
    const spans = new Map<string, { from: number; to: number }>();
    let consumed = 0;
    let records = 0;
    let lag = first.lag;
    const started = performance.now();
    const windowMs = first.lag < this.#o.liveLag ? this.#o.liveBatchMs : this.#o.batchMs;
    const writer = await this.#o.target.beginBatch();
    try {
      let slice: ReadSlice | undefined = first;
      while (slice !== undefined) {
        for (const [stream, seq] of slice.advanced) after.set(stream, seq);
        consumed += slice.consumed;
        records += slice.records.length;
        lag = slice.lag;
        const full = consumed >= this.#o.batchSize || performance.now() - started >= windowMs;
        // read ahead: the rest of this batch, or the start of the next one
        if (slice.lag > 0 && !this.#stopping) next = this.#read(after);
        if (slice.records.length > 0) {
          await writer.add(slice.records);
          this.#note(slice.records, kept, spans);
        }
        if (full || next === undefined) break;
        slice = await next;
        next = undefined;
        if (slice.consumed === 0) {
          lag = slice.lag;
          slice = undefined;
        }
      }
      if (records === 0) writer.abort();
      else {
        const result = await writer.commit();
        this.#applied += records;
        this.#o.onApplied?.({ records: kept, spans, result });
      }
    } catch (e) {
      writer.abort();
      await next?.catch(() => undefined);
      throw e;
    }
    // positions of skipped unreadable records are committed with the next batch that has any
    this.#positions = after;
    this.#lag = lag;
    this.#next = next;
    return consumed;
  }

  /** Notes what onApplied tells of a slice's records: the ones kept, and each site's time span. */
  #note(
    records: readonly BatchRecord[],
    kept: BatchRecord[],
    spans: Map<string, { from: number; to: number }>,
  ): void {
    for (const r of records) {
      const { record } = r;
      if (this.#o.keep?.(r)) kept.push(r);
      const from = record.t === 'event' ? record.at : Date.parse(`${record.day}T00:00:00Z`);
      const to = record.t === 'event' ? record.at : from + 86_400_000;
      const s = spans.get(record.site);
      if (s === undefined) spans.set(record.site, { from, to });
      else {
        if (from < s.from) s.from = from;
        if (to > s.to) s.to = to;
      }
    }
  }

  /** Reads and decodes up to a slice of records after `positions`, across all streams. */
  async #read(positions: ReadonlyMap<string, bigint>): Promise<ReadSlice> {
    const records: BatchRecord[] = [];
    const advanced = new Map<string, bigint>();
    let consumed = 0;
    let lag = 0;
    for (const stream of await listWalStreams(this.#o.walRoot)) {
      if (this.#stuck.has(stream)) continue;
      const reader = await this.#reader(stream);
      const after = positions.get(stream) ?? 0n;
      const room = Math.min(this.#o.sliceSize, this.#o.batchSize) - consumed;
      if (room > 0) {
        try {
          for (const { seq, payload } of await reader.read({ after, maxRecords: room })) {
            advanced.set(stream, seq);
            consumed++;
            // Decoding a slice takes about 100 ms of JavaScript: it gives the event loop back every
            // DECODE_SLICE records, so report requests, and the loader's next statement when a
            // slice is read ahead, are not held up behind it
            if (consumed % DECODE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
            const text = decoder.decode(payload);
            try {
              records.push({ stream, seq, record: readWalRecord(text), text });
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
    const problem = error instanceof Error ? error.message : String(error);
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
