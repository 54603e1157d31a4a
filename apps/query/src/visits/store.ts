import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { KeyFilter } from './bloom.ts';
import { ByteReader, ByteWriter } from './codec.ts';
import { type Dims, visitorKeyOf } from './model.ts';

/**
 * What the visit rules know of one visitor between batches: their latest visit (which the next
 * event may continue) and, from all their visits before it, the latest start of a visit with each
 * value of each dimension and with a first view of each page or event. That is exactly what a new
 * visit's previous-visit columns and a first view's `prev_view_at` need, however long the
 * visitor's history: a batch never reads stored visits to compute them.
 */
export interface VisitorRecord {
  site: string;
  visitor: string;
  /** the visitor's 64-bit key (model.ts visitorKeyOf) */
  key: bigint;
  /** the latest start of the visits before `latest` (a later visit's `prev_at`) */
  at: number | null;
  /**
   * per dimension (DIMENSIONS) and value, the latest start of a visit before `latest` with it,
   * keyed by valueKey(dimension, the value's dictionary id)
   */
  values: Map<number, number>;
  /** per first-view key (dictionary id), the latest start of a visit before `latest` with that first view */
  views: Map<number, number>;
  latest: LatestVisit | null;
  /** on a cookieless visitor's new-day id: the day before's id its first events carried (see engine.ts) */
  link: CarryLink | null;
  /** on the day before's id: the new-day ids that carried it */
  carried?: string[];
  /**
   * the latest engagement or vitals event that joined no visit (it came before its pageview, in
   * an earlier batch): a pageview or custom event from before it replays the visitor, so it joins
   * (engine.ts). Stored with the record, so a restart keeps it.
   */
  orphanAt?: number;
}

/** A visitor's latest visit, as much of it as the rules need to go on with it in time order. */
export interface LatestVisit {
  /** its visit id (sessions.session_id) */
  id: bigint;
  start: number;
  /**
   * the time and id of its last activity (events sort by time, then id); the id is not stored, so
   * it is '' for a visit read back from the store (an event at the same millisecond then goes to
   * the replay, which knows)
   */
  lastTs: number;
  lastId: string;
  /** its end: the last activity, or a later engagement or vitals event */
  end: number;
  pageviews: number;
  events: number;
  /** the last pageview's path */
  exit: string | null;
  /** what the deciding event gave it (DIMENSIONS order, exit unused, then the AI assistant) */
  dims: Dims;
  /** the first-view keys of the visit (viewKey) */
  views: Set<string>;
}

/**
 * A new-day cookieless id (x) that carried the day before's (p). While the stretch of activity
 * that p began goes on (at most 30 minutes between activities, p's and x's together), x's events
 * continue p's visit and are stored as p's.
 */
export interface CarryLink {
  p: string;
  /** true while the current stretch is p's: x's activity joins p's latest visit */
  byP: boolean;
}

/** The null value of a dimension: its dictionary id. */
const NULL_ID = 0;

/** The key of a dimension's value in VisitorRecord.values (one map for all sixteen). */
export const valueKey = (dimension: number, id: number): number => dimension * 2 ** 32 + id;
/** Values and keys kept in memory; past this the cache starts again (each is in SQLite). */
const DICTIONARY_CACHE = 200_000;
/** Committed records kept in memory between batches. */
const RECORD_CACHE = 20_000;

/**
 * The visitor records, in a SQLite file beside the analytics database (`visitors.db`): a derived
 * index of the analytics data, written after each batch commits, with the batch's generation. A
 * store behind the database (a crash between the two commits) is repaired from the database; a
 * missing, foreign or newer one is rebuilt (loader.ts).
 *
 * Records are read through a cache. A batch changes them in place (`edit`), held apart until
 * `flush` writes them; `discard` forgets them (they are read again), so a batch that fails leaves
 * the store as it was.
 */
export class VisitorStore {
  readonly #db: Database.Database;
  readonly #get: Database.Statement;
  readonly #put: Database.Statement;
  readonly #valueId: Database.Statement;
  readonly #valueOf: Database.Statement;
  readonly #addValue: Database.Statement;
  readonly #ids = new Map<string, number>();
  readonly #values = new Map<number, string>();
  /** values given an id but not written yet */
  readonly #newValues = new Map<number, string>();
  #nextId: number;
  readonly #cache = new Map<string, VisitorRecord>();
  /** which (site, visitor key)s have a stored record: built on the first read, kept up by flush */
  #known: KeyFilter | undefined;
  /** the records this batch changed, by site and visitor (not in the cache until flushed) */
  readonly #dirty = new Map<string, VisitorRecord>();

  constructor(readonly path: string) {
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('cache_size = -16000');
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS vals (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS visitors (
        site INTEGER NOT NULL, vkey INTEGER NOT NULL, rec BLOB NOT NULL, PRIMARY KEY (site, vkey)
      ) WITHOUT ROWID;`);
    this.#get = this.#db.prepare('SELECT rec FROM visitors WHERE site = ? AND vkey = ?').pluck();
    this.#put = this.#db.prepare(
      'INSERT INTO visitors (site, vkey, rec) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET rec = excluded.rec',
    );
    this.#valueId = this.#db.prepare('SELECT id FROM vals WHERE v = ?').pluck();
    this.#valueOf = this.#db.prepare('SELECT v FROM vals WHERE id = ?').pluck();
    this.#addValue = this.#db.prepare('INSERT INTO vals (id, v) VALUES (?, ?)');
    this.#nextId = ((this.#db.prepare('SELECT max(id) FROM vals').pluck().get() as number | null) ?? 0) + 1;
  }

  /** The generation and identity the store was last written with (see loader.ts). */
  get state(): { storeId: string | null; generation: number | null } {
    const read = (key: string) =>
      this.#db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
    const generation = read('generation');
    return {
      storeId: read('store_id') ?? null,
      generation: generation === undefined ? null : Number(generation),
    };
  }

  /** Forgets every record and value (a rebuild starts from here); returns the new store id. */
  reset(): string {
    const storeId = randomUUID();
    this.#db.exec('DELETE FROM visitors; DELETE FROM vals; DELETE FROM meta;');
    this.#db.prepare("INSERT INTO meta VALUES ('store_id', ?)").run(storeId);
    this.#ids.clear();
    this.#values.clear();
    this.#newValues.clear();
    this.#nextId = 1;
    this.#cache.clear();
    this.#dirty.clear();
    this.#known = undefined;
    return storeId;
  }

  /** A visitor's 64-bit key (visitorKeyOf; records keep theirs). */
  keyOf(visitor: string): bigint {
    return visitorKeyOf(visitor);
  }

  /** The dictionary id of a value, or undefined when no record holds it yet (null is NULL_ID). */
  idOf(value: string | null): number | undefined {
    if (value === null) return NULL_ID;
    const cached = this.#ids.get(value);
    if (cached !== undefined) return cached;
    const id = this.#valueId.get(value) as number | undefined;
    if (id !== undefined) this.#remember(value, id);
    return id;
  }

  /** The dictionary id of a value, given one when it has none. */
  intern(value: string | null): number {
    const known = this.idOf(value);
    if (known !== undefined) return known;
    const id = this.#nextId++;
    this.#newValues.set(id, value as string);
    this.#remember(value as string, id);
    return id;
  }

  /** The value of a dictionary id. */
  valueOf(id: number): string | null {
    if (id === NULL_ID) return null;
    const cached = this.#values.get(id) ?? this.#newValues.get(id);
    if (cached !== undefined) return cached;
    const value = this.#valueOf.get(id) as string | undefined;
    if (value === undefined) throw new Error(`visitor store: no value for id ${id}`);
    this.#remember(value, id);
    return value;
  }

  #remember(value: string, id: number): void {
    if (this.#ids.size >= DICTIONARY_CACHE) {
      this.#ids.clear();
      this.#values.clear();
    }
    this.#ids.set(value, id);
    this.#values.set(id, value);
  }

  /**
   * The record of a visitor for this batch to change, changed in place: the cached or stored one
   * (a new one when there is none). Until the batch is flushed it is held apart from the cache;
   * `discard` forgets it, and it is read again from the store.
   */
  edit(site: string, visitor: string): VisitorRecord {
    const k = `${site}\u0000${visitor}`;
    let record = this.#dirty.get(k);
    if (record === undefined) {
      record = this.#cache.get(k);
      if (record !== undefined) this.#cache.delete(k);
      else {
        const key = this.keyOf(visitor);
        record = this.#read(site, visitor, key) ?? emptyRecord(site, visitor, key);
      }
      this.#dirty.set(k, record);
    }
    return record;
  }

  /** A copy of the visitor's record as last committed (before this batch's changes), or an empty one. */
  committedCopy(site: string, visitor: string): VisitorRecord {
    const k = `${site}\u0000${visitor}`;
    const clean = this.#dirty.has(k) ? undefined : this.#cache.get(k);
    const record = clean ?? this.#read(site, visitor);
    return record ? cloneRecord(record) : emptyRecord(site, visitor, this.keyOf(visitor));
  }

  /** Replaces this batch's copy of a visitor's record (a replay rebuilt it). */
  replace(record: VisitorRecord): void {
    this.#dirty.set(`${record.site}\u0000${record.visitor}`, record);
  }

  /** Whether a record exists (committed, or made by this batch). */
  has(site: string, visitor: string): boolean {
    const k = `${site}\u0000${visitor}`;
    return this.#dirty.has(k) || this.#cache.has(k) || this.#read(site, visitor) !== undefined;
  }

  /** The stored record of a visitor, read from SQLite (unless the filter knows there is none). */
  #read(site: string, visitor: string, key = this.keyOf(visitor)): VisitorRecord | undefined {
    const siteId = this.idOf(site);
    if (siteId === undefined) return undefined;
    if (!this.#filter().mightHave(filterKey(siteId, key))) return undefined;
    const bytes = this.#get.get(siteId, BigInt.asIntN(64, key)) as Buffer | undefined;
    return bytes === undefined ? undefined : this.#decode(site, visitor, key, bytes);
  }

  #cacheSet(k: string, record: VisitorRecord): void {
    this.#cache.set(k, record);
    if (this.#cache.size > RECORD_CACHE) {
      const oldest = this.#cache.keys().next().value as string;
      this.#cache.delete(oldest);
    }
  }

  /** The filter of stored keys, built from SQLite when there is none (twice the records, at least a million). */
  #filter(): KeyFilter {
    if (this.#known === undefined) {
      const count = this.count();
      const known = new KeyFilter(Math.max(1_000_000, count * 2));
      const keys = this.#db.prepare('SELECT site, vkey FROM visitors').raw().safeIntegers(true);
      for (const [site, key] of keys.iterate() as Iterable<[bigint, bigint]>) {
        known.add(filterKey(Number(site), BigInt.asUintN(64, key)));
      }
      this.#known = known;
    }
    return this.#known;
  }

  /** Forgets this batch's changes: the batch did not commit. */
  discard(): void {
    this.#dirty.clear();
  }

  /** Writes this batch's records and new values, and the generation, in one transaction. */
  flush(generation: number): void {
    // encoding gives new values their ids: encode first, then write the values and the records,
    // in key order (each B-tree page is then visited once)
    const encoded = [...this.#dirty.values()]
      .map((r) => ({ site: this.intern(r.site), key: BigInt.asIntN(64, r.key), bytes: this.#encode(r) }))
      .sort((a, b) => a.site - b.site || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const write = this.#db.transaction(() => {
      for (const [id, value] of this.#newValues) this.#addValue.run(id, value);
      for (const row of encoded) this.#put.run(row.site, row.key, row.bytes);
      this.#db
        .prepare("INSERT INTO meta VALUES ('generation', ?) ON CONFLICT DO UPDATE SET value = excluded.value")
        .run(String(generation));
    });
    write();
    const known = this.#filter();
    for (const row of encoded) known.add(filterKey(row.site, BigInt.asUintN(64, row.key)));
    // past its capacity the filter says "maybe" too often: the next read builds a larger one
    if (known.count > known.capacity) this.#known = undefined;
    this.#newValues.clear();
    for (const [k, record] of this.#dirty) this.#cacheSet(k, record);
    this.#dirty.clear();
  }

  /** Writes records made outside a batch (a rebuild or repair), with the generation they match. */
  writeAll(records: Iterable<VisitorRecord>, generation: number): void {
    for (const record of records) this.#dirty.set(`${record.site}\u0000${record.visitor}`, record);
    this.flush(generation);
  }

  /** Removes every record of a site (it was deleted). */
  deleteSite(site: string): void {
    const siteId = this.idOf(site);
    if (siteId !== undefined) this.#db.prepare('DELETE FROM visitors WHERE site = ?').run(siteId);
    for (const k of [...this.#cache.keys()]) if (k.startsWith(`${site}\u0000`)) this.#cache.delete(k);
  }

  /**
   * Removes the records of some of a site's visitors, whose every visit was deleted (retention):
   * one who comes back starts again as a new visitor, exactly as a rebuild from the data would.
   */
  forget(site: string, visitors: readonly { visitor: string; key: bigint }[]): void {
    const siteId = this.idOf(site);
    if (siteId !== undefined) {
      const remove = this.#db.prepare('DELETE FROM visitors WHERE site = ? AND vkey = ?');
      this.#db.transaction(() => {
        for (const { key } of visitors) remove.run(siteId, BigInt.asIntN(64, key));
      })();
    }
    for (const { visitor } of visitors) this.#cache.delete(`${site}\u0000${visitor}`);
  }

  /** Records stored (for tests and metrics). */
  count(): number {
    return this.#db.prepare('SELECT count(*) FROM visitors').pluck().get() as number;
  }

  close(): void {
    this.#db.close();
  }

  /**
   * A record's bytes (codec.ts): flags, then `at`, the history's values and first views as
   * (dictionary id, time back from the base), the latest visit, the carry link, carried ids and
   * the unattached event's time (flag 16; a record without it reads as before).
   * The base is the latest visit's start (every time in a record is at or before its end), else
   * `at` itself.
   */
  #encode(r: VisitorRecord): Buffer {
    const w = new ByteWriter();
    const l = r.latest;
    w.uint(
      (l ? 1 : 0) |
        (r.at !== null ? 2 : 0) |
        (r.link ? 4 : 0) |
        (r.carried?.length ? 8 : 0) |
        (r.orphanAt !== undefined ? 16 : 0),
    );
    const base = l ? l.start : (r.at ?? 0);
    if (l) w.uint(l.start);
    else if (r.at !== null) w.uint(r.at);
    if (l && r.at !== null) w.uint(base - r.at);
    w.uint(r.values.size);
    for (const [key, start] of [...r.values].sort((a, b) => a[0] - b[0])) {
      w.uint(Math.floor(key / 2 ** 32));
      w.uint(key % 2 ** 32);
      w.uint(base - start);
    }
    w.uint(r.views.size);
    for (const [id, start] of r.views) {
      w.uint(id);
      w.uint(base - start);
    }
    if (l) {
      w.uint(Number(l.id >> 32n));
      w.uint(Number(l.id & 0xffffffffn));
      w.uint(l.lastTs - l.start);
      w.uint(l.end - l.start);
      w.uint(l.pageviews);
      w.uint(l.events);
      w.uint(this.intern(l.exit));
      for (const v of l.dims) w.uint(this.intern(v));
      w.uint(l.views.size);
      for (const key of l.views) w.uint(this.intern(key));
    }
    if (r.link) {
      w.string(r.link.p);
      w.uint(r.link.byP ? 1 : 0);
    }
    if (r.carried?.length) {
      w.uint(r.carried.length);
      for (const x of r.carried) w.string(x);
    }
    if (r.orphanAt !== undefined) w.uint(r.orphanAt);
    return w.bytes();
  }

  #decode(site: string, visitor: string, key: bigint, bytes: Uint8Array): VisitorRecord {
    const rd = new ByteReader(bytes);
    const flags = rd.uint();
    const record = emptyRecord(site, visitor, key);
    let base = 0;
    const hasLatest = (flags & 1) !== 0;
    if (hasLatest || (flags & 2) !== 0) base = rd.uint();
    if (hasLatest) record.at = (flags & 2) !== 0 ? base - rd.uint() : null;
    else record.at = (flags & 2) !== 0 ? base : null;
    for (let n = rd.uint(); n > 0; n--) {
      const d = rd.uint();
      const id = rd.uint();
      record.values.set(valueKey(d, id), base - rd.uint());
    }
    for (let n = rd.uint(); n > 0; n--) {
      const id = rd.uint();
      record.views.set(id, base - rd.uint());
    }
    if (hasLatest) {
      const high = rd.uint();
      const low = rd.uint();
      const lastTs = base + rd.uint();
      const end = base + rd.uint();
      const pageviews = rd.uint();
      const events = rd.uint();
      const exit = this.valueOf(rd.uint());
      const dims: (string | null)[] = [];
      for (let d = 0; d < DIMS_STORED; d++) dims.push(this.valueOf(rd.uint()));
      const views = new Set<string>();
      for (let n = rd.uint(); n > 0; n--) views.add(this.valueOf(rd.uint()) as string);
      record.latest = {
        id: (BigInt(high) << 32n) | BigInt(low),
        start: base,
        lastTs,
        lastId: '',
        end,
        pageviews,
        events,
        exit,
        dims,
        views,
      };
    }
    if ((flags & 4) !== 0) record.link = { p: rd.string(), byP: rd.uint() === 1 };
    if ((flags & 8) !== 0) {
      record.carried = [];
      for (let n = rd.uint(); n > 0; n--) record.carried.push(rd.string());
    }
    if ((flags & 16) !== 0) record.orphanAt = rd.uint();
    return record;
  }
}

/** A record's key in the filter: the visitor key mixed with the site's dictionary id. */
const filterKey = (site: number, key: bigint): bigint =>
  key ^ BigInt.asUintN(64, BigInt(site) * 0x9e3779b97f4a7c15n);

/** A latest visit's stored dimension values: the sixteen of DIMENSIONS and the AI assistant. */
const DIMS_STORED = 17;

export function emptyRecord(site: string, visitor: string, key = visitorKeyOf(visitor)): VisitorRecord {
  return {
    site,
    visitor,
    key,
    at: null,
    values: new Map(),
    views: new Map(),
    latest: null,
    link: null,
  };
}

export function cloneRecord(r: VisitorRecord): VisitorRecord {
  return {
    site: r.site,
    visitor: r.visitor,
    key: r.key,
    at: r.at,
    values: new Map(r.values),
    views: new Map(r.views),
    latest:
      r.latest === null ? null : { ...r.latest, dims: [...r.latest.dims], views: new Set(r.latest.views) },
    link: r.link === null ? null : { ...r.link },
    ...(r.carried ? { carried: [...r.carried] } : {}),
    ...(r.orphanAt !== undefined ? { orphanAt: r.orphanAt } : {}),
  };
}
