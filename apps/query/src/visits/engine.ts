import {
  DIMENSIONS,
  type Dims,
  dimsOf,
  EXIT_PAGE,
  isActivity,
  type LoadEvent,
  sessionIdOf,
  VISIT_GAP_MS,
  viewKey,
} from './model.ts';
import { type LatestVisit, type VisitorRecord, type VisitorStore, valueKey } from './store.ts';

/**
 * The visit rules, applied to one visitor's events in time order (by time, then id):
 *
 * - Pageviews and custom events are activity. More than 30 minutes after the visit's last activity
 *   an activity starts a new visit; exactly 30 continues it.
 * - Engagement and vitals events never start a visit: one belongs to the latest visit that started
 *   at or before it, if it came at most 30 minutes after that visit's last activity, and moves the
 *   visit's end; otherwise it belongs to none.
 * - The first pageview decides the visit's channel, referrer, campaign, entry page, location,
 *   device, browser, OS and language (the first event when there is no pageview); the last
 *   pageview is its exit page. A visit's id is the digest of its site, visitor and start.
 * - Each visit stores when its visitor's previous visit started and, per dimension, their previous
 *   visit with the same value (NULL is a value); each first view of a page (custom event) in a
 *   visit, their previous visit with a first view of it. The visitor record holds what these need.
 * - A cookieless visit running over midnight continues under its first-day id (CarryLink).
 *
 * Events that come in time order after a visitor's latest activity (nearly all) are applied here
 * as they come. Any other (a late event, one before the latest visit's start, a carry that arrives
 * out of order) leaves that visitor to `replay.ts`, which rebuilds their visits from the stored
 * events around it with the same rules.
 */

/** Where an event goes: its visit, whether it is the visit's first view of its page, and more. */
export interface Assignment {
  /** the visitor it is stored under (a carried event: the day before's id), and their key */
  visitor: string;
  visitorKey: bigint;
  sessionId: bigint | null;
  visitStart: number | null;
  first: boolean;
  prevViewAt: number | null;
}

/** A visit's row as the sessions table stores it (times in ms; `prevs` per DIMENSIONS). */
export interface VisitRow {
  site: string;
  sessionId: bigint;
  visitor: string;
  visitorKey: bigint;
  start: number;
  lastTs: number;
  end: number;
  pageviews: number;
  events: number;
  dims: Dims;
  exit: string | null;
  prevAt: number | null;
  /** per dimension, the previous visit with the same value: its start, or null when none */
  prevs: (number | null)[];
}

/** The visit id of a record's latest visit. */
export const sessionIdOfLatest = (r: VisitorRecord): bigint => r.latest!.id;

/** Everything one batch does to visits: which records it changed and which rows to write. */
export class VisitBatch {
  /** rows to write, by site and visit id (a later version of a visit replaces an earlier one) */
  readonly rows = new Map<string, VisitRow>();
  /** visitors whose latest visit changed (their row is written at the end) */
  readonly #touched = new Map<string, VisitorRecord>();
  /** visitors left to the replay, by site: whatever else this batch brings of them goes there too */
  readonly replay = new Map<string, Set<string>>();
  /** new carry links (site, p, x, time), stored so a repair can rebuild them */
  readonly carries: { site: string; p: string; x: string; at: number }[] = [];
  /**
   * visitors given an engagement or vitals event that joined no visit (VisitorRecord.orphanAt),
   * by site and id (once each): marked as touched, so a repair after a crash rebuilds their records
   */
  readonly orphans = new Map<string, { site: string; visitor: string }>();
  /** per site, the earliest time a change reaches: day rollups from there on are rebuilt */
  readonly changedFrom = new Map<string, number>();

  constructor(readonly store: VisitorStore) {}

  /** Whether the replay rebuilds this visitor. */
  replays(site: string, visitor: string): boolean {
    return this.replay.get(site)?.has(visitor) === true;
  }

  /** Leaves a visitor (and any visitor carried with it) to the replay. */
  leaveToReplay(site: string, visitor: string): void {
    let set = this.replay.get(site);
    if (set === undefined) {
      set = new Set();
      this.replay.set(site, set);
    }
    if (set.has(visitor)) return;
    set.add(visitor);
    const r = this.store.edit(site, visitor);
    if (r.link) this.leaveToReplay(site, r.link.p);
    for (const x of carriedBy(r)) this.leaveToReplay(site, x);
  }

  #changed(site: string, at: number): void {
    const from = this.changedFrom.get(site);
    if (from === undefined || at < from) this.changedFrom.set(site, at);
  }

  /**
   * Applies one new event (deduplicated, with its stored time `ts`). Returns its assignment, or
   * null when the event is left to the replay (its columns are written then).
   */
  event(e: LoadEvent, ts: number): Assignment | null {
    const { site } = e;
    this.#changed(site, ts);
    if (this.replays(site, e.visitor)) return null;
    const own = this.store.edit(site, e.visitor);
    // a cookieless id of the new day that carries the day before's: the link is kept (and stored,
    // for a replay or a repair); it decides with the first event of x that comes in time order
    if (e.carry && e.carry !== e.visitor) {
      const p = this.store.edit(site, e.carry);
      addCarried(p, e.visitor);
      this.carries.push({ site, p: e.carry, x: e.visitor, at: ts });
      if (own.link === null) {
        if (own.latest !== null || (p.latest !== null && !after(ts, e.id, p.latest))) {
          own.link = { p: e.carry, byP: false };
          this.leaveToReplay(site, e.visitor);
          return null;
        }
        own.link = { p: e.carry, byP: continuesStretch(p.latest, e.kind, ts) };
      }
    }
    let record = own;
    if (own.link?.byP) {
      const p = this.store.edit(site, own.link.p);
      const l = p.latest;
      if (l === null) own.link.byP = false;
      else if (isActivity(e.kind)) {
        if (!after(ts, e.id, l)) {
          this.leaveToReplay(site, e.visitor);
          return null;
        }
        if (ts - l.lastTs <= VISIT_GAP_MS) record = p;
        else own.link.byP = false; // the stretch p began has ended: x is a visitor of its own now
      } else if (ts >= l.start && ts <= l.lastTs + VISIT_GAP_MS) record = p;
    }
    // an event of the day before's id after a carried one of the new day's, or an activity of it
    // before an engagement event of the new day's id that joined nothing (it may join now): not
    // in time order
    for (const x of carriedBy(record)) {
      const xr = this.store.edit(site, x);
      const xl = xr.latest;
      const orphan = isActivity(e.kind) && xr.orphanAt !== undefined && ts <= xr.orphanAt;
      if ((xl !== null && ts <= xl.lastTs) || orphan) {
        this.leaveToReplay(site, record.visitor);
        return null;
      }
    }
    const l = record.latest;
    if (isActivity(e.kind) ? l !== null && !after(ts, e.id, l) : l !== null && ts < l.start) {
      this.leaveToReplay(site, record.visitor);
      return null;
    }
    // an engagement event that came before its pageview (another batch) joined no visit: the
    // pageview replays the visitor, so it joins now
    if (isActivity(e.kind) && record.orphanAt !== undefined && ts <= record.orphanAt) {
      this.leaveToReplay(site, record.visitor);
      return null;
    }
    const a = this.#apply(record, e, ts);
    // engagement joins its visit's day in the day rollups (the visit's start, not the event's
    // time): a late one for a visit that does not end later changes that day all the same
    if (!isActivity(e.kind) && a.visitStart !== null) this.#changed(site, a.visitStart);
    if (noteOrphan(record, e, ts, a))
      this.orphans.set(`${site}\u0000${record.visitor}`, { site, visitor: record.visitor });
    return a;
  }

  /** Applies an event that comes in time order to `record` (exported for the replay). */
  #apply(record: VisitorRecord, e: LoadEvent, ts: number): Assignment {
    // The visit this event ends (a new one starts) is written once more. It changed only if this
    // batch touched it: else its row is the one stored, and it must not send the day rollups
    // back to its start (a returning visitor would drop every day since their last visit).
    const changed = this.#touched.has(`${record.site}\u0000${record.visitor}`);
    return applyInOrder(
      this.store,
      record,
      e,
      ts,
      (row) => this.#row(row, changed),
      () => this.#touch(record),
    );
  }

  #touch(record: VisitorRecord): void {
    this.#touched.set(`${record.site}\u0000${record.visitor}`, record);
  }

  #row(row: VisitRow, changed = true): void {
    this.rows.set(`${row.site}\u0000${row.sessionId}`, row);
    if (changed) this.#changed(row.site, row.start);
  }

  /** Writes the rows of every changed latest visit; call once all the batch's events are in. */
  finish(): void {
    for (const [k, record] of this.#touched) {
      if (this.replays(record.site, record.visitor)) continue;
      if (record.latest !== null) this.#row(visitRow(this.store, record));
      this.#touched.delete(k);
    }
    // rows of visitors the replay rebuilds are the replay's to write
    for (const [k, row] of this.rows) if (this.replays(row.site, row.visitor)) this.rows.delete(k);
  }
}

/**
 * Whether a new-day id's first event finds the day before's stretch going on (CarryLink.byP): an
 * activity within 30 minutes of its last activity does, one later does not. Only activity decides:
 * an engagement or vitals event leaves the stretch going (it joins the visit if it falls in it),
 * so the link comes out the same whichever of the new-day id's events a replay meets first (its
 * first events may be stored under the day before's id).
 */
export function continuesStretch(l: LatestVisit | null, kind: string, ts: number): boolean {
  return l !== null && (!isActivity(kind) || ts - l.lastTs <= VISIT_GAP_MS);
}

/** Whether (ts, id) comes after the visit's last activity in the rules' order. */
function after(ts: number, id: string, l: LatestVisit): boolean {
  return ts > l.lastTs || (ts === l.lastTs && l.lastId !== '' && id > l.lastId);
}

/** The new-day ids that carried this one (kept on the day before's record). */
function carriedBy(r: VisitorRecord): string[] {
  return r.carried ?? [];
}

export function addCarried(p: VisitorRecord, x: string): void {
  p.carried ??= [];
  if (!p.carried.includes(x)) p.carried.push(x);
}

/**
 * Applies one event in time order to a visitor's record: joins or starts a visit (folding the
 * latest into the history first), or attaches an engagement or vitals event. `onRow` gets the
 * final row of a visit the event ends; `onTouch` is told the record's latest visit changed.
 */
export function applyInOrder(
  store: VisitorStore,
  record: VisitorRecord,
  e: LoadEvent,
  ts: number,
  onRow: (row: VisitRow) => void,
  onTouch: () => void,
): Assignment {
  const visitor = record.visitor;
  const visitorKey = record.key;
  let l = record.latest;
  if (!isActivity(e.kind)) {
    if (l !== null && ts >= l.start && ts <= l.lastTs + VISIT_GAP_MS) {
      if (ts > l.end) {
        l.end = ts;
        onTouch();
      }
      return {
        visitor,
        visitorKey,
        sessionId: sessionIdOfLatest(record),
        visitStart: l.start,
        first: false,
        prevViewAt: null,
      };
    }
    return { visitor, visitorKey, sessionId: null, visitStart: null, first: false, prevViewAt: null };
  }
  const pv = e.kind === 'pv';
  const key = viewKey(e.kind, pv ? e.path : e.name);
  if (l !== null && ts - l.lastTs <= VISIT_GAP_MS) {
    l.lastTs = ts;
    l.lastId = e.id;
    if (ts > l.end) l.end = ts;
    if (pv) {
      // the first pageview decides, even after custom events
      if (l.pageviews === 0) l.dims = dimsOf(e);
      l.pageviews++;
      l.exit = e.path;
    } else l.events++;
  } else {
    if (l !== null) {
      onRow(visitRow(store, record));
      fold(store, record);
    }
    l = {
      id: sessionIdOf(record.site, record.visitor, ts),
      start: ts,
      lastTs: ts,
      lastId: e.id,
      end: ts,
      pageviews: pv ? 1 : 0,
      events: pv ? 0 : 1,
      exit: pv ? e.path : null,
      dims: dimsOf(e),
      views: new Set(),
    };
    record.latest = l;
  }
  onTouch();
  const first = !l.views.has(key);
  if (first) l.views.add(key);
  const keyId = first ? store.idOf(key) : undefined;
  return {
    visitor,
    visitorKey,
    sessionId: sessionIdOfLatest(record),
    visitStart: l.start,
    first,
    prevViewAt: keyId === undefined ? null : (record.views.get(keyId) ?? null),
  };
}

/** Moves a record's latest visit into its history: the latest start of each of its values. */
export function fold(store: VisitorStore, record: VisitorRecord): void {
  const l = record.latest;
  if (l === null) return;
  record.at = l.start;
  DIMENSIONS.forEach((_, d) => {
    record.values.set(valueKey(d, store.intern(d === EXIT_PAGE ? l.exit : (l.dims[d] ?? null))), l.start);
  });
  for (const key of l.views) record.views.set(store.intern(key), l.start);
  record.latest = null;
}

/** The row of a record's latest visit, its previous visits taken from the record's history. */
export function visitRow(store: VisitorStore, record: VisitorRecord): VisitRow {
  const l = record.latest!;
  return {
    site: record.site,
    sessionId: sessionIdOfLatest(record),
    visitor: record.visitor,
    visitorKey: record.key,
    start: l.start,
    lastTs: l.lastTs,
    end: Math.max(l.end, l.lastTs),
    pageviews: l.pageviews,
    events: l.events,
    dims: l.dims,
    exit: l.exit,
    prevAt: record.at,
    prevs: DIMENSIONS.map((_, d) => {
      const id = store.idOf(d === EXIT_PAGE ? l.exit : (l.dims[d] ?? null));
      return id === undefined ? null : (record.values.get(valueKey(d, id)) ?? null);
    }),
  };
}

/**
 * Notes on a record an engagement or vitals event that joined no visit (its pageview has not come
 * yet): the latest such time, which a pageview or custom event from before it turns into a replay.
 * Returns whether it was one.
 */
export function noteOrphan(record: VisitorRecord, e: LoadEvent, ts: number, a: Assignment): boolean {
  if (isActivity(e.kind) || a.sessionId !== null) return false;
  if (record.orphanAt === undefined || ts > record.orphanAt) record.orphanAt = ts;
  return true;
}
