import type { ClickHouseClient } from '@clickhouse/client';
import type { VisitorStore } from '../../visits/store.ts';
import type { Expired } from '../engine.ts';
import { readRows } from './reads.ts';
import { chTime } from './rows.ts';

const BEFORE = "{before:DateTime64(3, 'UTC')}";

/**
 * Deletes a site's visits that started before `before` (unix ms) on ClickHouse, as the DuckDB
 * engine does (../expire.ts): their states (+1 and -1 rows alike), their events, the events of no
 * visit from before it and the carries of those days, each table by one `ALTER TABLE … DELETE`
 * waited for; then the visitor records of those whose every visit went. Counted first, by sign.
 */
export async function expireVisitsCh(
  client: ClickHouseClient,
  store: VisitorStore,
  site: string,
  before: number,
): Promise<Expired> {
  const params = { site, before: chTime(before) };
  const eventsWhere = `site = {site:String} AND (visit_start < ${BEFORE} OR (visit_start IS NULL AND ts < ${BEFORE}))`;
  const visitsWhere = `site = {site:String} AND started_at < ${BEFORE}`;
  const [counts] = await readRows<{ visits: string; events: string }>(
    client,
    `SELECT (SELECT sum(sign) FROM sessions WHERE ${visitsWhere}) AS visits,
            (SELECT sum(sign) FROM events WHERE ${eventsWhere}) AS events`,
    params,
  );
  const out: Expired = { visits: Number(counts?.visits ?? 0), events: Number(counts?.events ?? 0) };
  const gone = (
    await readRows<{ visitor: string; visitor_key: string }>(
      client,
      `SELECT visitor, visitor_key FROM sessions WHERE site = {site:String}
       GROUP BY visitor, visitor_key HAVING max(started_at) < ${BEFORE}`,
      params,
    )
  ).map((r) => ({ visitor: r.visitor, key: BigInt(r.visitor_key) }));
  for (const [table, where] of [
    ['events', eventsWhere],
    ['sessions', visitsWhere],
    ['visit_carries', `site = {site:String} AND last_at < ${BEFORE}`],
  ] as const) {
    const rows = await readRows<{ n: string }>(
      client,
      `SELECT count() AS n FROM ${table} WHERE ${where}`,
      params,
    );
    if (Number(rows[0]?.n ?? 0) === 0) continue; // no mutation for nothing
    await client.command({
      query: `ALTER TABLE ${table} DELETE WHERE ${where}`,
      query_params: params,
      clickhouse_settings: { mutations_sync: '2' },
    });
  }
  if (gone.length > 0) store.forget(site, gone);
  return out;
}
