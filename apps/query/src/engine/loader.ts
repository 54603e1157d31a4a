import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { WalRecord } from '@footfall/schema';
import { type Assignment, VisitBatch, type VisitRow } from '../visits/engine.ts';
import type { LoadEvent } from '../visits/model.ts';
import type { VisitorStore } from '../visits/store.ts';
import { BatchIntake, statusClass } from './batch-intake.ts';
import { applyWhole } from './engine.ts';
import { instant, replayBatch } from './load-replay.ts';
import {
  BATCH_VISITS_SQL,
  CARRIES_TABLE_SQL,
  DELETE_BATCH_VISITS_SQL,
  INSERT_BATCH_VISITS_SQL,
  INSERT_EVENTS_SQL,
  STORED_COPIES_SQL,
  TOUCH_CARRIES_SQL,
  UPSERT_CARRIES_SQL,
  visitFileLine,
} from './load-sql.ts';
import { rebuildVisitorStore, repairVisitorStore } from './visitor-rebuild.ts';

/** One WAL record with where it came from. */
export interface BatchRecord {
  stream: string;
  seq: bigint;
  record: WalRecord;
  /** the record's JSON payload as the WAL holds it (saves encoding it again), when the reader has it */
  text?: string;
}

export interface Batch {
  records: readonly BatchRecord[];
}

/** What one applied batch did. */
export interface BatchResult {
  /** events stored (after replay skipping and id dedupe) */
  events: number;
  /** events dropped because their id was already stored (or repeated in the batch) */
  duplicates: number;
  /** records skipped because their seq was at or below the stream's stored position */
  replayed: number;
  crawls: number;
  botDrops: number;
  /** whether a transaction was committed (false when the whole batch was already applied) */
  committed: boolean;
}

/**
 * How far back, from the batch's earliest event, stored ids are compared with incoming ones.
 * The tracker retries for up to 24 hours with the same id and the same event time (receive time
 * minus queue age), so the original is always within this window of its copy.
 */
export const DEDUPE_WINDOW_MS = 48 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Test seam: called inside the transaction right before COMMIT. */
export type BeforeCommit = () => Promise<void> | void;

/** Reads the stored position of every stream. */
export async function readPositions(connection: DuckDBConnection): Promise<Map<string, bigint>> {
  const rows = (await connection.runAndReadAll('SELECT stream, seq FROM stream_positions')).getRowObjectsJS();
  const positions = new Map<string, bigint>();
  for (const row of rows) {
    const { stream, seq } = row;
    if (typeof stream === 'string' && typeof seq === 'bigint') positions.set(stream, seq);
  }
  return positions;
}

export async function prepareWriter(connection: DuckDBConnection): Promise<void> {
  // nothing lasts between batches: each makes its temp tables
  void connection;
}

/**
 * Rolls the batch's transaction back. DuckDB has already ended a transaction that an error such as
 * Out of Memory aborted, and then refuses the ROLLBACK: the original error is the one to report.
 */
export async function rollback(connection: DuckDBConnection): Promise<void> {
  try {
    await connection.run('ROLLBACK');
  } catch {
    // no transaction is active any more
  }
}

/** Runs `work` in one transaction on `connection`: committed when it resolves, else rolled back. */
export async function inTransaction(connection: DuckDBConnection, work: () => Promise<void>): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await work();
    await connection.run('COMMIT');
  } catch (error) {
    await rollback(connection);
    throw error;
  }
}

/**
 * Loads WAL records into DuckDB (engine README, "Loading"). The visit rules run in memory, in
 * JavaScript, on each visitor's record (apps/query/src/visits); DuckDB only appends the finished
 * events and replaces the visits they changed, so a batch costs what its events cost, not what the
 * database holds. A batch and each stream's new position commit in ONE transaction; the visitor
 * store is written right after with the batch's generation, and repaired from the database when a
 * crash fell between the two.
 */
export class Loader {
  #generation = 0;
  #storeId = '';
  #needsRepair = false;

  constructor(
    readonly connection: DuckDBConnection,
    readonly store: VisitorStore,
    readonly dir: string,
    readonly beforeCommit?: BeforeCommit,
  ) {}

  /**
   * Checks the visitor store against the database: rebuilds it when it is missing, of another
   * database, or ahead of it (a restored backup); repairs it when it is behind (a crash fell
   * between the database's commit and its own). The reads run on `reader`, so the writer and
   * reports go on meanwhile; no batch may load until `open` has resolved. The store's identity is
   * then written on the writer, in `write` (the engine's queue of writer work).
   */
  async open(
    reader: DuckDBConnection,
    write: (work: () => Promise<void>) => Promise<void>,
  ): Promise<{ rebuilt: boolean; repaired: number }> {
    mkdirSync(this.dir, { recursive: true });
    const rows = (
      await reader.runAndReadAll('SELECT store_id, generation FROM loader_state')
    ).getRowObjectsJS();
    const db = rows[0] as { store_id: string; generation: bigint } | undefined;
    const mine = this.store.state;
    const generation = db === undefined ? 0 : Number(db.generation);
    if (
      db === undefined ||
      mine.storeId !== db.store_id ||
      mine.generation === null ||
      mine.generation > generation
    ) {
      const storeId = this.store.reset();
      await rebuildVisitorStore(reader, this.store, generation);
      await write(() =>
        inTransaction(this.connection, async () => {
          await this.connection.run('DELETE FROM loader_state');
          await this.connection.run('INSERT INTO loader_state VALUES ($1, $2)', [storeId, generation]);
        }),
      );
      this.#storeId = storeId;
      this.#generation = generation;
      return { rebuilt: true, repaired: 0 };
    }
    let repaired = 0;
    if (mine.generation < generation)
      repaired = await repairVisitorStore(reader, this.store, mine.generation, generation);
    this.#storeId = db.store_id;
    this.#generation = generation;
    return { rebuilt: false, repaired };
  }

  /** Loads one batch of records (see LoadingBatch). */
  apply(batch: Batch): Promise<BatchResult> {
    return applyWhole(() => this.begin(), batch);
  }

  /** Starts a batch: add slices of records to it, then commit it (or abort it). */
  async begin(): Promise<LoadingBatch> {
    if (this.#needsRepair) {
      await repairVisitorStore(
        this.connection,
        this.store,
        this.store.state.generation ?? 0,
        this.#generation,
      );
      this.#needsRepair = false;
    }
    const positions = await readPositions(this.connection);
    return new LoadingBatch(
      this,
      positions,
      this.#generation + 1,
      (committed) => {
        this.#generation = committed;
      },
      () => {
        this.#needsRepair = true;
      },
    );
  }

  get generation(): number {
    return this.#generation;
  }

  get storeId(): string {
    return this.#storeId;
  }
}

/**
 * One batch being loaded. `add` runs the visit rules on each slice of records as it comes and
 * writes the events to the batch's events file; `commit` writes everything in one transaction.
 * Nothing is held per event in memory but the ids (for duplicates inside the batch).
 */
export class LoadingBatch {
  readonly #intake: BatchIntake;
  readonly #result: BatchResult;
  /** events written to the events file (stored copies among them are not inserted) */
  #staged = 0;
  readonly #visits: VisitBatch;
  readonly #eventsFile: string;
  #eventsFd: number | undefined;
  #minAt = Number.POSITIVE_INFINITY;
  /** per site and visitor, the earliest new event (a replay starts no later) */
  readonly #firstAt = new Map<string, number>();
  #done = false;

  constructor(
    readonly loader: Loader,
    readonly positions: ReadonlyMap<string, bigint>,
    readonly generation: number,
    readonly onCommitted: (generation: number) => void,
    readonly onStoreFailed: () => void,
  ) {
    this.#intake = new BatchIntake(positions);
    this.#result = this.#intake.result;
    this.#visits = new VisitBatch(loader.store);
    this.#eventsFile = join(loader.dir, `events-${process.pid}-${generation}.json`);
  }

  #keyOf(visitor: string): bigint {
    return this.loader.store.keyOf(visitor);
  }

  /** Runs the visit rules on a slice of records and writes its events to the batch's file. */
  async add(records: readonly BatchRecord[]): Promise<void> {
    const events = this.#intake.take(records);
    if (events.length === 0) return;
    for (const { ts } of events) if (ts < this.#minAt) this.#minAt = ts;
    const lines: string[] = [];
    for (const { e, ts, text } of events) {
      const who = `${e.site}\u0000${e.visitor}`;
      const first = this.#firstAt.get(who);
      if (first === undefined || ts < first) this.#firstAt.set(who, ts);
      const a = this.#visits.event(e, ts);
      lines.push(this.#line(e, ts, text, a));
    }
    this.#staged += lines.length;
    this.#eventsFd ??= openSync(this.#eventsFile, 'w');
    writeSync(this.#eventsFd, lines.join(''));
  }

  /**
   * The batch's events already stored (an id seen within the dedupe window before the batch's
   * earliest event): one query for the whole batch, before its events are inserted. The rules ran
   * on them as if new (a stored copy is rare: a tracker's retry), so their visitors go to the
   * replay, which rebuilds them from what is stored, and they are not inserted. Returns how many.
   */
  async #storedCopies(): Promise<number> {
    const c = this.loader.connection;
    await c.run(STORED_COPIES_SQL, [this.#eventsFile, instant(this.#minAt - DEDUPE_WINDOW_MS)]);
    const copies = (await c.runAndReadAll('SELECT site, visitor FROM batch_copies')).getRows();
    for (const [site, visitor] of copies) this.#visits.leaveToReplay(site as string, visitor as string);
    return copies.length;
  }

  /** An event's line in the events file: what the rules gave it, then its WAL payload's fields. */
  #line(e: LoadEvent, ts: number, text: string | undefined, a: Assignment | null): string {
    const payload = text ?? JSON.stringify(e);
    const props =
      e.props === null || e.props === undefined ? '' : `"_props":${JSON.stringify(JSON.stringify(e.props))},`;
    if (a === null) return `{"_ts":${ts},"_vk":${this.#keyOf(e.visitor)},${props}${payload.slice(1)}\n`;
    return (
      `{"_ts":${ts},"_vk":${a.visitorKey},"_sid":${a.sessionId},"_vs":${a.visitStart},` +
      `"_vf":${a.first},"_pva":${a.prevViewAt},${props}${payload.slice(1)}\n`
    );
  }

  /** Writes the batch in one transaction with the streams' positions, then the visitor store. */
  async commit(): Promise<BatchResult> {
    const c = this.loader.connection;
    this.#done = true;
    this.#closeFile();
    if (this.#intake.next.size === 0) {
      this.#cleanup();
      this.loader.store.discard();
      return this.#result;
    }
    const visits = this.#visits;
    await c.run('BEGIN TRANSACTION');
    try {
      if (this.#staged > 0) {
        const copies = await this.#storedCopies();
        this.#result.duplicates += copies;
        this.#result.events = this.#staged - copies;
      }
      visits.finish();
      if (this.#result.events > 0) await c.run(INSERT_EVENTS_SQL, [this.#eventsFile]);
      const links = new Map<string, { site: string; p: string; x: string; at: number }>();
      for (const link of visits.carries) {
        const k = `${link.site}\u0000${link.p}\u0000${link.x}`;
        const known = links.get(k);
        if (known === undefined || link.at > known.at) links.set(k, link);
      }
      if (links.size > 0) {
        await c.run(CARRIES_TABLE_SQL);
        const appender = await c.createAppender('batch_carries', 'main', 'temp');
        try {
          for (const { site, p, x, at } of links.values()) {
            appender.appendVarchar(site);
            appender.appendVarchar(p);
            appender.appendVarchar(x);
            appender.appendTimestampTZ(instant(at));
            appender.endRow();
          }
        } finally {
          appender.closeSync();
        }
        await c.run(UPSERT_CARRIES_SQL);
        await c.run(TOUCH_CARRIES_SQL, [this.generation]);
      }
      if (visits.orphans.size > 0) {
        // their records changed with no visit row of this batch: a repair must find them
        const appender = await c.createAppender('loader_touched');
        try {
          for (const { site, visitor } of visits.orphans.values()) {
            appender.appendUBigInt(BigInt(this.generation));
            appender.appendVarchar(site);
            appender.appendVarchar(visitor);
            appender.endRow();
          }
        } finally {
          appender.closeSync();
        }
      }
      if (visits.carries.length > 0) {
        await c.run('DELETE FROM visit_carries WHERE last_at < $1', [instant(this.#minAt - 3 * DAY_MS)]);
      }
      let rows = [...visits.rows.values()];
      if (visits.replay.size > 0) {
        const replayed = await replayBatch(c, this.loader.store, visits, this.#firstAt, this.generation);
        // every visit of a rebuilt visitor that this batch touched is the replay's to write: a
        // visitor tied in by a carry link only may have a row of the batch's own
        rows = rows.filter((row) => !replayed.visitors.has(`${row.site}\u0000${row.visitor}`));
        rows.push(...replayed.rows);
      }
      if (rows.length > 0) await this.#writeVisits(rows);
      for (const [site, from] of visits.changedFrom) {
        await c.run('DELETE FROM rollup_days WHERE site = $1 AND day_end > $2', [site, instant(from)]);
      }
      await this.#writeCounters();
      for (const [stream, seq] of this.#intake.next) {
        await c.run(
          `INSERT INTO stream_positions VALUES ($1, $2)
           ON CONFLICT (stream) DO UPDATE SET seq = greatest(seq, excluded.seq)`,
          [stream, seq],
        );
      }
      await c.run('UPDATE loader_state SET generation = $1', [this.generation]);
      await this.loader.beforeCommit?.();
      await c.run('COMMIT');
    } catch (error) {
      await rollback(c);
      this.loader.store.discard();
      this.#cleanup();
      throw error;
    }
    this.#result.committed = true;
    this.onCommitted(this.generation);
    this.#cleanup();
    try {
      this.loader.store.flush(this.generation);
    } catch {
      // the database has the batch; the store is repaired from it before the next one
      this.loader.store.discard();
      this.onStoreFailed();
    }
    return this.#result;
  }

  /** Forgets the batch (it was not committed). */
  abort(): void {
    if (!this.#done) {
      this.#done = true;
      this.#closeFile();
    }
    this.loader.store.discard();
    this.#cleanup();
  }

  #closeFile(): void {
    if (this.#eventsFd !== undefined) {
      closeSync(this.#eventsFd);
      this.#eventsFd = undefined;
    }
  }

  #cleanup(): void {
    rmSync(this.#eventsFile, { force: true });
    rmSync(this.#visitsFile, { force: true });
  }

  get #visitsFile(): string {
    return join(this.loader.dir, `visits-${process.pid}-${this.generation}.json`);
  }

  async #writeVisits(rows: VisitRow[]): Promise<void> {
    const c = this.loader.connection;
    const fd = openSync(this.#visitsFile, 'w');
    try {
      const lines: string[] = [];
      for (const r of rows) {
        lines.push(visitFileLine(r));
      }
      writeSync(fd, `${lines.join('\n')}\n`);
    } finally {
      closeSync(fd);
    }
    await c.run(BATCH_VISITS_SQL, [this.#visitsFile, this.generation]);
    await c.run(DELETE_BATCH_VISITS_SQL);
    await c.run(INSERT_BATCH_VISITS_SQL);
  }

  async #writeCounters(): Promise<void> {
    const c = this.loader.connection;
    for (const { row, n } of this.#intake.crawls.counts.values()) {
      await c.run(
        `INSERT INTO crawl_counters VALUES ($1, $2::DATE, $3, $4, $5, $6, $7)
         ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
        [row.site, row.day, row.robot, row.robotKind, row.path, statusClass(row.status), n],
      );
    }
    for (const { row, n } of this.#intake.bots.counts.values()) {
      await c.run(
        `INSERT INTO bot_counters VALUES ($1, $2::DATE, $3, $4)
         ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
        [row.site, row.day, row.kind, n],
      );
    }
  }
}
