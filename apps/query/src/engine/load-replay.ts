import { type DuckDBConnection, timestampTZValue } from '@duckdb/node-api';
import type { Assignment, VisitBatch, VisitRow } from '../visits/engine.ts';
import {
  type Group,
  groupIndex,
  replay,
  replayGroups,
  replayInputs,
  type StoredEvent,
  type StoredVisit,
  settleLo,
} from '../visits/replay.ts';
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
  const { groupOf, byKey } = groupIndex(groups, (visitor) => store.keyOf(visitor));
  const visits = await settleLo(groups, groupOf, async (since) => {
    await replayFrom(c, store, groups, since);
    return (await c.runAndReadAll(REPLAY_VISITS_SQL)).getRowObjectsJS().map(storedVisit);
  });
  await replayFrom(c, store, groups, (g) => g.lo);
  const inputs = replayInputs(groups, groupOf, visits);
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
