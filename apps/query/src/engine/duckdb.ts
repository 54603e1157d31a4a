import type { JS } from '@duckdb/node-api';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';

/** A parameterised statement: `sql` uses `$1`, `$2`, ... and `params` holds their values in order. */
export interface Query {
  sql: string;
  params: DuckDBValue[];
}

/** One result row with values converted to plain JavaScript (numbers, bigints, strings, Dates). */
export type Row = Record<string, JS>;

/** Where and how to open the analytics database. */
export interface DuckDbOptions {
  /** file path of `analytics.duckdb`, or ':memory:' for tests */
  path: string;
  /** analytics query threads (FOOTFALL_ENGINE_THREADS, default 2) */
  threads: number;
  /** DuckDB memory cap such as '256MB' (FOOTFALL_ENGINE_MEMORY) */
  memoryLimit: string;
}

/**
 * The connections a read runs on. Period reports (report, export, heatmap, retention) are the
 * heavy ones; the live views (now, the feed, a journey) are small and must never wait behind them,
 * so each lane has connections of its own.
 */
export type Lane = 'report' | 'live';

export interface ReadOptions {
  /** aborting it interrupts the statement: the client has gone, or the time limit passed */
  signal?: AbortSignal | undefined;
  /** default 'report' */
  lane?: Lane;
}

/** A read stopped because its signal was aborted; `reason` is the signal's reason. */
export class QueryAbortedError extends Error {
  constructor(readonly reason: unknown) {
    super('the query was stopped before it finished');
    this.name = 'QueryAbortedError';
  }
}

/** Too many reads are waiting for a connection of their lane: come back later. */
export class EngineBusyError extends Error {
  constructor(lane: Lane) {
    super(`too many ${lane} queries are waiting`);
    this.name = 'EngineBusyError';
  }
}

/**
 * The open analytics database. DuckDB allows one process per file: this process is the only
 * opener. One connection writes (the tailer's transactions, serialised by the caller); reads run
 * on their own connections so they see the last committed snapshot and never a half-written batch.
 */
export interface DuckDb {
  /** the single writer connection; only the loader and migrations use it */
  readonly writer: DuckDBConnection;
  /** runs a read on a connection of its lane and returns its rows */
  read(query: Query, options?: ReadOptions): Promise<Row[]>;
  /**
   * Runs the writer's work with the report lane held: no period report starts until it is done
   * (those running finish), so heavy reports cannot keep the tailer's batches waiting or out of
   * memory. Live reads go on.
   */
  whileWriting<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` on a connection of its own, closed after: long reads that must neither hold the
   * writer nor a reader lane (the visitor store's rebuild).
   */
  withConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** closes every connection and the database */
  close(): void;
}

/** Connections per lane, and how many reads may wait for one before more are refused. */
const LANES: Record<Lane, { connections: number; maxWaiting: number }> = {
  report: { connections: 2, maxWaiting: 16 },
  live: { connections: 1, maxWaiting: 64 },
};

/**
 * A heavy report holds up to about 100 MB of the engine's memory while it runs. Under a cap below
 * this, two at once would leave the tailer and the live reads nothing (they would answer out of
 * memory): reports then run one at a time.
 */
const TWO_REPORTS_MIN_BYTES = 200e6;

/** Bytes of a DuckDB size such as '256MB' (powers of 1000) or '1GiB' (powers of 1024). */
export function memoryBytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT])(i?)B$/i.exec(size.trim());
  if (!m) throw new Error(`engine memory must be a size such as 256MB, got ${size}`);
  const power = 'KMGT'.indexOf(m[2]!.toUpperCase()) + 1;
  return Number(m[1]) * (m[3] ? 1024 : 1000) ** power;
}

/** Connections of the report lane: one below TWO_REPORTS_MIN_BYTES of engine memory, else two. */
export const reportConnections = (memoryLimit: string): number =>
  memoryBytes(memoryLimit) < TWO_REPORTS_MIN_BYTES ? 1 : LANES.report.connections;

/** Pauses between a live read's attempts when the engine is out of memory: about 3 s in all. */
const LIVE_MEMORY_RETRIES = [100, 200, 400, 800, 1500];

/**
 * Pauses between a report's attempts when the engine is out of memory: a batch load or the other
 * report connection held the memory, and both let go within moments. Twice, then `busy`: a report
 * that needs more than the engine has fails in about 2 s instead of running on for nothing.
 */
const REPORT_MEMORY_RETRIES = [500, 1500];

/** DuckDB's error when FOOTFALL_ENGINE_MEMORY is exhausted: a load that passes, not a fault. */
export const isOutOfMemory = (error: unknown): boolean =>
  error instanceof Error && error.message.startsWith('Out of Memory Error');

/**
 * Runs a read, again after each pause in `pauses` while it runs out of memory. A live read is
 * small: when it runs out of memory, a period report holds the engine's memory for a moment, so
 * it waits rather than answer busy; a report waits less (REPORT_MEMORY_RETRIES). The read gives
 * its connection back between attempts.
 */
export async function retryOutOfMemory<T>(
  run: () => Promise<T>,
  signal?: AbortSignal,
  pauses: readonly number[] = LIVE_MEMORY_RETRIES,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= pauses.length || !isOutOfMemory(error)) throw error;
      await pause(pauses[attempt]!, signal);
    }
  }
}

/** Resolves after `ms`, or rejects with QueryAbortedError as soon as `signal` is aborted. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new QueryAbortedError(signal.reason));
    const stop = () => {
      clearTimeout(timer);
      reject(new QueryAbortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Opens (creating when missing) the analytics database with the given thread and memory limits.
 * Timestamps are handled in UTC on every connection; site time zones are applied in SQL.
 *
 * @example
 * const db = await openDuckDb({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
 */
export async function openDuckDb(options: DuckDbOptions): Promise<DuckDb> {
  if (!Number.isInteger(options.threads) || options.threads < 1) {
    throw new Error(`engine threads must be a positive integer, got ${options.threads}`);
  }
  const instance = await DuckDBInstance.create(options.path, {
    threads: String(options.threads),
    memory_limit: options.memoryLimit,
    // Committed batches collect in DuckDB's own log (analytics.duckdb.wal) until it holds this
    // much, then are checkpointed into the file at once. At the default 16 MB every third or
    // fourth batch rewrote the row groups its visits had updated; at 128 MB a replay of 1M demo
    // events spends 9 s in COMMIT instead of 21 (docs/operations.md, Memory and disk).
    checkpoint_threshold: '128MB',
    // Memory DuckDB frees goes back to the system in the background once 32 MB are free, not
    // when its allocator next needs it: appending batches, DuckDB alone (memory_limit 256MB)
    // peaked at 603 MiB resident without these and 537 with them (engine README, "Memory").
    allocator_flush_threshold: '32MB',
    allocator_background_threads: 'true',
    // Nothing may be downloaded at run time: only the built-in extensions are used.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connect = async (): Promise<DuckDBConnection> => {
    const connection = await instance.connect();
    await connection.run("SET TimeZone = 'UTC'");
    return connection;
  };
  const writer = await connect();
  const pools = {} as Record<Lane, Pool>;
  for (const lane of ['report', 'live'] as const) {
    const connections: DuckDBConnection[] = [];
    const count = lane === 'report' ? reportConnections(options.memoryLimit) : LANES[lane].connections;
    for (let i = 0; i < count; i++) connections.push(await connect());
    pools[lane] = new Pool(lane, connections, LANES[lane].maxWaiting);
  }
  let closed = false;
  const readOnce = async (query: Query, signal: AbortSignal | undefined, pool: Pool): Promise<Row[]> => {
    if (closed) throw new Error('analytics database is closed');
    if (signal?.aborted) throw new QueryAbortedError(signal.reason);
    const connection = await pool.borrow(signal);
    // DuckDB clears a connection's interrupt when a statement starts, so one sent while the
    // statement is still being prepared would be lost: interrupt again until the read ends. An
    // interrupt after the statement ended is harmless (the next one starts afresh).
    let repeat: NodeJS.Timeout | undefined;
    const interrupt = () => {
      connection.interrupt();
      repeat = setInterval(() => connection.interrupt(), 50);
    };
    if (signal?.aborted) interrupt();
    else signal?.addEventListener('abort', interrupt, { once: true });
    try {
      const reader = await connection.runAndReadAll(query.sql, query.params);
      if (signal?.aborted) throw new QueryAbortedError(signal.reason);
      return reader.getRowObjectsJS();
    } catch (error) {
      if (signal?.aborted) throw new QueryAbortedError(signal.reason);
      throw error;
    } finally {
      clearInterval(repeat);
      signal?.removeEventListener('abort', interrupt);
      pool.giveBack(connection);
    }
  };
  return {
    writer,
    async read(query, { signal, lane = 'report' } = {}) {
      const once = () => readOnce(query, signal, pools[lane]);
      return retryOutOfMemory(once, signal, lane === 'live' ? LIVE_MEMORY_RETRIES : REPORT_MEMORY_RETRIES);
    },
    async withConnection(work) {
      const connection = await connect();
      try {
        return await work(connection);
      } finally {
        connection.closeSync();
      }
    },
    async whileWriting(work) {
      pools.report.hold();
      try {
        return await work();
      } finally {
        pools.report.release();
      }
    },
    close() {
      if (closed) return;
      closed = true;
      for (const connection of [writer, ...pools.report.all, ...pools.live.all]) connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A lane's connections: a connection runs one statement at a time, so reads borrow one or wait. */
class Pool {
  readonly all: readonly DuckDBConnection[];
  readonly #free: DuckDBConnection[];
  readonly #waiting: { take: (c: DuckDBConnection) => void }[] = [];
  /** while held, free connections are not handed out: reads queue until release */
  #held = 0;

  constructor(
    readonly lane: Lane,
    connections: DuckDBConnection[],
    readonly maxWaiting: number,
  ) {
    this.all = connections;
    this.#free = [...connections];
  }

  /** A free connection, or one once it is given back; a read aborted while it waits leaves the queue. */
  borrow(signal: AbortSignal | undefined): Promise<DuckDBConnection> {
    const free = this.#held === 0 ? this.#free.pop() : undefined;
    if (free) return Promise.resolve(free);
    if (this.#waiting.length >= this.maxWaiting) return Promise.reject(new EngineBusyError(this.lane));
    return new Promise((resolve, reject) => {
      const waiter = {
        take: (connection: DuckDBConnection) => {
          signal?.removeEventListener('abort', leave);
          resolve(connection);
        },
      };
      const leave = () => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        reject(new QueryAbortedError(signal?.reason));
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.#waiting.push(waiter);
    });
  }

  giveBack(connection: DuckDBConnection): void {
    const next = this.#held === 0 ? this.#waiting.shift() : undefined;
    if (next) next.take(connection);
    else this.#free.push(connection);
  }

  hold(): void {
    this.#held++;
  }

  release(): void {
    this.#held--;
    while (this.#held === 0 && this.#free.length > 0 && this.#waiting.length > 0) {
      this.#waiting.shift()!.take(this.#free.pop()!);
    }
  }
}
