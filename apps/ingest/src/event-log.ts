import { hostname } from 'node:os';
import { join } from 'node:path';
import { AppError, type Logger } from '@footfall/http';
import { type WalRecord, walRecordJson } from '@footfall/schema';
import { openWalWriter, type WalFs, WalLockedError, WalWriteError, type WalWriter } from '@footfall/wal';

/** Ingest availability (the spec's state table): accepting, or refusing while the disk is full. */
export type IngestState =
  | { state: 'accepting' }
  | { state: 'refusing'; reason: string; since: number; code: string };

export interface EventLogOptions {
  walRoot: string;
  logger: Logger;
  now: () => number;
  /** appends waiting for the disk beyond which new events get 503 */
  maxPending?: number;
  /** how often a refusing log tries to reopen its stream */
  retryMs?: number;
  /** file operations for the WAL (tests inject ENOSPC here) */
  fs?: WalFs;
  /** stream name prefix; the default is this host's name */
  streamName?: string;
}

const RETRY_MS = 30_000;

/**
 * Owns this gateway's WAL stream: appends records durably, answers 503 under pressure, and on a
 * write failure (the WAL's sticky error) moves to "refusing" and tries to reopen every 30 seconds,
 * moving back to "accepting" by itself. Stored records are never touched by a failed write: the
 * reopened writer cuts the torn tail.
 */
export class EventLog {
  readonly #opts: Required<Omit<EventLogOptions, 'fs'>> & { fs: WalFs | undefined };
  #writer: WalWriter | undefined;
  #stream = '';
  #state: IngestState = { state: 'accepting' };
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: EventLogOptions) {
    this.#opts = {
      maxPending: 2000,
      retryMs: RETRY_MS,
      streamName: safeName(hostname()),
      fs: undefined,
      ...options,
    };
  }

  /** Opens the stream, taking the first free `<host>`, `<host>-2`, ... name not locked by a live writer. */
  async open(): Promise<void> {
    for (let n = 1; ; n++) {
      const stream = n === 1 ? this.#opts.streamName : `${this.#opts.streamName}-${n}`;
      try {
        this.#writer = await openWalWriter({
          dir: join(this.#opts.walRoot, stream),
          ...(this.#opts.fs ? { fs: this.#opts.fs } : {}),
        });
        this.#stream = stream;
        if (this.#writer.recovered)
          this.#opts.logger.warn({ stream, cut: this.#writer.recovered }, 'cut a torn WAL tail');
        return;
      } catch (e) {
        if (e instanceof WalLockedError && n < 64) continue;
        throw e;
      }
    }
  }

  get stream(): string {
    return this.#stream;
  }

  get state(): IngestState {
    return this.#state;
  }

  /** the last durable sequence number of this stream */
  get lastSeq(): bigint {
    return this.#writer?.lastSeq ?? 0n;
  }

  /** Appends records durably (fsynced when this resolves); throws a 503 AppError when it cannot. */
  async append(records: readonly WalRecord[]): Promise<void> {
    if (this.#state.state === 'refusing') {
      throw new AppError('refusing', `events are refused for now: ${this.#state.reason}`, { retryAfter: 30 });
    }
    const writer = this.#writer;
    if (writer === undefined || writer.failure) {
      throw new AppError('unavailable', 'the event log is not writable right now', { retryAfter: 5 });
    }
    if (writer.pending >= this.#opts.maxPending) {
      throw new AppError('unavailable', 'too many events are waiting for the disk', { retryAfter: 1 });
    }
    try {
      // JSON text: the writer encodes it straight into its commit buffer
      if (records.length === 1) await writer.append(walRecordJson(records[0]!));
      else await writer.appendMany(records.map(walRecordJson));
    } catch (e) {
      if (e instanceof WalWriteError) {
        const reason = this.#fail(e);
        throw new AppError('refusing', `events are refused for now: ${reason}`, { retryAfter: 30 });
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#writer?.close();
  }

  /** Moves to refusing (once) and returns why. */
  #fail(error: WalWriteError): string {
    if (this.#state.state === 'refusing') return this.#state.reason;
    const reason = error.diskFull ? 'the disk is full' : `the disk failed (${error.code})`;
    this.#state = { state: 'refusing', reason, since: this.#opts.now(), code: error.code };
    this.#opts.logger.error(
      { code: error.code, stream: this.#stream },
      `ingest is refusing events: ${reason}`,
    );
    this.#scheduleRetry();
    return reason;
  }

  #scheduleRetry(): void {
    if (this.#closed) return;
    this.#retry = setTimeout(() => void this.#reopen(), this.#opts.retryMs);
    this.#retry.unref();
  }

  async #reopen(): Promise<void> {
    try {
      await this.#writer?.close().catch(() => {});
      this.#writer = await openWalWriter({
        dir: join(this.#opts.walRoot, this.#stream),
        ...(this.#opts.fs ? { fs: this.#opts.fs } : {}),
      });
      this.#state = { state: 'accepting' };
      this.#opts.logger.info({ stream: this.#stream }, 'ingest is accepting events again');
    } catch (e) {
      this.#opts.logger.warn(
        { code: e instanceof WalWriteError ? e.code : (e as Error).name },
        'event log still not writable',
      );
      this.#scheduleRetry();
    }
  }
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64) || 'ingest';
}
