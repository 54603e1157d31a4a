import { type DuckDBConnection, timestampTZValue } from '@duckdb/node-api';
import type { Assignment, VisitBatch, VisitRow } from '../visits/engine.ts';
import { VISIT_GAP_MS } from '../visits/model.ts';
import { type ReplayGroup, replay, type StoredEvent, type StoredVisit } from '../visits/replay.ts';
import type { VisitorStore } from '../visits/store.ts';
import {
  APPLY_EVENT_FIXES_SQL,
  DELETE_REPLAYED_VISITS_SQL,
  EVENT_FIXES_TABLE_SQL,
  PREV_COLUMNS,
  REPLAY_EVENTS_SQL,
  REPLAY_FROM_TABLE_SQL,
  REPLAY_VISITS_SQL,
  TOUCH_REPLAYED_SQL,
} from './load-sql.ts';

/**
 * The loader's replay at commit (loader.ts): the visitors a batch left to it, rebuilt inside the
 * batch's transaction with visits/replay.ts.
 */

/** A time in ms as the TIMESTAMPTZ value DuckDB takes. */
export const instant = (ms: number) => timestampTZValue(BigInt(Math.floor(ms)) * 1000n);

/**
 * Rebuilds the visitors left to the replay (visits/replay.ts): reads their visits and events
 * from where a change could start (inside this transaction: the batch's events are in), replays
 * them, writes the changed events back and returns their visit rows and who they are (by site
 * and id). The stored visits it rebuilt are deleted first.
 */
export async function replayBatch(
  c: DuckDBConnection,
  store: VisitorStore,
  batch: VisitBatch,
  firstAt: ReadonlyMap<string, number>,
  generation: number,
): Promise<{ rows: VisitRow[]; visitors: Set<string> }> {
  const groups = replayGroups(batch, firstAt);
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
    await replayFrom(c, store, groups, (g) => g.lo - VISIT_GAP_MS);
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
  await replayFrom(c, store, groups, (g) => g.lo);
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
  await c.run(TOUCH_REPLAYED_SQL, [generation]);
  await replayFrom(c, store, groups, (g) => g.lo);
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
    const from = batch.changedFrom.get(group.site);
    if (from === undefined || group.lo < from) batch.changedFrom.set(group.site, group.lo);
  }
  return { rows, visitors: new Set(groupOf.keys()) };
}

async function replayFrom(
  c: DuckDBConnection,
  store: VisitorStore,
  groups: Group[],
  since: (g: Group) => number,
): Promise<void> {
  await c.run(REPLAY_FROM_TABLE_SQL);
  const appender = await c.createAppender('replay_from', 'main', 'temp');
  try {
    for (const g of groups) {
      for (const visitor of g.visitors) {
        appender.appendVarchar(g.site);
        appender.appendVarchar(visitor);
        appender.appendUBigInt(store.keyOf(visitor));
        appender.appendTimestampTZ(instant(since(g)));
        appender.endRow();
      }
    }
  } finally {
    appender.closeSync();
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
