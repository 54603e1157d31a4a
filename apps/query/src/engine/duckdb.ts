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
 * The open analytics database. DuckDB allows one process per file: this process is the only
 * opener. One connection writes (the tailer's transactions, serialised by the caller); reads run
 * on their own connections so they see the last committed snapshot and never a half-written batch.
 */
export interface DuckDb {
  /** the single writer connection; only the loader and migrations use it */
  readonly writer: DuckDBConnection;
  /** runs a read on a reader connection and returns its rows */
  read(query: Query): Promise<Row[]>;
  /** closes every connection and the database */
  close(): void;
}

const READERS = 2;

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
  const readers: DuckDBConnection[] = [];
  for (let i = 0; i < READERS; i++) readers.push(await connect());
  // A connection runs one statement at a time: reads borrow a free one or wait for it.
  const free = [...readers];
  const waiting: ((connection: DuckDBConnection) => void)[] = [];
  const borrow = (): Promise<DuckDBConnection> => {
    const connection = free.pop();
    return connection ? Promise.resolve(connection) : new Promise((resolve) => waiting.push(resolve));
  };
  const giveBack = (connection: DuckDBConnection): void => {
    const next = waiting.shift();
    if (next) next(connection);
    else free.push(connection);
  };
  let closed = false;
  return {
    writer,
    async read(query) {
      if (closed) throw new Error('analytics database is closed');
      const connection = await borrow();
      try {
        const reader = await connection.runAndReadAll(query.sql, query.params);
        return reader.getRowObjectsJS();
      } finally {
        giveBack(connection);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      for (const connection of [writer, ...readers]) connection.closeSync();
      instance.closeSync();
    },
  };
}
