import { createHash, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { VisitBatch, visitRow } from '../../visits/engine.ts';
import { sessionIdOf } from '../../visits/model.ts';
import type { VisitorStore } from '../../visits/store.ts';
import { BatchIntake, statusClass } from '../batch-intake.ts';
import { applyWhole, type BatchWriter } from '../engine.ts';
import { type Batch, type BatchRecord, type BatchResult, DEDUPE_WINDOW_MS } from '../loader.ts';
import { type Replayed, replayStaged } from './load-replay.ts';
import { readRows } from './reads.ts';
import { cancelOf, chTime, eventRow, type Row, visitRowOf } from './rows.ts';
import { type Manifest, SpoolWriter, spooledBatches } from './spool.ts';
import { INSERT_SETTINGS, insertRows, stagedLines } from './staging.ts';

/**
 * Loads WAL records into ClickHouse (DESIGN.md, section 4). The visit rules run in memory on the
 * visitor store, as for DuckDB (loader.ts); ClickHouse has no transactions, so a batch is made
 * exactly once by its order of work:
 *
 * 1. every read a batch needs (stored copies of its events, a replay's stored visits and events)
 *    happens before anything of it is written;
 * 2. its inserts are written to a spool on the local disk and made durable;
 * 3. the visitor store is written with the batch's generation;
 * 4. the inserts are sent in order, each under its own deduplication token, the streams' positions
 *    last: they are the batch's commit.
 *
 * A crash before 3 leaves nothing sent (the spool is dropped, the batch is loaded again from the
 * WAL); after 3 the spool is sent again, byte for byte, and ClickHouse keeps each block once. The
 * store is then never behind the database, so it needs no repair.
 *
 * Visits and events are versioned rows (schema.ts): rewriting one writes the -1 of the state
 * stored before beside the new +1. A visit going on in order cancels the row its committed record
 * gives (rows.ts: the same state always gives the same row); a replay cancels exactly the rows it
 * read.
 */

/** A step of a batch, named for tests that stop it there (a crash). */
export type LoadStep = 'spooled' | 'stored' | `sent:${string}` | 'committed';

export interface ClickHouseLoaderOptions {
  client: ClickHouseClient;
  store: VisitorStore;
  /** the loader's own directory (the spool lives in it) */
  dir: string;
  /** test seam: called at each step of a batch; a throw stops it there as a crash would */
  step?: (step: LoadStep) => void;
  /** told when a batch's inserts start being sent (true) and when that ends (false) */
  sending?: (busy: boolean) => void;
}

/** The store cannot go on with this database, and rebuilding it from ClickHouse is not built yet. */
export class StoreMismatchError extends Error {}

export class ClickHouseLoader {
  #generation = 0;
  #storeId = '';
  /** a batch whose store is written but whose inserts have not all been sent */
  #pending: { dir: string; manifest: Manifest } | null = null;
  readonly spool: string;

  constructor(readonly o: ClickHouseLoaderOptions) {
    this.spool = join(o.dir, 'spool');
  }

  get store(): VisitorStore {
    return this.o.store;
  }

  get client(): ClickHouseClient {
    return this.o.client;
  }

  get generation(): number {
    return this.#generation;
  }

  /**
   * Resumes: the last committed generation from the streams' positions, a spooled batch whose
   * store was written sent again (else dropped), and the store checked against the database.
   */
  async open(): Promise<{ resent: boolean }> {
    mkdirSync(this.spool, { recursive: true });
    const committed = await this.#committedGeneration();
    const state = await readRows<{ value: string }>(
      this.client,
      "SELECT argMax(value, at) AS value FROM engine_state WHERE key = 'store_id' HAVING count() > 0",
      {},
    );
    const dbStoreId = state[0]?.value ?? null;
    const copy = await readRows<{ value: string }>(
      this.client,
      "SELECT argMax(value, at) AS value FROM engine_state WHERE key = 'copy' HAVING count() > 0",
      {},
    );
    if (copy[0]?.value.startsWith('running:')) {
      throw new StoreMismatchError(
        'a copy from DuckDB into this database is unfinished: run footfall engine copy --to clickhouse again to finish it',
      );
    }
    const mine = this.store.state;
    if (dbStoreId === null || mine.storeId !== dbStoreId || mine.generation === null) {
      if (committed > 0) {
        throw new StoreMismatchError(
          `the visitor store (${this.store.path}) is missing or belongs to another database, and ClickHouse holds ${committed} loaded batches: rebuilding the store from ClickHouse is not built yet`,
        );
      }
      const storeId = this.store.reset();
      this.store.writeAll([], 0);
      await insertRows(this.client, 'engine_state', [
        { key: 'store_id', value: storeId, at: chTime(Date.now()) },
      ]);
      this.#storeId = storeId;
    } else this.#storeId = mine.storeId;
    let resent = false;
    const generation = this.store.state.generation ?? 0;
    for (const spooled of spooledBatches(this.spool)) {
      if (
        spooled.generation === committed + 1 &&
        spooled.manifest !== null &&
        generation === spooled.generation
      ) {
        // the store has this batch: ClickHouse must have all of it
        await this.#send(spooled.dir, spooled.manifest);
        resent = true;
      } else rmSync(spooled.dir, { recursive: true, force: true });
    }
    this.#generation = await this.#committedGeneration();
    if (this.store.state.generation !== this.#generation) {
      throw new StoreMismatchError(
        `the visitor store (${this.store.path}) is at batch ${this.store.state.generation}, ClickHouse at ${this.#generation}: rebuilding the store from ClickHouse is not built yet`,
      );
    }
    return { resent };
  }

  async #committedGeneration(): Promise<number> {
    const rows = await readRows<{ g: number }>(
      this.client,
      'SELECT toUInt32(max(gen)) AS g FROM stream_positions',
      {},
    );
    return Number(rows[0]?.g ?? 0);
  }

  /** The last applied sequence number of every stream. */
  async positions(): Promise<Map<string, bigint>> {
    const rows = await readRows<{ stream: string; seq: string }>(
      this.client,
      'SELECT stream, max(seq) AS seq FROM stream_positions GROUP BY stream',
      {},
    );
    return new Map(rows.map((r) => [r.stream, BigInt(r.seq)]));
  }

  /** Loads one batch of records. */
  apply(batch: Batch): Promise<BatchResult> {
    return applyWhole(() => this.begin(), batch);
  }

  /** Starts a batch (a batch whose inserts could not all be sent is finished first). */
  async begin(): Promise<ClickHouseBatch> {
    if (this.#pending !== null) {
      const { dir, manifest } = this.#pending;
      await this.#send(dir, manifest);
      this.#pending = null;
      this.#generation = manifest.generation;
    }
    return new ClickHouseBatch(this, await this.positions(), this.#generation + 1);
  }

  step(step: LoadStep): void {
    this.o.step?.(step);
  }

  /**
   * Commits a spooled batch whose store is written: sends every insert in order under its token,
   * then removes the spool. Until that succeeds the batch stays pending (sent again first).
   */
  async commitSpooled(dir: string, manifest: Manifest): Promise<void> {
    this.#pending = { dir, manifest };
    this.step('stored');
    await this.#send(dir, manifest);
    this.#pending = null;
    this.#generation = manifest.generation;
  }

  async #send(dir: string, manifest: Manifest): Promise<void> {
    this.o.sending?.(true);
    try {
      await this.#sendAll(dir, manifest);
    } finally {
      this.o.sending?.(false);
    }
  }

  async #sendAll(dir: string, manifest: Manifest): Promise<void> {
    for (const insert of manifest.inserts) {
      this.step(`sent:${insert.file}`);
      const result = await this.client.exec({
        query: `INSERT INTO ${insert.table} FORMAT JSONEachRow`,
        values: createReadStream(join(dir, insert.file)),
        clickhouse_settings: { ...INSERT_SETTINGS, insert_deduplication_token: insert.token },
      });
      for await (const _ of result.stream) {
        // an insert answers nothing: read to the end so the socket is free
      }
    }
    this.step('committed');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lines handed to the spool at a time while the staging file is streamed into it. */
const SPOOL_CHUNK = 10_000;

/**
 * One batch being loaded into ClickHouse. `add` runs the visit rules on each slice and stages the
 * events' rows on disk; `commit` reads what it must, spools every insert, writes the store and
 * sends the spool.
 */
export class ClickHouseBatch implements BatchWriter {
  readonly #intake: BatchIntake;
  readonly #visits: VisitBatch;
  readonly #staging: string;
  #stagingFd: number | undefined;
  /** the batch's (site, id)s, as rows of the stored-copies scratch table */
  readonly #idsFile: string;
  #idsFd: number | undefined;
  readonly #attempt = randomUUID();
  #staged = 0;
  #minAt = Number.POSITIVE_INFINITY;
  readonly #firstAt = new Map<string, number>();

  constructor(
    readonly loader: ClickHouseLoader,
    positions: ReadonlyMap<string, bigint>,
    readonly generation: number,
  ) {
    this.#intake = new BatchIntake(positions);
    this.#visits = new VisitBatch(loader.store);
    this.#staging = join(loader.o.dir, `staging-${process.pid}-${generation}.jsonl`);
    this.#idsFile = join(loader.o.dir, `ids-${process.pid}-${generation}.jsonl`);
  }

  async add(records: readonly BatchRecord[]): Promise<void> {
    const events = this.#intake.take(records);
    if (events.length === 0) return;
    const store = this.loader.store;
    const lines: string[] = [];
    const ids: string[] = [];
    for (const { e, ts } of events) {
      if (ts < this.#minAt) this.#minAt = ts;
      const who = `${e.site}\u0000${e.visitor}`;
      const first = this.#firstAt.get(who);
      if (first === undefined || ts < first) this.#firstAt.set(who, ts);
      const a = this.#visits.event(e, ts);
      const row = eventRow(e, ts, a, store.keyOf(e.visitor), this.generation);
      const key = JSON.stringify([e.site, e.id, a?.visitor ?? e.visitor, e.visitor]);
      lines.push(`${key}\t${JSON.stringify(row)}`);
      ids.push(JSON.stringify({ attempt: this.#attempt, site: e.site, id: e.id }));
    }
    this.#staged += lines.length;
    this.#stagingFd ??= openSync(this.#staging, 'w');
    writeSync(this.#stagingFd, `${lines.join('\n')}\n`);
    this.#idsFd ??= openSync(this.#idsFile, 'w');
    writeSync(this.#idsFd, `${ids.join('\n')}\n`);
  }

  #closeFiles(): void {
    for (const fd of [this.#stagingFd, this.#idsFd]) if (fd !== undefined) closeSync(fd);
    this.#stagingFd = undefined;
    this.#idsFd = undefined;
  }

  async commit(): Promise<BatchResult> {
    const { loader } = this;
    const { store } = loader;
    const result = this.#intake.result;
    if (this.#intake.next.size === 0) {
      this.#cleanup();
      store.discard();
      return result;
    }
    let spool: SpoolWriter | undefined;
    try {
      this.#closeFiles();
      // 1. reads: stored copies of the batch's events, then the replay's stored visits and events
      const copies = this.#staged > 0 ? await this.#storedCopies() : new Map<string, string>();
      result.duplicates += copies.size;
      result.events = this.#staged - copies.size;
      const visits = this.#visits;
      visits.finish();
      const replayed =
        visits.replay.size > 0
          ? await replayStaged({
              client: loader.client,
              store,
              visits,
              firstAt: this.#firstAt,
              staging: this.#staging,
              copies,
              generation: this.generation,
            })
          : null;
      // 2. the spool
      spool = new SpoolWriter(loader.spool, this.generation, this.#tag());
      if (this.#staged > 0) {
        let chunk: string[] = [];
        for await (const { key, row } of stagedLines(this.#staging)) {
          if (
            copies.has(`${key.site}\u0000${key.id}`) ||
            replayed?.visitors.has(`${key.site}\u0000${key.owner}`)
          )
            continue;
          chunk.push(row);
          if (chunk.length >= SPOOL_CHUNK) {
            spool.write('events', chunk);
            chunk = [];
          }
        }
        spool.write('events', chunk);
      }
      if (replayed !== null)
        spool.write(
          'events',
          replayed.events.map((row) => JSON.stringify(row)),
        );
      spool.write(
        'sessions',
        this.#visitRows(replayed).map((row) => JSON.stringify(row)),
      );
      spool.write('visit_carries', this.#carryRows());
      spool.write('crawl_counters', this.#crawlRows());
      spool.write('bot_counters', this.#botRows());
      const now = chTime(Date.now());
      spool.write(
        'stream_positions',
        [...this.#intake.next].map(([stream, seq]) =>
          JSON.stringify({ stream, seq: String(seq), gen: this.generation, committed_at: now }),
        ),
      );
      const manifest = spool.finish();
      loader.step('spooled');
      // 3. the store: from here on the batch is sent, again after a crash
      store.flush(this.generation);
      this.#cleanup();
      // 4. the inserts, positions last
      await loader.commitSpooled(spool.dir, manifest);
    } catch (error) {
      if (store.state.generation !== this.generation) {
        spool?.discard();
        store.discard();
      }
      this.#cleanup();
      throw error;
    }
    result.committed = true;
    return result;
  }

  abort(): void {
    this.loader.store.discard();
    this.#cleanup();
  }

  #cleanup(): void {
    this.#closeFiles();
    rmSync(this.#staging, { force: true });
    rmSync(this.#idsFile, { force: true });
  }

  /** What makes the batch's tokens its own: a digest of the streams' ranges it loads. */
  #tag(): string {
    const ranges = [...this.#intake.next]
      .map(([stream, seq]) => `${stream}:${this.#intake.positions.get(stream) ?? 0n}-${seq}`)
      .sort()
      .join(',');
    return createHash('sha256').update(ranges).digest('hex').slice(0, 16);
  }

  /**
   * The batch's events already stored (an id seen within the dedupe window before the batch's
   * earliest event): by site and id, the visitor each came from. Their visitors go to the replay,
   * which rebuilds them from what is stored; they are not inserted.
   */
  async #storedCopies(): Promise<Map<string, string>> {
    const { client } = this.loader;
    const sites = new Set<string>();
    for (const site of this.#firstAt.keys()) sites.add(site.slice(0, site.indexOf('\u0000')));
    const sent = await client.exec({
      query: 'INSERT INTO load_ids (attempt, site, id) FORMAT JSONEachRow',
      values: createReadStream(this.#idsFile),
      clickhouse_settings: INSERT_SETTINGS,
    });
    for await (const _ of sent.stream) {
      // read to the end
    }
    const found = await readRows<{ site: string; id: string }>(
      client,
      `SELECT site, id FROM events
       WHERE site IN {sites:Array(String)} AND ts >= {from:DateTime64(3, 'UTC')} AND sign > 0
         AND (site, id) IN (SELECT site, id FROM load_ids WHERE attempt = {attempt:UUID})
       GROUP BY site, id`,
      { sites: [...sites], from: chTime(this.#minAt - DEDUPE_WINDOW_MS), attempt: this.#attempt },
    );
    const copies = new Map<string, string>();
    if (found.length === 0) return copies;
    for (const { site, id } of found) copies.set(`${site}\u0000${id}`, '');
    for await (const { key } of stagedLines(this.#staging)) {
      const k = `${key.site}\u0000${key.id}`;
      if (!copies.has(k)) continue;
      copies.set(k, key.visitor);
      this.#visits.leaveToReplay(key.site, key.visitor);
    }
    return copies;
  }

  /**
   * The sessions rows of the batch: for each visit it changed, the -1 of the state stored before
   * (a replay's: the rows it read; in order: the committed record's latest visit) and the +1 of
   * the new one; a state that did not change is left alone.
   */
  #visitRows(replayed: Replayed | null): Row[] {
    const store = this.loader.store;
    const fresh = new Map<string, Row>();
    const old = new Map<string, Row>();
    for (const row of this.#visits.rows.values()) {
      if (replayed?.visitors.has(`${row.site}\u0000${row.visitor}`)) continue;
      fresh.set(`${row.site}\u0000${row.sessionId}`, visitRowOf(row));
      const committed = store.committedCopy(row.site, row.visitor);
      const l = committed.latest;
      if (l !== null && !old.has(`${row.site}\u0000${l.id}`)) {
        old.set(`${row.site}\u0000${l.id}`, visitRowOf(visitRow(store, committed)));
      }
    }
    if (replayed !== null) {
      for (const row of replayed.rows) fresh.set(`${row.site}\u0000${row.sessionId}`, visitRowOf(row));
      for (const row of replayed.cancels) {
        const site = row['site'] as string;
        const start = Date.parse(`${(row['started_at'] as string).replace(' ', 'T')}Z`);
        old.set(`${site}\u0000${sessionIdOf(site, row['visitor'] as string, start)}`, row);
      }
    }
    const out: Row[] = [];
    for (const [k, row] of old) {
      const next = fresh.get(k);
      if (next !== undefined && String(next['ver']) === String(row['ver'])) fresh.delete(k);
      else out.push(cancelOf(row));
    }
    out.push(...fresh.values());
    return out;
  }

  #carryRows(): string[] {
    const links = new Map<string, { site: string; p: string; x: string; at: number }>();
    for (const link of this.#visits.carries) {
      const k = `${link.site}\u0000${link.p}\u0000${link.x}`;
      const known = links.get(k);
      if (known === undefined || link.at > known.at) links.set(k, link);
    }
    return [...links.values()].map(({ site, p, x, at }) =>
      JSON.stringify({ site, p, x, last_at: chTime(at), ver: this.generation }),
    );
  }

  #crawlRows(): string[] {
    return [...this.#intake.crawls.counts.values()].map(({ row, n }) =>
      JSON.stringify({
        site: row.site,
        day: row.day,
        robot: row.robot,
        robot_kind: row.robotKind,
        path: row.path,
        status_class: statusClass(row.status),
        hits: n,
      }),
    );
  }

  #botRows(): string[] {
    return [...this.#intake.bots.counts.values()].map(({ row, n }) =>
      JSON.stringify({ site: row.site, day: row.day, kind: row.kind, hits: n }),
    );
  }
}
