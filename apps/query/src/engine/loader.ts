import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, timestampTZValue } from '@duckdb/node-api';
import type { WalBotDrop, WalCrawl, WalRecord } from '@footfall/schema';
import { type Assignment, VisitBatch, type VisitRow } from '../visits/engine.ts';
import { eventTime, type LoadEvent, VISIT_GAP_MS } from '../visits/model.ts';
import { type ReplayGroup, replay, type StoredEvent, type StoredVisit } from '../visits/replay.ts';
import type { VisitorStore } from '../visits/store.ts';
import {
  APPLY_EVENT_FIXES_SQL,
  BATCH_VISITS_SQL,
  CARRIES_TABLE_SQL,
  DELETE_BATCH_VISITS_SQL,
  DELETE_REPLAYED_VISITS_SQL,
  EVENT_FIXES_TABLE_SQL,
  INSERT_BATCH_VISITS_SQL,
  INSERT_EVENTS_SQL,
  PREV_COLUMNS,
  REPLAY_EVENTS_SQL,
  REPLAY_FROM_TABLE_SQL,
  REPLAY_VISITS_SQL,
  STORED_COPIES_SQL,
  TOUCH_CARRIES_SQL,
  TOUCH_REPLAYED_SQL,
  UPSERT_CARRIES_SQL,
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

const instant = (ms: number) => timestampTZValue(BigInt(Math.floor(ms)) * 1000n);

/** The stored time of a visit dimension's previous visit in the visits file: -1 for none, null for "as prev_at". */
const filePrev = (prev: number | null, prevAt: number | null): number | null =>
  prev === prevAt ? null : prev === null ? -1 : prev;

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
  async apply(batch: Batch): Promise<BatchResult> {
    const loading = await this.begin();
    try {
      await loading.add(batch.records);
      return await loading.commit();
    } catch (error) {
      loading.abort();
      throw error;
    }
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

/** Counts per key, for crawl and bot counters. */
class Counter<T> {
  readonly counts = new Map<string, { row: T; n: number }>();
  add(key: string, row: T): void {
    const c = this.counts.get(key);
    if (c === undefined) this.counts.set(key, { row, n: 1 });
    else c.n++;
  }
}

/**
 * One batch being loaded. `add` runs the visit rules on each slice of records as it comes and
 * writes the events to the batch's events file; `commit` writes everything in one transaction.
 * Nothing is held per event in memory but the ids (for duplicates inside the batch).
 */
export class LoadingBatch {
  readonly #result: BatchResult = {
    events: 0,
    duplicates: 0,
    replayed: 0,
    crawls: 0,
    botDrops: 0,
    committed: false,
  };
  readonly #next = new Map<string, bigint>();
  readonly #ids = new Set<string>();
  /** events written to the events file (stored copies among them are not inserted) */
  #staged = 0;
  readonly #visits: VisitBatch;
  readonly #eventsFile: string;
  #eventsFd: number | undefined;
  #minAt = Number.POSITIVE_INFINITY;
  /** per site and visitor, the earliest new event (a replay starts no later) */
  readonly #firstAt = new Map<string, number>();
  readonly #crawls = new Counter<WalCrawl>();
  readonly #bots = new Counter<WalBotDrop>();
  #done = false;

  constructor(
    readonly loader: Loader,
    readonly positions: ReadonlyMap<string, bigint>,
    readonly generation: number,
    readonly onCommitted: (generation: number) => void,
    readonly onStoreFailed: () => void,
  ) {
    this.#visits = new VisitBatch(loader.store);
    this.#eventsFile = join(loader.dir, `events-${process.pid}-${generation}.json`);
  }

  #keyOf(visitor: string): bigint {
    return this.loader.store.keyOf(visitor);
  }

  /** Runs the visit rules on a slice of records and writes its events to the batch's file. */
  async add(records: readonly BatchRecord[]): Promise<void> {
    const events: { e: LoadEvent; ts: number; text: string | undefined }[] = [];
    for (const { stream, seq, record, text } of records) {
      const position = this.positions.get(stream);
      if (position !== undefined && seq <= position) {
        this.#result.replayed++;
        continue;
      }
      const seen = this.#next.get(stream);
      if (seen === undefined || seq > seen) this.#next.set(stream, seq);
      if (record.t === 'event') {
        const key = `${record.site}\n${record.id}`;
        if (this.#ids.has(key)) {
          this.#result.duplicates++;
          continue;
        }
        this.#ids.add(key);
        events.push({ e: record as LoadEvent, ts: eventTime(record), text });
      } else if (record.t === 'crawl') {
        this.#crawls.add(
          [
            record.site,
            record.day,
            record.robot,
            record.robotKind,
            record.path,
            statusClass(record.status),
          ].join('\n'),
          record,
        );
        this.#result.crawls++;
      } else {
        this.#bots.add([record.site, record.day, record.kind].join('\n'), record);
        this.#result.botDrops++;
      }
    }
    if (events.length === 0) return;
    for (const { ts } of events) if (ts < this.#minAt) this.#minAt = ts;
    // the rules walk each visitor's events in time order: most slices are, this makes sure
    events.sort((a, b) => a.ts - b.ts || (a.e.id < b.e.id ? -1 : a.e.id > b.e.id ? 1 : 0));
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
    if (this.#next.size === 0) {
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
      if (visits.carries.length > 0) {
        await c.run('DELETE FROM visit_carries WHERE last_at < $1', [instant(this.#minAt - 3 * DAY_MS)]);
      }
      let rows = [...visits.rows.values()];
      if (visits.replay.size > 0) {
        const replayed = await this.#replay();
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
      for (const [stream, seq] of this.#next) {
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
        const d = r.dims;
        const line: Record<string, unknown> = {
          site: r.site,
          session_id: 0,
          visitor: r.visitor,
          visitor_key: 0,
          started_at: r.start,
          last_at: r.lastTs,
          ended_at: r.end,
          duration_ms: r.end - r.start,
          pageviews: r.pageviews,
          events: r.events,
          channel: d[0],
          assistant: d[16],
          referrer: d[1],
          entry_page: d[2],
          exit_page: r.exit,
          utm_source: d[5],
          utm_medium: d[6],
          utm_campaign: d[4],
          utm_term: d[7],
          utm_content: d[8],
          country: d[9],
          region: d[10],
          city: d[11],
          device: d[12],
          browser: d[13],
          os: d[14],
          language: d[15],
          prev_at: r.prevAt,
        };
        PREV_COLUMNS.forEach((column, i) => {
          line[column] = filePrev(r.prevs[i] ?? null, r.prevAt);
        });
        // 64-bit ids as JSON numbers, exactly
        lines.push(
          JSON.stringify(line)
            .replace('"session_id":0', `"session_id":${r.sessionId}`)
            .replace('"visitor_key":0', `"visitor_key":${r.visitorKey}`),
        );
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
    for (const { row, n } of this.#crawls.counts.values()) {
      await c.run(
        `INSERT INTO crawl_counters VALUES ($1, $2::DATE, $3, $4, $5, $6, $7)
         ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
        [row.site, row.day, row.robot, row.robotKind, row.path, statusClass(row.status), n],
      );
    }
    for (const { row, n } of this.#bots.counts.values()) {
      await c.run(
        `INSERT INTO bot_counters VALUES ($1, $2::DATE, $3, $4)
         ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
        [row.site, row.day, row.kind, n],
      );
    }
  }

  /**
   * Rebuilds the visitors left to the replay (visits/replay.ts): reads their visits and events
   * from where a change could start (inside this transaction: the batch's events are in), replays
   * them, writes the changed events back and returns their visit rows and who they are (by site
   * and id). The stored visits it rebuilt are deleted first.
   */
  async #replay(): Promise<{ rows: VisitRow[]; visitors: Set<string> }> {
    const c = this.loader.connection;
    const store = this.loader.store;
    const groups = replayGroups(this.#visits, this.#firstAt);
    // `lo` per group: the start of the earliest stored visit of the group that ends no more than
    // 30 minutes before the group's earliest new event (it could change), or that event itself
    for (const group of groups) group.lo = group.since;
    // each visitor's group, by site and id and by site and key: what is read back is sorted out in
    // one pass, however many groups a batch has
    const groupOf = new Map<string, Group>();
    const byKey = new Map<string, { group: Group; visitor: string }>();
    for (const group of groups) {
      for (const visitor of group.visitors) {
        groupOf.set(`${group.site}\u0000${visitor}`, group);
        byKey.set(`${group.site}\u0000${store.keyOf(visitor)}`, { group, visitor });
      }
    }
    let visits: StoredVisit[] = [];
    for (let round = 0; round < 4; round++) {
      await this.#replayFrom(groups, (g) => g.lo - VISIT_GAP_MS);
      visits = (await c.runAndReadAll(REPLAY_VISITS_SQL)).getRowObjectsJS().map(storedVisit);
      let moved = false;
      for (const v of visits) {
        const group = groupOf.get(`${v.site}\u0000${v.visitor}`);
        if (group !== undefined && v.start < group.lo) {
          group.lo = v.start;
          moved = true;
        }
      }
      if (!moved) break;
    }
    await this.#replayFrom(groups, (g) => g.lo);
    const inputs = new Map<Group, ReplayGroup>();
    for (const group of groups) {
      const { site, visitors, links, lo } = group;
      inputs.set(group, { site, visitors, links, lo, visits: [], events: [] });
    }
    for (const v of visits) {
      const group = groupOf.get(`${v.site}\u0000${v.visitor}`);
      if (group !== undefined && v.start >= group.lo) inputs.get(group)!.visits.push(v);
    }
    for (const row of (await c.runAndReadAll(REPLAY_EVENTS_SQL)).getRowObjectsJS()) {
      const of = byKey.get(`${row.site as string}\u0000${row.visitor_key as bigint}`);
      if (of !== undefined) inputs.get(of.group)!.events.push(storedEvent(row, of.visitor));
    }
    const rows: VisitRow[] = [];
    const fixes: (Assignment & { site: string; id: string; ts: number })[] = [];
    for (const [group, input] of inputs) {
      const out = replay(store, input, (visitor) => store.committedCopy(group.site, visitor));
      for (const record of out.records) store.replace(record);
      rows.push(...out.rows);
      fixes.push(...out.updates);
    }
    await c.run(TOUCH_REPLAYED_SQL, [this.generation]);
    await this.#replayFrom(groups, (g) => g.lo);
    await c.run(DELETE_REPLAYED_VISITS_SQL);
    if (fixes.length > 0) {
      await c.run(EVENT_FIXES_TABLE_SQL);
      const appender = await c.createAppender('event_fixes', 'main', 'temp');
      let from = Number.POSITIVE_INFINITY;
      try {
        for (const f of fixes) {
          if (f.ts < from) from = f.ts;
          appender.appendVarchar(f.site);
          appender.appendVarchar(f.id);
          appender.appendTimestampTZ(instant(f.ts));
          appender.appendUBigInt(f.visitorKey);
          if (f.sessionId === null) appender.appendNull();
          else appender.appendUBigInt(f.sessionId);
          if (f.visitStart === null) appender.appendNull();
          else appender.appendTimestampTZ(instant(f.visitStart));
          appender.appendBoolean(f.first);
          if (f.prevViewAt === null) appender.appendNull();
          else appender.appendTimestampTZ(instant(f.prevViewAt));
          appender.endRow();
        }
      } finally {
        appender.closeSync();
      }
      await c.run(APPLY_EVENT_FIXES_SQL, [instant(from)]);
    }
    for (const group of groups) {
      const from = this.#visits.changedFrom.get(group.site);
      if (from === undefined || group.lo < from) this.#visits.changedFrom.set(group.site, group.lo);
    }
    return { rows, visitors: new Set(groupOf.keys()) };
  }

  async #replayFrom(groups: Group[], since: (g: Group) => number): Promise<void> {
    const c = this.loader.connection;
    await c.run(REPLAY_FROM_TABLE_SQL);
    const appender = await c.createAppender('replay_from', 'main', 'temp');
    try {
      for (const g of groups) {
        for (const visitor of g.visitors) {
          appender.appendVarchar(g.site);
          appender.appendVarchar(visitor);
          appender.appendUBigInt(this.#keyOf(visitor));
          appender.appendTimestampTZ(instant(since(g)));
          appender.endRow();
        }
      }
    } finally {
      appender.closeSync();
    }
  }
}

interface Group {
  site: string;
  visitors: string[];
  links: Map<string, string>;
  /** the group's earliest new event */
  since: number;
  lo: number;
}

/**
 * The replay's groups: each visitor left to it, with the visitors carry links tie it to (a day
 * before's id and the new-day ids that carried it are rebuilt together).
 */
function replayGroups(visits: VisitBatch, firstAt: ReadonlyMap<string, number>): Group[] {
  const groups: Group[] = [];
  const store = visits.store;
  // the batch's carry links by each of their two ids
  const carriesOf = new Map<string, { p: string; x: string }[]>();
  for (const c of visits.carries) {
    for (const v of [c.p, c.x]) {
      const k = `${c.site}\u0000${v}`;
      const list = carriesOf.get(k);
      if (list === undefined) carriesOf.set(k, [c]);
      else list.push(c);
    }
  }
  for (const [site, who] of visits.replay) {
    const seen = new Set<string>();
    for (const start of who) {
      if (seen.has(start)) continue;
      const members: string[] = [];
      const links = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0) {
        const v = queue.pop()!;
        if (seen.has(v)) continue;
        seen.add(v);
        members.push(v);
        const committed = store.committedCopy(site, v);
        const edited = store.edit(site, v);
        for (const r of [committed, edited]) {
          if (r.link) {
            links.set(v, r.link.p);
            queue.push(r.link.p);
          }
          for (const x of r.carried ?? []) queue.push(x);
        }
        for (const c of carriesOf.get(`${site}\u0000${v}`) ?? []) {
          if (c.x === v) {
            queue.push(c.p);
            links.set(c.x, c.p);
          }
          if (c.p === v) queue.push(c.x);
        }
      }
      let since = Number.POSITIVE_INFINITY;
      for (const v of members)
        since = Math.min(since, firstAt.get(`${site}\u0000${v}`) ?? Number.POSITIVE_INFINITY);
      if (since === Number.POSITIVE_INFINITY) continue; // nothing new of them after all
      groups.push({ site, visitors: members, links, since, lo: since });
    }
  }
  return groups;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function storedVisit(row: Record<string, unknown>): StoredVisit {
  return {
    site: row.site as string,
    visitor: row.visitor as string,
    sessionId: row.session_id as bigint,
    start: Number(row.started_at),
    prevAt: num(row.prev_at),
    prevs: PREV_COLUMNS.map((c) => {
      const v = row[c];
      if (v === null || v === undefined) return 'prev_at' as const;
      const n = Number(v);
      return n < 0 ? null : n;
    }),
  };
}

function storedEvent(row: Record<string, unknown>, visitor: string): StoredEvent {
  return {
    t: 'event',
    site: row.site as string,
    id: row.id as string,
    at: Number(row.ts),
    ts: Number(row.ts),
    kind: row.kind as string,
    name: row.name as string | null,
    path: row.path as string,
    visitor,
    storedVisitor: visitor,
    idMode: '',
    channel: row.channel as string,
    assistant: row.assistant as string | null,
    referrerHost: row.referrer_host as string | null,
    utmSource: row.utm_source as string | null,
    utmMedium: row.utm_medium as string | null,
    utmCampaign: row.utm_campaign as string | null,
    utmTerm: row.utm_term as string | null,
    utmContent: row.utm_content as string | null,
    country: row.country as string | null,
    region: row.region as string | null,
    city: row.city as string | null,
    device: row.device as string,
    browser: row.browser as string | null,
    os: row.os as string | null,
    language: row.language as string | null,
    sessionId: (row.session_id as bigint | null) ?? null,
    visitStart: num(row.visit_start),
    first: row.visit_first === true,
    prevViewAt: num(row.prev_view_at),
  };
}

/** Status 1xx..5xx becomes its class 1..5; an unknown or odd status is 0. */
export function statusClass(status: number | null | undefined): number {
  if (status === null || status === undefined) return 0;
  const cls = Math.floor(status / 100);
  return cls >= 1 && cls <= 5 ? cls : 0;
}
