import type { DuckDBConnection } from '@duckdb/node-api';
import { fold } from '../visits/engine.ts';
import { viewKey } from '../visits/model.ts';
import { emptyRecord, type VisitorRecord, type VisitorStore } from '../visits/store.ts';

/**
 * Builds visitor records (visits/store.ts) from the stored visits and events: when the store is
 * missing or does not match the database (a first start after the upgrade, a restored backup), for
 * every visitor; after a crash between a batch's commit and the store's, for the visitors of the
 * batches the store missed.
 */

/** Visitors whose records a rebuild builds, at most, at a time (memory bound). */
const VISITORS_PER_PASS = 50_000;

/** Rebuilds every record. */
export async function rebuildVisitorStore(
  connection: DuckDBConnection,
  store: VisitorStore,
  generation: number,
): Promise<number> {
  const visitors = Number(
    (
      await connection.runAndReadAll('SELECT count(DISTINCT (site, visitor_key)) FROM sessions')
    ).getRows()[0]![0],
  );
  const passes = Math.max(1, Math.ceil(visitors / VISITORS_PER_PASS));
  let built = 0;
  for (let pass = 0; pass < passes; pass++) {
    const filter = (alias: string) => `${alias}.visitor_key % ${passes} = ${pass}`;
    const records = await recordsOf(connection, store, filter);
    // a visitor whose only events joined no visit has no visit to name them: their record is
    // found by key alone (the store keys records by site and visitor key)
    await addOrphans(connection, records, filter, (site, key) => emptyRecord(site, `\u0000${key}`, key));
    built += records.size;
    store.writeAll(records.values(), generation);
  }
  store.writeAll(await linkRecords(connection, store, new Map(), 'all'), generation);
  return built;
}

/** Rebuilds the records of the visitors the batches after `from` (up to `to`) changed. */
export async function repairVisitorStore(
  connection: DuckDBConnection,
  store: VisitorStore,
  from: number,
  to: number,
): Promise<number> {
  await connection.run(`
    CREATE OR REPLACE TEMP TABLE repair_who AS
    SELECT DISTINCT site, visitor, md5_number_lower(visitor) AS visitor_key FROM (
      SELECT site, visitor FROM sessions WHERE gen > ${from}
      UNION ALL SELECT site, visitor FROM loader_touched WHERE gen > ${from}
      UNION ALL SELECT c.site, c.p FROM visit_carries c JOIN loader_touched t ON t.site = c.site AND t.visitor = c.x WHERE t.gen > ${from}
      UNION ALL SELECT c.site, c.x FROM visit_carries c JOIN loader_touched t ON t.site = c.site AND t.visitor = c.p WHERE t.gen > ${from}
    )`);
  const filter = (alias: string) =>
    `EXISTS (SELECT 1 FROM repair_who w WHERE w.site = ${alias}.site AND w.visitor_key = ${alias}.visitor_key)`;
  const records = await recordsOf(connection, store, filter);
  const who = new Set(
    (await connection.runAndReadAll('SELECT site, visitor FROM repair_who'))
      .getRows()
      .map(([site, v]) => `${site}\u0000${v}`),
  );
  // a visitor of the repair with no visit left: an empty record (its old one is stale)
  for (const k of who) {
    if (!records.has(k)) {
      const [site, visitor] = k.split('\u0000') as [string, string];
      records.set(k, emptyRecord(site, visitor));
    }
  }
  await addOrphans(connection, records, filter, () => undefined);
  const linked = await linkRecords(connection, store, records, who);
  store.writeAll(new Set([...records.values(), ...linked]), to);
  await connection.run(`DELETE FROM loader_touched WHERE gen <= ${to}`);
  return records.size;
}

/**
 * The records of the visitors `filter` selects (a condition on a table alias with site and
 * visitor_key), from all their stored visits and first views.
 */
async function recordsOf(
  connection: DuckDBConnection,
  store: VisitorStore,
  filter: (alias: string) => string,
): Promise<Map<string, VisitorRecord>> {
  const visits = (
    await connection.runAndReadAll(`
      SELECT site, visitor, session_id, epoch_ms(started_at), epoch_ms(last_at), epoch_ms(ended_at),
        pageviews, events, exit_page, channel, referrer, entry_page, utm_campaign, utm_source,
        utm_medium, utm_term, utm_content, country, region, city, device, browser, os, language, assistant
      FROM sessions s WHERE ${filter('s')}
      ORDER BY site, visitor, started_at`)
  ).getColumns();
  const views = new Map<string, string[]>();
  const [vSite, vSession, vKind, vWhat] = (
    await connection.runAndReadAll(`
      SELECT e.site, e.session_id, e.kind, CASE WHEN e.kind = 'pv' THEN e.path ELSE e.name END
      FROM events e WHERE e.visit_first AND ${filter('e')}`)
  ).getColumns();
  for (let i = 0; i < (vSite?.length ?? 0); i++) {
    const k = `${vSite![i]}\u0000${vSession![i]}`;
    let list = views.get(k);
    if (list === undefined) {
      list = [];
      views.set(k, list);
    }
    list.push(viewKey(vKind![i] as string, vWhat![i] as string | null));
  }
  // the id of each visitor's latest visit's last activity (events sort by time, then id)
  const lastIds = new Map<string, string>();
  const [lSite, lSession, lId] = (
    await connection.runAndReadAll(`
      WITH latest AS (
        SELECT site, visitor_key, arg_max(session_id, started_at) AS session_id, max(last_at) AS last_at
        FROM sessions s WHERE ${filter('s')} GROUP BY site, visitor_key)
      SELECT l.site, l.session_id, max(e.id)
      FROM events e JOIN latest l ON e.site = l.site AND e.session_id = l.session_id AND e.ts = l.last_at
      WHERE e.kind BETWEEN 'ev' AND 'pv'
      GROUP BY l.site, l.session_id`)
  ).getColumns();
  for (let i = 0; i < (lSite?.length ?? 0); i++)
    lastIds.set(`${lSite![i]}\u0000${lSession![i]}`, lId![i] as string);
  const records = new Map<string, VisitorRecord>();
  const [site, visitor, session, started, last, ended, pageviews, events, exit, ...dims] = visits;
  let record: VisitorRecord | undefined;
  for (let i = 0; i < (site?.length ?? 0); i++) {
    const s = site![i] as string;
    const v = visitor![i] as string;
    if (record === undefined || record.site !== s || record.visitor !== v) {
      record = emptyRecord(s, v);
      records.set(`${s}\u0000${v}`, record);
    }
    fold(store, record);
    const start = Number(started![i]);
    const k = `${s}\u0000${session![i]}`;
    // dims in the record's order (model.ts DIMENSIONS, exit unused, then the assistant)
    const d = dims.map((column) => column[i] as string | null);
    record.latest = {
      id: session![i] as bigint,
      start,
      lastTs: Number(last![i]),
      lastId: lastIds.get(k) ?? '',
      end: Number(ended![i]),
      pageviews: Number(pageviews![i]),
      events: Number(events![i]),
      exit: exit![i] as string | null,
      dims: [d[0]!, d[1]!, d[2]!, null, ...d.slice(3)],
      views: new Set(views.get(k) ?? []),
    };
  }
  return records;
}

/**
 * Puts on the records of the visitors `filter` selects the time of their latest stored engagement
 * or vitals event that joined no visit (VisitorRecord.orphanAt; at least as late as the one the
 * lost record held, which is all the rule needs: an earlier activity replays the visitor). A
 * visitor with no record in `records` gets the one `make` gives, if any.
 */
async function addOrphans(
  connection: DuckDBConnection,
  records: Map<string, VisitorRecord>,
  filter: (alias: string) => string,
  make: (site: string, key: bigint) => VisitorRecord | undefined,
): Promise<void> {
  const [site, key, at] = (
    await connection.runAndReadAll(`
      SELECT e.site, e.visitor_key, epoch_ms(max(e.ts))
      FROM events e WHERE e.session_id IS NULL AND e.kind NOT IN ('pv', 'ev') AND ${filter('e')}
      GROUP BY e.site, e.visitor_key`)
  ).getColumns();
  if (site === undefined || site.length === 0) return;
  const byKey = new Map<string, VisitorRecord>();
  for (const r of records.values()) byKey.set(`${r.site}\u0000${r.key}`, r);
  for (let i = 0; i < site.length; i++) {
    const s = site[i] as string;
    const k = key![i] as bigint;
    let record = byKey.get(`${s}\u0000${k}`);
    if (record === undefined) {
      record = make(s, k);
      if (record === undefined) continue;
      records.set(`${s}\u0000${record.visitor}`, record);
    }
    record.orphanAt = Number(at![i]);
  }
}

/**
 * Puts the stored carry links on the records (visits/store.ts, CarryLink): of every link when
 * `who` is 'all', else of the links touching a visitor in `who`. Records not in `records` are
 * taken from the store (or made). Returns the records it changed.
 */
async function linkRecords(
  connection: DuckDBConnection,
  store: VisitorStore,
  records: Map<string, VisitorRecord>,
  who: 'all' | Set<string>,
): Promise<VisitorRecord[]> {
  const changed = new Map<string, VisitorRecord>();
  const recordOf = (site: string, visitor: string) => {
    const k = `${site}\u0000${visitor}`;
    let r = records.get(k) ?? changed.get(k);
    if (r === undefined) {
      r = store.committedCopy(site, visitor);
      records.set(k, r);
    }
    changed.set(k, r);
    return r;
  };
  const rows = (await connection.runAndReadAll('SELECT site, p, x FROM visit_carries')).getRowObjectsJS() as {
    site: string;
    p: string;
    x: string;
  }[];
  for (const { site, p, x } of rows) {
    if (who !== 'all' && !who.has(`${site}\u0000${p}`) && !who.has(`${site}\u0000${x}`)) continue;
    const xr = recordOf(site, x);
    xr.link = { p, byP: xr.latest === null };
    const pr = recordOf(site, p);
    pr.carried ??= [];
    if (!pr.carried.includes(x)) pr.carried.push(x);
  }
  return [...changed.values()];
}
