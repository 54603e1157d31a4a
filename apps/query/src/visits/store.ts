import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Dims } from './model.ts';

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
}

/** A visitor's latest visit, as much of it as the rules need to go on with it in time order. */
export interface LatestVisit {
  start: number;
  /** the time and id of its last activity (events sort by time, then id) */
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
const RECORD_CACHE = 50_000;

/** The stored form of a record (JSON): ids for values, times relative to a base. */
type Stored = [
  visitor: string,
  at: number | null,
  values: number[],
  views: number[],
  latest: null | [number, number, string, number, number, number, number, number[], number[]],
  link: null | [string, 0 | 1],
  carried?: string[],
];

/**
 * The visitor records, in a SQLite file beside the analytics database (`visitors.db`): a derived
 * index of the analytics data, written after each batch commits, with the batch's generation. A
 * store behind the database (a crash between the two commits) is repaired from the database; a
 * missing, foreign or newer one is rebuilt (loader.ts).
 *
 * Records are read through a cache. A batch works on its own copies (`edit`), which `flush`
 * writes and `discard` forgets, so a batch that fails leaves the store as it was.
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
  /** this batch's copies, by site and visitor */
  readonly #edits = new Map<string, VisitorRecord>();

  constructor(readonly path: string) {
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('cache_size = -16000');
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS vals (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS visitors (
        site TEXT NOT NULL, visitor TEXT NOT NULL, rec TEXT NOT NULL, PRIMARY KEY (site, visitor)
      ) WITHOUT ROWID;`);
    this.#get = this.#db.prepare('SELECT rec FROM visitors WHERE site = ? AND visitor = ?').pluck();
    this.#put = this.#db.prepare(
      'INSERT INTO visitors (site, visitor, rec) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET rec = excluded.rec',
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
    this.#edits.clear();
    return storeId;
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
   * The record of a visitor for this batch to change: this batch's copy, made on first use from
   * the committed record (a new one when there is none).
   */
  edit(site: string, visitor: string): VisitorRecord {
    const k = `${site}\u0000${visitor}`;
    let record = this.#edits.get(k);
    if (record === undefined) {
      const committed = this.#committed(site, visitor, k);
      record = committed ? cloneRecord(committed) : emptyRecord(site, visitor);
      this.#edits.set(k, record);
    }
    return record;
  }

  /** A copy of the visitor's record as last committed (before this batch), or an empty one. */
  committedCopy(site: string, visitor: string): VisitorRecord {
    const committed = this.#committed(site, visitor, `${site}\u0000${visitor}`);
    return committed ? cloneRecord(committed) : emptyRecord(site, visitor);
  }

  /** Replaces this batch's copy of a visitor's record (a replay rebuilt it). */
  replace(record: VisitorRecord): void {
    this.#edits.set(`${record.site}\u0000${record.visitor}`, record);
  }

  /** Whether a committed record exists (or this batch made one). */
  has(site: string, visitor: string): boolean {
    const k = `${site}\u0000${visitor}`;
    return this.#edits.has(k) || this.#committed(site, visitor, k) !== undefined;
  }

  #committed(site: string, visitor: string, k: string): VisitorRecord | undefined {
    const cached = this.#cache.get(k);
    if (cached !== undefined) {
      // most recently used last
      this.#cache.delete(k);
      this.#cache.set(k, cached);
      return cached;
    }
    const text = this.#get.get(site, visitor) as string | undefined;
    if (text === undefined) return undefined;
    const record = this.#decode(site, JSON.parse(text) as Stored);
    this.#cacheSet(k, record);
    return record;
  }

  #cacheSet(k: string, record: VisitorRecord): void {
    this.#cache.set(k, record);
    if (this.#cache.size > RECORD_CACHE) {
      const oldest = this.#cache.keys().next().value as string;
      this.#cache.delete(oldest);
    }
  }

  /** Forgets this batch's copies: the batch did not commit. */
  discard(): void {
    this.#edits.clear();
  }

  /** Writes this batch's records and new values, and the generation, in one transaction. */
  flush(generation: number): void {
    // encoding gives new values their ids: encode first, then write the values and the records
    const encoded = [...this.#edits.values()].map((r) => [
      r.site,
      r.visitor,
      JSON.stringify(this.#encode(r)),
    ]);
    const write = this.#db.transaction(() => {
      for (const [id, value] of this.#newValues) this.#addValue.run(id, value);
      for (const row of encoded) this.#put.run(...row);
      this.#db
        .prepare("INSERT INTO meta VALUES ('generation', ?) ON CONFLICT DO UPDATE SET value = excluded.value")
        .run(String(generation));
    });
    write();
    this.#newValues.clear();
    for (const [k, record] of this.#edits) this.#cacheSet(k, record);
    this.#edits.clear();
  }

  /** Writes records made outside a batch (a rebuild or repair), with the generation they match. */
  writeAll(records: Iterable<VisitorRecord>, generation: number): void {
    for (const record of records) this.#edits.set(`${record.site}\u0000${record.visitor}`, record);
    this.flush(generation);
  }

  /** Removes every record of a site (it was deleted). */
  deleteSite(site: string): void {
    this.#db.prepare('DELETE FROM visitors WHERE site = ?').run(site);
    for (const k of [...this.#cache.keys()]) if (k.startsWith(`${site}\u0000`)) this.#cache.delete(k);
  }

  /** Records stored (for tests and metrics). */
  count(): number {
    return this.#db.prepare('SELECT count(*) FROM visitors').pluck().get() as number;
  }

  close(): void {
    this.#db.close();
  }

  #encode(r: VisitorRecord): Stored {
    // times relative to the latest visit's start (most are equal to it or near), else absolute
    const base = r.latest?.start ?? 0;
    const pairs = (m: Map<number, number>) => {
      const out: number[] = [];
      for (const [id, start] of m) out.push(id, base - start);
      return out;
    };
    const l = r.latest;
    return [
      r.visitor,
      r.at === null ? null : base - r.at,
      pairs(r.values),
      pairs(r.views),
      l === null
        ? null
        : [
            l.start,
            l.lastTs - l.start,
            l.lastId,
            l.end - l.start,
            l.pageviews,
            l.events,
            this.intern(l.exit),
            l.dims.map((v) => this.intern(v)),
            [...l.views].map((k) => this.intern(k)),
          ],
      r.link === null ? null : [r.link.p, r.link.byP ? 1 : 0],
      ...(r.carried?.length ? [r.carried] : []),
    ] as Stored;
  }

  #decode(site: string, s: Stored): VisitorRecord {
    const [visitor, at, values, views, l, link, carried] = s;
    const base = l?.[0] ?? 0;
    const map = (pairs: number[]) => {
      const m = new Map<number, number>();
      for (let i = 0; i < pairs.length; i += 2) m.set(pairs[i]!, base - pairs[i + 1]!);
      return m;
    };
    return {
      site,
      visitor,
      at: at === null ? null : base - at,
      values: map(values),
      views: map(views),
      latest:
        l === null
          ? null
          : {
              start: l[0],
              lastTs: l[0] + l[1],
              lastId: l[2],
              end: l[0] + l[3],
              pageviews: l[4],
              events: l[5],
              exit: this.valueOf(l[6]),
              dims: l[7].map((id) => this.valueOf(id)),
              views: new Set(l[8].map((id) => this.valueOf(id) as string)),
            },
      link: link === null ? null : { p: link[0], byP: link[1] === 1 },
      ...(carried ? { carried } : {}),
    };
  }
}

export function emptyRecord(site: string, visitor: string): VisitorRecord {
  return {
    site,
    visitor,
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
    at: r.at,
    values: new Map(r.values),
    views: new Map(r.views),
    latest:
      r.latest === null ? null : { ...r.latest, dims: [...r.latest.dims], views: new Set(r.latest.views) },
    link: r.link === null ? null : { ...r.link },
    ...(r.carried ? { carried: [...r.carried] } : {}),
  };
}
