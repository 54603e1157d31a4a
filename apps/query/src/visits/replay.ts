import {
  type Assignment,
  addCarried,
  applyInOrder,
  continuesStretch,
  fold,
  noteOrphan,
  type VisitBatch,
  type VisitRow,
  visitRow,
} from './engine.ts';
import { compareEvents, isActivity, type LoadEvent, VISIT_GAP_MS, viewKey } from './model.ts';
import { cloneRecord, type VisitorRecord, type VisitorStore } from './store.ts';

/**
 * Rebuilds the visits of visitors whose events did not come in time order (engine.ts), from the
 * stored events around them, with the same rules. What it reads is bounded by time: the visits
 * that could change (`lo` on) and their events. What came before `lo` is the visitor record's
 * history, taken back to `lo` along the stored previous-visit columns of the visits it rebuilds,
 * so no visit before `lo` is read, however long the visitor's history.
 */

/** A stored visit of a visitor being rebuilt (one that starts at or after `lo`). */
export interface StoredVisit {
  site: string;
  visitor: string;
  sessionId: bigint;
  start: number;
  prevAt: number | null;
  /**
   * per DIMENSIONS, the stored previous visit with the same value: 'prev_at' when the column is
   * NULL (it is the visit's prev_at), null when there is none ('-infinity'), else its start
   */
  prevs: (number | null | 'prev_at')[];
}

/** A stored event of a visitor being rebuilt (at or after `lo`), this batch's included. */
export interface StoredEvent extends LoadEvent {
  ts: number;
  /** the id it is stored under (a carried event: the day before's) */
  storedVisitor: string;
  sessionId: bigint | null;
  visitStart: number | null;
  first: boolean;
  prevViewAt: number | null;
}

/** A changed event: what to write back (by site, id and time). */
export interface EventUpdate extends Assignment {
  site: string;
  id: string;
  ts: number;
}

export interface ReplayGroup {
  site: string;
  /** the visitors rebuilt together (one, or a day before's id with the new-day ids it carried) */
  visitors: string[];
  /** carry links among them: new-day id -> day before's id */
  links: Map<string, string>;
  lo: number;
  visits: StoredVisit[];
  events: StoredEvent[];
}

export interface ReplayResult {
  records: VisitorRecord[];
  rows: VisitRow[];
  updates: EventUpdate[];
}

/** Rebuilds a group's visits from `lo` on. `committed` is each visitor's record before this batch. */
export function replay(
  store: VisitorStore,
  group: ReplayGroup,
  committed: (visitor: string) => VisitorRecord,
): ReplayResult {
  const { site, lo } = group;
  const records = new Map<string, VisitorRecord>();
  for (const visitor of group.visitors) {
    const visits = group.visits.filter((v) => v.visitor === visitor);
    const events = group.events.filter((e) => e.storedVisitor === visitor);
    records.set(visitor, beforeLo(store, committed(visitor), lo, visits, events));
  }
  const rows = new Map<bigint, VisitRow>();
  const onRow = (row: VisitRow) => void rows.set(row.sessionId, row);
  const updates: EventUpdate[] = [];
  const started = new Set<string>();
  const sorted = [...group.events].sort(compareEvents);
  for (const e of sorted) {
    let target = records.get(e.storedVisitor)!;
    const p = group.links.get(e.storedVisitor);
    if (p !== undefined) {
      // a new-day id: its first event (from lo on) decides whether p's stretch goes on
      const pr = records.get(p)!;
      if (!started.has(e.storedVisitor)) {
        started.add(e.storedVisitor);
        target.link = { p, byP: target.latest === null && continuesStretch(pr.latest, e.kind, e.ts) };
      }
      const link = target.link;
      const l = pr.latest;
      if (link?.byP && l !== null) {
        if (isActivity(e.kind)) {
          if (e.ts - l.lastTs <= VISIT_GAP_MS) target = pr;
          else link.byP = false;
        } else if (e.ts >= l.start && e.ts <= l.lastTs + VISIT_GAP_MS) target = pr;
      }
    }
    const a = applyInOrder(store, target, e, e.ts, onRow, () => {});
    noteOrphan(target, e, e.ts, a);
    if (
      a.visitor !== e.storedVisitor ||
      a.sessionId !== e.sessionId ||
      a.visitStart !== e.visitStart ||
      a.first !== e.first ||
      a.prevViewAt !== e.prevViewAt
    ) {
      updates.push({ ...a, site, id: e.id, ts: e.ts });
    }
  }
  for (const record of records.values()) if (record.latest !== null) onRow(visitRow(store, record));
  // the links stay on the records, whether or not an event of x came from lo on. An x without
  // one stored under its own id has had every event carried into p's visit (or none yet): its next
  // event decides as its first would, continuing p's stretch within 30 minutes of it
  for (const [x, p] of group.links) {
    const xr = records.get(x);
    const pr = records.get(p);
    if (xr !== undefined && xr.link === null) xr.link = { p, byP: xr.latest === null };
    if (pr !== undefined) addCarried(pr, x);
  }
  return { records: [...records.values()], rows: [...rows.values()], updates };
}

/**
 * A visitor's record as it stood before `lo`: the committed record with its latest visit folded
 * in, then every latest start at or after `lo` walked back along the stored visits' previous-visit
 * columns (and first views' `prev_view_at`) until it is before `lo` or none.
 */
export function beforeLo(
  store: VisitorStore,
  committed: VisitorRecord,
  lo: number,
  visits: StoredVisit[],
  events: StoredEvent[],
): VisitorRecord {
  const record = cloneRecord(committed);
  fold(store, record);
  // an unattached event from lo on is replayed: noted again if it still joins nothing
  if (record.orphanAt !== undefined && record.orphanAt >= lo) delete record.orphanAt;
  const byStart = new Map(visits.map((v) => [v.start, v]));
  const visitAt = (start: number): StoredVisit => {
    const v = byStart.get(start);
    if (v === undefined) {
      throw new Error(`visitor ${committed.visitor}: no stored visit starting at ${start} to rebuild from`);
    }
    return v;
  };
  const back = (start: number | null, step: (v: StoredVisit) => number | null): number | null => {
    let x = start;
    while (x !== null && x >= lo) x = step(visitAt(x));
    return x;
  };
  record.at = back(record.at, (v) => v.prevAt);
  for (const [key, start] of record.values) {
    if (start < lo) continue;
    const d = Math.floor(key / 2 ** 32);
    const x = back(start, (v) => {
      const p = v.prevs[d];
      return p === 'prev_at' ? v.prevAt : (p ?? null);
    });
    if (x === null) record.values.delete(key);
    else record.values.set(key, x);
  }
  // first views in the rebuilt visits: each one's prev_view_at leads to the one before
  const firstViews = new Map<string, number | null>();
  for (const e of events) {
    if (e.first && e.sessionId !== null && isActivity(e.kind)) {
      firstViews.set(
        `${e.sessionId}\u0000${viewKey(e.kind, e.kind === 'pv' ? e.path : e.name)}`,
        e.prevViewAt,
      );
    }
  }
  for (const [id, start] of record.views) {
    if (start < lo) continue;
    const key = store.valueOf(id) as string;
    const x = back(start, (v) => {
      const prev = firstViews.get(`${v.sessionId}\u0000${key}`);
      if (prev === undefined) {
        throw new Error(
          `visitor ${committed.visitor}: no first view of a page in the visit starting at ${v.start}`,
        );
      }
      return prev;
    });
    if (x === null) record.views.delete(id);
    else record.views.set(id, x);
  }
  record.latest = null;
  record.link = null;
  return record;
}

export interface Group {
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
export function replayGroups(visits: VisitBatch, firstAt: ReadonlyMap<string, number>): Group[] {
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

/** Each group by its visitors' site and id, and by site and key (what is read back is sorted out in one pass). */
export function groupIndex(
  groups: readonly Group[],
  keyOf: (visitor: string) => bigint,
): {
  groupOf: Map<string, Group>;
  byKey: Map<string, { group: Group; visitor: string }>;
} {
  const groupOf = new Map<string, Group>();
  const byKey = new Map<string, { group: Group; visitor: string }>();
  for (const group of groups) {
    for (const visitor of group.visitors) {
      groupOf.set(`${group.site}\u0000${visitor}`, group);
      byKey.set(`${group.site}\u0000${keyOf(visitor)}`, { group, visitor });
    }
  }
  return { groupOf, byKey };
}

/**
 * Sets each group's `lo`: the start of the earliest stored visit of the group that ends no more
 * than 30 minutes before the group's earliest new event (it could change), or that event itself.
 * `read` gives the stored visits of the groups' visitors that end at or after `since(group)`.
 * Returns the visits read last (those of each group from its `lo` on are the replay's).
 */
export async function settleLo(
  groups: readonly Group[],
  groupOf: ReadonlyMap<string, Group>,
  read: (since: (g: Group) => number) => Promise<StoredVisit[]>,
): Promise<StoredVisit[]> {
  for (const group of groups) group.lo = group.since;
  let visits: StoredVisit[] = [];
  for (let round = 0; round < 4; round++) {
    visits = await read((g) => g.lo - VISIT_GAP_MS);
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
  return visits;
}

/** The replay's input of each group: its stored visits from `lo` on (its events are added by the caller). */
export function replayInputs(
  groups: readonly Group[],
  groupOf: ReadonlyMap<string, Group>,
  visits: readonly StoredVisit[],
): Map<Group, ReplayGroup> {
  const inputs = new Map<Group, ReplayGroup>();
  for (const group of groups) {
    const { site, visitors, links, lo } = group;
    inputs.set(group, { site, visitors, links, lo, visits: [], events: [] });
  }
  for (const v of visits) {
    const group = groupOf.get(`${v.site}\u0000${v.visitor}`);
    if (group !== undefined && v.start >= group.lo) inputs.get(group)!.visits.push(v);
  }
  return inputs;
}
