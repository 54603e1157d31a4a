import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { DIMENSIONS } from '../../visits/model.ts';
import { VisitorStore } from '../../visits/store.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import {
  type ClickHouseTarget,
  clickhouseClient,
  reasonOf,
  UnsupportedServerError,
  waitForServer,
} from './connection.ts';
import { migrateClickHouse } from './migrations.ts';
import { readRows } from './reads.ts';
import { chTime, visitRowOf } from './rows.ts';
import { insertRows } from './staging.ts';

/**
 * `footfall engine copy --to clickhouse`: a DuckDB installation's analytics data into a
 * ClickHouse database, so it can run on ClickHouse with its history (docs/operations.md).
 *
 * The DuckDB engine is opened first as the query service opens it (its migrations and repairs),
 * then read alone: the query service must be stopped. Events and visits are copied a month at a
 * time (ClickHouse's partitions): a month is dropped before it is copied and marked done after,
 * so a copy cut short anywhere resumes where it was and copies nothing twice. Then the counters,
 * the cookieless carry links, the visitor store and last the streams' positions, so the engine
 * resumes the WAL exactly where DuckDB left it. While a copy is unfinished the ClickHouse engine
 * refuses to open (loader.ts). Counts are compared at the end.
 */

export class CopyError extends Error {}

export interface CopyOptions {
  /** analytics.duckdb (its visitors.db beside it) */
  duckdbPath: string;
  /** the ClickHouse engine's local directory (its visitor store and spool) */
  clickhouseDir: string;
  target: ClickHouseTarget;
  threads: number;
  memoryLimit: string;
  /** told as the copy goes: a step, and rows done of its total */
  progress?: (p: { step: string; done: number; total: number }) => void;
  /** told each time ClickHouse could not be reached yet, and when it is tried again */
  onWaiting?: (reason: string, attempt: number, delayMs: number) => void;
  /** how long ClickHouse is tried before the copy gives up (60 s) */
  waitMs?: number;
  /** test seam: called after each month of a table is copied; a throw stops the copy there */
  afterMonth?: (table: string, month: number) => void;
}

export interface CopySummary {
  /** false: the database already held this copy, finished */
  copied: boolean;
  months: number;
  counts: { events: number; sessions: number; crawls: number; bots: number; streams: number };
}

/** Rows sent per insert (about 50 MB of JSON at most held at once). */
const CHUNK = 50_000;
/** Copy inserts: a month is dropped before it is sent again, so nothing may be left out as a duplicate. */
const COPY_SETTINGS = { async_insert: 0, insert_deduplicate: 0 } as const;

const EVENT_COLUMNS = [
  'site', 'id', 'kind', 'name', 'props', 'host', 'path', 'id_mode', 'referrer_host', 'referrer_path', 'channel',
  'assistant', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'click_id', 'browser',
  'browser_version', 'os', 'os_version', 'device', 'language', 'country', 'region', 'city', 'screen_w', 'screen_h',
  'engaged_ms', 'scroll', 'lcp', 'fcp', 'inp', 'ttfb', 'cls', 'visit_first',
] as const; // biome-ignore format: a list

/** A TIMESTAMPTZ as ClickHouse's DateTime64(3) text (the connection's zone is UTC). */
const timeText = (column: string) => `strftime(${column}, '%Y-%m-%d %H:%M:%S.%g')`;

/** An events row of a month as the JSON line ClickHouse takes (the columns of schema.ts). */
const EVENT_LINE = `to_json({${EVENT_COLUMNS.map((c) => `'${c}': ${c}`).join(', ')},
  'ts': ${timeText('ts')}, 'visitor_key': CAST(visitor_key AS VARCHAR),
  'visit_start': ${timeText('visit_start')}, 'prev_view_at': ${timeText('prev_view_at')},
  'ver': $gen, 'sign': 1})::VARCHAR`;

/** The ms of a TIMESTAMPTZ; -1 for '-infinity' (a previous-visit column's "none"). */
const ms = (column: string) => `CASE WHEN isinf(${column}) THEN -1 ELSE epoch_ms(${column}) END`;
const PREV_COLUMNS = DIMENSIONS.map(([suffix]) => `prev_${suffix}`);
/** A visit's dimensions in the order of DIMENSIONS, then its assistant (model.ts Dims). */
const VISIT_DIMS = [...DIMENSIONS.map(([, column]) => column), 'assistant'];

/** A month's range in ms (UTC), from its number (202611). */
function monthRange(month: number): [number, number] {
  const y = Math.floor(month / 100);
  const m = (month % 100) - 1;
  return [Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1)];
}

export async function copyToClickHouse(o: CopyOptions): Promise<CopySummary> {
  if (!existsSync(o.duckdbPath))
    throw new CopyError(`there is no DuckDB data to copy: ${o.duckdbPath} does not exist`);
  // as the query service opens it: migrated, its visitor store repaired; then closed again
  try {
    const engine = await createDuckDbEngine({
      path: o.duckdbPath,
      threads: o.threads,
      memoryLimit: o.memoryLimit,
    });
    await engine.close();
  } catch (e) {
    if (/lock/i.test(String(e)))
      throw new CopyError(
        `${o.duckdbPath} is in use: stop the query service (footfall start or footfall query) first`,
      );
    throw e;
  }
  const storePath = join(o.duckdbPath, '..', 'visitors.db');
  const source = new VisitorStore(storePath);
  const { storeId, generation } = source.state;
  source.close();
  const identity = `${storeId ?? 'none'}:${generation ?? 0}`;

  const duck = await DuckDBInstance.create(o.duckdbPath, {
    access_mode: 'READ_ONLY',
    threads: String(o.threads),
    memory_limit: o.memoryLimit,
  });
  const db = await duck.connect();
  const server = clickhouseClient(o.target, { server: true });
  const client = clickhouseClient(o.target, { timeoutMs: 600_000 });
  try {
    await db.run("SET TimeZone = 'UTC'");
    // an operator waits at a terminal: tried for a minute, each failure said, then given up
    let reason = '';
    try {
      await waitForServer(server, {
        maxDelayMs: 5_000,
        signal: AbortSignal.timeout(o.waitMs ?? 60_000),
        onWaiting: (why, attempt, delayMs) => {
          reason = why;
          o.onWaiting?.(why, attempt, delayMs);
        },
      });
    } catch (e) {
      if (e instanceof UnsupportedServerError) throw new CopyError(e.message);
      throw new CopyError(`ClickHouse cannot be reached: ${reason || reasonOf(e)}`);
    }
    await migrateClickHouse(server, o.target.database);
    const state = async (key: string) =>
      (
        await readRows<{ value: string }>(
          client,
          'SELECT argMax(value, at) AS value FROM engine_state WHERE key = {key:String} HAVING count() > 0',
          { key },
        )
      )[0]?.value ?? null;
    const setState = (key: string, value: string) =>
      insertRows(client, 'engine_state', [{ key, value, at: chTime(Date.now()) }]);
    const copy = await state('copy');
    if (copy === `done:${identity}`) return { copied: false, months: 0, counts: await countsOf(client) };
    // finished before, then loaded on ClickHouse or changed in DuckDB since: copying again would lose one or the other
    if (copy?.startsWith('done:')) {
      throw new CopyError(
        `ClickHouse database ${o.target.database} already holds a finished copy of different DuckDB data: copy into a new database (FOOTFALL_CLICKHOUSE_DATABASE)`,
      );
    }
    if (copy === null || !copy.endsWith(identity)) {
      if (copy === null) {
        const loaded = await readRows<{ n: string }>(client, 'SELECT count() AS n FROM stream_positions', {});
        if (Number(loaded[0]?.n ?? 0) > 0) {
          throw new CopyError(
            `ClickHouse database ${o.target.database} already holds loaded data: copy into a new database (FOOTFALL_CLICKHOUSE_DATABASE)`,
          );
        }
      }
      // a first copy, or one of DuckDB data that changed since: from the start
      for (const table of [
        'events',
        'sessions',
        'crawl_counters',
        'bot_counters',
        'visit_carries',
        'stream_positions',
      ])
        await client.command({ query: `TRUNCATE TABLE ${table}` });
      await setState('copy', `running:${identity}`);
    }
    const gen = generation ?? 0;
    let months = 0;
    for (const table of ['events', 'sessions'] as const) {
      const time = table === 'events' ? 'ts' : 'started_at';
      const all = await db.runAndReadAll(
        `SELECT CAST(strftime(${time}, '%Y%m') AS INTEGER) AS month, count(*) AS n FROM ${table} GROUP BY ALL ORDER BY month`,
      );
      const list = all.getRowObjectsJS() as { month: number; n: bigint }[];
      const total = list.reduce((sum, m) => sum + Number(m.n), 0);
      let done = 0;
      for (const { month, n } of list) {
        const key = `copy:${table}:${month}`;
        if ((await state(key)) !== identity) {
          await client.command({
            query: `ALTER TABLE ${table} DROP PARTITION ID {id:String}`,
            query_params: { id: String(month) },
          });
          await sendMonth(db, client, table, month, gen, (rows) =>
            o.progress?.({ step: table, done: done + rows, total }),
          );
          await setState(key, identity);
          months++;
        }
        done += Number(n);
        o.progress?.({ step: table, done, total });
        o.afterMonth?.(table, month);
      }
    }
    // the counters and carry links: small, copied whole each time
    for (const table of ['crawl_counters', 'bot_counters', 'visit_carries'] as const) {
      await client.command({ query: `TRUNCATE TABLE ${table}` });
      const select =
        table === 'visit_carries'
          ? `SELECT to_json({'site': site, 'p': p, 'x': x, 'last_at': ${timeText('last_at')}, 'ver': $gen})::VARCHAR FROM visit_carries`
          : `SELECT to_json({${table === 'crawl_counters' ? "'robot': robot, 'robot_kind': robot_kind, 'path': path, 'status_class': status_class, " : "'kind': kind, "}'site': site, 'day': strftime(day, '%Y-%m-%d'), 'hits': hits})::VARCHAR FROM ${table}`;
      await sendLines(client, table, db, select, table === 'visit_carries' ? { gen } : {}, () => undefined);
    }
    // the visitor store, as the DuckDB engine left it: the ClickHouse engine goes on with it
    mkdirSync(o.clickhouseDir, { recursive: true, mode: 0o700 });
    rmSync(join(o.clickhouseDir, 'loading'), { recursive: true, force: true });
    const target = join(o.clickhouseDir, 'visitors.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
    const sqlite = new Database(storePath, { readonly: true });
    try {
      await sqlite.backup(target);
    } finally {
      sqlite.close();
    }
    if (storeId !== null) await setState('store_id', storeId);
    // last, the positions: the WAL is resumed from them, as the batch generation the store has
    const positions = (
      await db.runAndReadAll('SELECT stream, seq FROM stream_positions')
    ).getRowObjectsJS() as {
      stream: string;
      seq: bigint;
    }[];
    const committedAt = chTime(Date.now());
    await insertRows(
      client,
      'stream_positions',
      positions.map((p) => ({ stream: p.stream, seq: String(p.seq), gen, committed_at: committedAt })),
    );
    const counts = await countsOf(client);
    const expected = await duckCounts(db);
    for (const [name, n] of Object.entries(expected) as [keyof CopySummary['counts'], number][]) {
      if (counts[name] !== n)
        throw new CopyError(`the copy's ${name} do not match: DuckDB has ${n}, ClickHouse ${counts[name]}`);
    }
    await setState('copy', `done:${identity}`);
    return { copied: true, months, counts };
  } finally {
    db.closeSync();
    duck.closeSync();
    await client.close();
    await server.close();
  }
}

/** One month of events or visits, sent in inserts of CHUNK rows. */
async function sendMonth(
  db: DuckDBConnection,
  client: ClickHouseClient,
  table: 'events' | 'sessions',
  month: number,
  gen: number,
  progress: (rows: number) => void,
): Promise<void> {
  const [from, to] = monthRange(month);
  const range = { from: from / 1000, to: to / 1000 };
  if (table === 'events') {
    const select = `SELECT ${EVENT_LINE} FROM events
      WHERE ts >= to_timestamp($from) AND ts < to_timestamp($to) ORDER BY site, ts, id`;
    await sendLines(client, 'events', db, select, { ...range, gen }, progress);
    return;
  }
  // a visit's version is the digest of its row as the loader makes it (rows.ts visitRowOf), so
  // the engine cancels a copied visit that goes on exactly as one it wrote itself
  const result = await db.stream(
    `SELECT site, session_id, visitor, visitor_key, epoch_ms(started_at) AS start, epoch_ms(last_at) AS last_ts,
       epoch_ms(ended_at) AS "end", pageviews, events, ${VISIT_DIMS.join(', ')},
       epoch_ms(prev_at) AS prev_at, ${PREV_COLUMNS.map((c) => `${ms(c)} AS ${c}`).join(', ')}
     FROM sessions WHERE started_at >= to_timestamp($from) AND started_at < to_timestamp($to)
     ORDER BY site, started_at, session_id`,
    range,
  );
  const inserts = new Inserts(client, table, progress);
  for await (const rows of result.yieldRowObjectJs()) {
    for (const r of rows) {
      const prevAt = r['prev_at'] === null ? null : Number(r['prev_at']);
      const row = visitRowOf({
        site: r['site'] as string,
        sessionId: r['session_id'] as bigint,
        visitor: r['visitor'] as string,
        visitorKey: r['visitor_key'] as bigint,
        start: Number(r['start']),
        lastTs: Number(r['last_ts']),
        end: Number(r['end']),
        pageviews: Number(r['pageviews']),
        events: Number(r['events']),
        dims: VISIT_DIMS.map((c) => (r[c] as string | null) ?? null),
        exit: (r['exit_page'] as string | null) ?? null,
        prevAt,
        prevs: PREV_COLUMNS.map((c) => {
          const v = r[c];
          if (v === null || v === undefined) return prevAt;
          return Number(v) < 0 ? null : Number(v);
        }),
      });
      await inserts.add(JSON.stringify(row));
    }
  }
  await inserts.flush();
}

/** The rows of a DuckDB statement of JSON lines, sent in inserts of CHUNK rows. */
async function sendLines(
  client: ClickHouseClient,
  table: string,
  db: DuckDBConnection,
  select: string,
  params: Record<string, number>,
  progress: (rows: number) => void,
): Promise<void> {
  const result = Object.keys(params).length > 0 ? await db.stream(select, params) : await db.stream(select);
  const inserts = new Inserts(client, table, progress);
  for await (const rows of result.yieldRowsJs()) for (const [line] of rows) await inserts.add(line as string);
  await inserts.flush();
}

/** JSON lines gathered into inserts of CHUNK rows, each told to `progress` once sent. */
class Inserts {
  #lines: string[] = [];
  #sent = 0;

  constructor(
    readonly client: ClickHouseClient,
    readonly table: string,
    readonly progress: (rows: number) => void,
  ) {}

  async add(line: string): Promise<void> {
    this.#lines.push(line);
    if (this.#lines.length >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#lines.length === 0) return;
    await send(this.client, this.table, this.#lines);
    this.#sent += this.#lines.length;
    this.#lines = [];
    this.progress(this.#sent);
  }
}

async function send(client: ClickHouseClient, table: string, lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const result = await client.exec({
    query: `INSERT INTO ${table} FORMAT JSONEachRow`,
    values: Readable.from([`${lines.join('\n')}\n`]),
    clickhouse_settings: COPY_SETTINGS,
  });
  for await (const _ of result.stream) {
    // read to the end so the socket is free
  }
}

async function countsOf(client: ClickHouseClient): Promise<CopySummary['counts']> {
  const [row] = await readRows<Record<string, string>>(
    client,
    `SELECT (SELECT sum(sign) FROM events) AS events, (SELECT sum(sign) FROM sessions) AS sessions,
       (SELECT sum(hits) FROM crawl_counters) AS crawls, (SELECT sum(hits) FROM bot_counters) AS bots,
       (SELECT uniqExact(stream) FROM stream_positions) AS streams`,
    {},
  );
  return {
    events: Number(row?.['events'] ?? 0),
    sessions: Number(row?.['sessions'] ?? 0),
    crawls: Number(row?.['crawls'] ?? 0),
    bots: Number(row?.['bots'] ?? 0),
    streams: Number(row?.['streams'] ?? 0),
  };
}

async function duckCounts(db: DuckDBConnection): Promise<CopySummary['counts']> {
  const result = await db.runAndReadAll(
    `SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM sessions) AS sessions,
       (SELECT coalesce(sum(hits), 0) FROM crawl_counters) AS crawls, (SELECT coalesce(sum(hits), 0) FROM bot_counters) AS bots,
       (SELECT count(*) FROM stream_positions) AS streams`,
  );
  const row = result.getRowObjectsJS()[0] as Record<string, bigint | number>;
  const n = (k: string) => Number(row[k] ?? 0);
  return {
    events: n('events'),
    sessions: n('sessions'),
    crawls: n('crawls'),
    bots: n('bots'),
    streams: n('streams'),
  };
}
