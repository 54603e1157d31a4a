import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Assignment, VisitBatch, VisitRow } from '../../visits/engine.ts';
import { sessionIdOf } from '../../visits/model.ts';
import {
  type Group,
  groupIndex,
  type ReplayGroup,
  replay,
  replayGroups,
  replayInputs,
  type StoredEvent,
  settleLo,
} from '../../visits/replay.ts';
import type { VisitorStore } from '../../visits/store.ts';
import { readRows } from './reads.ts';
import { cancelOf, chTime, type Row, reassigned, storedEventOf, storedVisitOf } from './rows.ts';
import { insertRows, stagedLines } from './staging.ts';

/** The ClickHouse loader's replay (loader.ts): the visitors a batch left to it, rebuilt before anything of the batch is written. */

/**
 * Rebuilds the visitors left to the replay (visits/replay.ts) from their stored visits and
 * events (read collapsed, before anything of the batch is written) and the batch's own.
 * Returns the events to write (cancels of changed stored events, their new states, and the
 * batch's events of these visitors), the visits to cancel and write, and who was rebuilt.
 */
export async function replayStaged(b: {
  client: ClickHouseClient;
  store: VisitorStore;
  visits: VisitBatch;
  firstAt: ReadonlyMap<string, number>;
  staging: string;
  copies: ReadonlyMap<string, string>;
  generation: number;
}): Promise<Replayed> {
  const { client, store, copies } = b;
  const groups = replayGroups(b.visits, b.firstAt);
  const { groupOf, byKey } = groupIndex(groups, (visitor) => store.keyOf(visitor));
  const keysFrom = async (since: (g: Group) => number): Promise<string> => {
    const attempt = randomUUID();
    const rows: Row[] = [];
    for (const g of groups) {
      for (const visitor of g.visitors) {
        rows.push({
          attempt,
          site: g.site,
          visitor_key: String(store.keyOf(visitor)),
          since: chTime(since(g)),
        });
      }
    }
    await insertRows(client, 'load_keys', rows);
    return attempt;
  };
  const sites = [...new Set(groups.map((g) => g.site))];
  const storedVisits = new Map<string, Row>();
  const visits = await settleLo(groups, groupOf, async (since) => {
    const attempt = await keysFrom(since);
    const rows = await readRows<Row>(
      client,
      `SELECT s.* FROM sessions AS s FINAL
       INNER JOIN (SELECT site, visitor_key, since FROM load_keys WHERE attempt = {attempt:UUID}) AS k
         ON s.site = k.site AND s.visitor_key = k.visitor_key
       WHERE s.site IN {sites:Array(String)} AND s.last_at >= k.since`,
      { attempt, sites },
    );
    const out = [];
    for (const row of rows) {
      const site = row['site'] as string;
      const visitor = row['visitor'] as string;
      if (!groupOf.has(`${site}\u0000${visitor}`)) continue;
      const start = Date.parse(`${(row['started_at'] as string).replace(' ', 'T')}Z`);
      storedVisits.set(`${site}\u0000${visitor}\u0000${start}`, row);
      out.push(storedVisitOf(row, sessionIdOf(site, visitor, start)));
    }
    return out;
  });
  const inputs = replayInputs(groups, groupOf, visits);
  const attempt = await keysFrom((g) => g.lo);
  let from = Number.POSITIVE_INFINITY;
  for (const g of groups) from = Math.min(from, g.lo);
  const storedRows = await readRows<Row>(
    client,
    `SELECT e.* FROM events AS e FINAL
     INNER JOIN (SELECT site, visitor_key, since FROM load_keys WHERE attempt = {attempt:UUID}) AS k
       ON e.site = k.site AND e.visitor_key = k.visitor_key
     WHERE e.site IN {sites:Array(String)} AND e.ts >= {from:DateTime64(3, 'UTC')} AND e.ts >= k.since`,
    { attempt, sites, from: chTime(from) },
  );
  /** every event the replay walks, by site, id and time: its row and whether it is stored */
  const rowOf = new Map<string, { row: Row; stored: boolean }>();
  const add = (row: Row, stored: boolean): void => {
    const of = byKey.get(`${row['site']}\u0000${row['visitor_key']}`);
    if (of === undefined) return;
    const visitor = of.visitor;
    const e: StoredEvent = storedEventOf(row, visitor, (start) => sessionIdOf(of.group.site, visitor, start));
    inputs.get(of.group)!.events.push(e);
    rowOf.set(`${e.site}\u0000${e.id}\u0000${e.ts}`, { row, stored });
  };
  for (const row of storedRows) add(row, true);
  const batchEvents: Row[] = [];
  for await (const { key, row } of stagedLines(b.staging)) {
    if (copies.has(`${key.site}\u0000${key.id}`) || !groupOf.has(`${key.site}\u0000${key.owner}`)) continue;
    const parsed = JSON.parse(row) as Row;
    add(parsed, false);
    batchEvents.push(parsed);
  }
  const rows: VisitRow[] = [];
  const events: Row[] = [];
  const updated = new Map<string, Assignment>();
  for (const [group, input] of inputs as Map<Group, ReplayGroup>) {
    const out = replay(store, input, (visitor) => store.committedCopy(group.site, visitor));
    for (const record of out.records) store.replace(record);
    rows.push(...out.rows);
    for (const u of out.updates) updated.set(`${u.site}\u0000${u.id}\u0000${u.ts}`, u);
  }
  for (const [k, a] of updated) {
    const known = rowOf.get(k);
    if (known === undefined || !known.stored) continue;
    events.push(cancelOf(known.row), reassigned(known.row, a, b.generation));
  }
  for (const row of batchEvents) {
    const a = updated.get(
      `${row['site']}\u0000${row['id']}\u0000${Date.parse(`${(row['ts'] as string).replace(' ', 'T')}Z`)}`,
    );
    events.push(a === undefined ? row : reassigned(row, a, b.generation));
  }
  // the stored visits the replay rebuilt: those of each group from its lo on
  const cancels: Row[] = [];
  for (const [k, row] of storedVisits) {
    const [site, visitor, start] = k.split('\u0000') as [string, string, string];
    const group = groupOf.get(`${site}\u0000${visitor}`);
    if (group !== undefined && Number(start) >= group.lo) cancels.push(row);
  }
  return { visitors: new Set(groupOf.keys()), rows, cancels, events };
}

export interface Replayed {
  /** the rebuilt visitors, by site and id */
  visitors: Set<string>;
  rows: VisitRow[];
  /** the stored visits they replace (rows as read) */
  cancels: Row[];
  events: Row[];
}
