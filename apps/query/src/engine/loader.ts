import { type DuckDBConnection, timestampTZValue } from '@duckdb/node-api';
import type { WalRecord } from '@footfall/schema';
import { LIMITS } from '@footfall/schema';
import {
  CARRY_APPLY_SQL,
  CARRY_LINKS_SQL,
  CARRY_PAIRS_SQL,
  CARRY_RELABEL_SQL,
  CARRY_TOUCHED_SQL,
} from './carry-sql.ts';
import { INVALIDATE_ROLLUP_DAYS_SQL } from './rollup-sql.ts';
import { appendBotDrop, appendCrawl, appendEvent, CLEAR_STAGE_SQL, STAGE_TABLES_SQL } from './stage.ts';
import {
  ACTIVITY_SQL,
  ASSIGN_SQL,
  affectedSql,
  DELETE_VISITS_SQL,
  INSERT_VISITS_SQL,
  PREV_SQL,
  PREV_VIEWS_SQL,
  TOUCHED_BY_BATCH_SQL,
  UPDATE_EVENTS_SQL,
  VISITS_SQL,
  WINDOW_SQL,
} from './visits-sql.ts';

/** One WAL record with where it came from. */
export interface BatchRecord {
  stream: string;
  seq: bigint;
  record: WalRecord;
}

export interface Batch {
  records: readonly BatchRecord[];
}

/** What one applied batch did. */
export interface BatchResult {
  /** events stored (after replay skipping and id dedupe) */
  events: number;
  /** events dropped because their id was already stored (or repeated in the batch) */
  duplicates: number;
  /** records skipped because their seq was at or below the stream's stored position */
  replayed: number;
  crawls: number;
  botDrops: number;
  /** whether a transaction was committed (false when the whole batch was already applied) */
  committed: boolean;
}

/**
 * How far back, from the batch's earliest event, stored ids are compared with incoming ones.
 * The tracker retries for up to 24 hours with the same id and the same event time (receive time
 * minus queue age), so the original is always within this window of its copy.
 */
export const DEDUPE_WINDOW_MS = 48 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Test seam: called inside the transaction right before COMMIT. */
export type BeforeCommit = () => Promise<void> | void;

/** Reads the stored position of every stream. */
export async function readPositions(connection: DuckDBConnection): Promise<Map<string, bigint>> {
  const rows = (await connection.runAndReadAll('SELECT stream, seq FROM stream_positions')).getRowObjectsJS();
  const positions = new Map<string, bigint>();
  for (const row of rows) {
    const { stream, seq } = row;
    if (typeof stream === 'string' && typeof seq === 'bigint') positions.set(stream, seq);
  }
  return positions;
}

export async function prepareWriter(connection: DuckDBConnection): Promise<void> {
  for (const sql of STAGE_TABLES_SQL) await connection.run(sql);
  // The batch's temp tables have no row estimates (0), so DuckDB ran every ASOF join over them
  // (ASSIGN_SQL, the carry's) as a nested loop, which compares each engagement or vitals event
  // with every rebuilt visit: 81 of the 93 ms ASSIGN_SQL took on a batch of 10,000 demo events.
  await connection.run('SET SESSION asof_loop_join_threshold = 0');
}

const instant = (ms: number) => timestampTZValue(BigInt(Math.floor(ms)) * 1000n);

const count = async (connection: DuckDBConnection, sql: string): Promise<number> => {
  const value = (await connection.runAndReadAll(sql)).getRowsJS()[0]?.[0];
  return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : 0;
};

/**
 * Loads one batch in ONE transaction together with each stream's new position: a crash or an
 * error keeps all of it or none. Records at or below their stream's stored position are skipped
 * (replay safety); an event whose (site, id) is already stored within DEDUPE_WINDOW_MS, or
 * repeats earlier in the batch, is dropped. Visits of every visitor the batch touches are
 * rebuilt (see visits-sql.ts). The caller serialises calls: the connection is the only writer.
 */
export async function applyBatch(
  connection: DuckDBConnection,
  batch: Batch,
  beforeCommit?: BeforeCommit,
): Promise<BatchResult> {
  const result: BatchResult = {
    events: 0,
    duplicates: 0,
    replayed: 0,
    crawls: 0,
    botDrops: 0,
    committed: false,
  };
  if (batch.records.length === 0) return result;
  await connection.run('BEGIN TRANSACTION');
  try {
    const stored = await readPositions(connection);
    const next = new Map<string, bigint>();
    const events = await connection.createAppender('stage_events', 'main', 'temp');
    const crawls = await connection.createAppender('stage_crawl', 'main', 'temp');
    const bots = await connection.createAppender('stage_bots', 'main', 'temp');
    let staged = 0;
    // an event id repeated inside the batch: the first one is kept (the stored ones are dropped
    // in loadEvents)
    const ids = new Set<string>();
    let repeated = 0;
    let minAt = Number.POSITIVE_INFINITY;
    try {
      for (const { stream, seq, record } of batch.records) {
        const position = stored.get(stream);
        if (position !== undefined && seq <= position) {
          result.replayed++;
          continue;
        }
        const seen = next.get(stream);
        if (seen === undefined || seq > seen) next.set(stream, seq);
        if (record.t === 'event') {
          const key = `${record.site}\n${record.id}`;
          if (ids.has(key)) {
            repeated++;
            continue;
          }
          ids.add(key);
          appendEvent(events, record);
          staged++;
          if (record.at < minAt) minAt = record.at;
        } else if (record.t === 'crawl') {
          appendCrawl(crawls, record);
          result.crawls++;
        } else {
          appendBotDrop(bots, record);
          result.botDrops++;
        }
      }
    } finally {
      events.closeSync();
      crawls.closeSync();
      bots.closeSync();
    }
    if (next.size === 0) {
      await connection.run('ROLLBACK');
      return result;
    }
    if (staged > 0) result.events = await loadEvents(connection, minAt);
    result.duplicates = repeated + staged - result.events;
    if (result.crawls > 0) await loadCounters(connection);
    for (const [stream, seq] of next) {
      await connection.run(
        `INSERT INTO stream_positions VALUES ($1, $2)
         ON CONFLICT (stream) DO UPDATE SET seq = greatest(seq, excluded.seq)`,
        [stream, seq],
      );
    }
    if (result.botDrops > 0) {
      await connection.run(
        `INSERT INTO bot_counters SELECT site, day::DATE, kind, count(*) FROM stage_bots GROUP BY ALL
         ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
      );
    }
    for (const sql of CLEAR_STAGE_SQL) await connection.run(sql);
    await beforeCommit?.();
    await connection.run('COMMIT');
    result.committed = true;
    return result;
  } catch (error) {
    await rollback(connection);
    throw error;
  }
}

/**
 * Rolls the batch's transaction back. DuckDB has already ended a transaction that an error such as
 * Out of Memory aborted, and then refuses the ROLLBACK: the original error is the one to report.
 */
export async function rollback(connection: DuckDBConnection): Promise<void> {
  try {
    await connection.run('ROLLBACK');
  } catch {
    // no transaction is active any more
  }
}

/** Runs `work` in one transaction on `connection`: committed when it resolves, else rolled back. */
export async function inTransaction(connection: DuckDBConnection, work: () => Promise<void>): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await work();
    await connection.run('COMMIT');
  } catch (error) {
    await rollback(connection);
    throw error;
  }
}

async function loadCounters(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `INSERT INTO crawl_counters
     SELECT site, day::DATE, robot, robot_kind, path, status_class, count(*) FROM stage_crawl GROUP BY ALL
     ON CONFLICT DO UPDATE SET hits = hits + excluded.hits`,
  );
}

/** Dedupes the staged events, builds their visits and stores them; returns how many were new. */
async function loadEvents(connection: DuckDBConnection, minAt: number): Promise<number> {
  // what is left staged is new_ev (stage.ts)
  await connection.run(
    `DELETE FROM stage_events s
     WHERE EXISTS (SELECT 1 FROM events e WHERE e.site = s.site AND e.id = s.id AND e.ts >= $1)`,
    [instant(minAt - DEDUPE_WINDOW_MS)],
  );
  const fresh = await count(connection, 'SELECT count(*) FROM new_ev');
  if (fresh === 0) return 0;
  const moved = await carryOverMidnight(connection, minAt);
  await connection.run(
    affectedSql(moved ? `${TOUCHED_BY_BATCH_SQL} UNION ALL ${CARRY_TOUCHED_SQL}` : TOUCHED_BY_BATCH_SQL),
    [instant(minAt - LIMITS.visitGapMs)],
  );
  await connection.run(INVALIDATE_ROLLUP_DAYS_SQL);
  const lo = await connection.runAndReadAll('SELECT min(lo) FROM affected');
  const minLo = lo.getRows()[0]?.[0];
  if (minLo === null || minLo === undefined) throw new Error('no visitors affected by a non-empty batch');
  const params = [minLo];
  await connection.run(WINDOW_SQL, params);
  await connection.run(ACTIVITY_SQL);
  await connection.run(VISITS_SQL);
  await connection.run(ASSIGN_SQL);
  await connection.run(PREV_VIEWS_SQL); // reads stored first views before lo
  await connection.run(UPDATE_EVENTS_SQL, params);
  await connection.run(
    `INSERT INTO events
     SELECT n.site, n.id, n.ts, n.kind, n.name, n.props, n.host, n.path, n.visitor_key, n.id_mode,
       n.referrer_host, n.referrer_path, n.channel, n.assistant, n.utm_source, n.utm_medium, n.utm_campaign,
       n.utm_term, n.utm_content, n.click_id, n.browser, n.browser_version, n.os, n.os_version, n.device,
       n.language, n.country, n.region, n.city, n.screen_w, n.screen_h, n.engaged_ms, n.scroll, n.lcp, n.fcp,
       n.inp, n.ttfb, n.cls, a.session_id, a.visit_start, coalesce(a.visit_first, false), a.prev_view_at
     FROM new_ev n LEFT JOIN asgp a ON a.is_new AND a.site = n.site AND a.id = n.id`,
  );
  await connection.run(PREV_SQL); // reads stored visits before lo: before the delete
  await connection.run(DELETE_VISITS_SQL, params);
  await connection.run(INSERT_VISITS_SQL);
  return fresh;
}

/**
 * Keeps cookieless visits that run over midnight whole (carry-sql.ts): records the batch's links
 * between a visitor's hash and the next day's, and moves the next day's events that continue the
 * earlier visit to its id. Returns whether stored events moved (their visitors are then rebuilt).
 */
async function carryOverMidnight(connection: DuckDBConnection, minAt: number): Promise<boolean> {
  await connection.run(CARRY_LINKS_SQL[0]!, [instant(minAt - 3 * DAY_MS)]);
  await connection.run(CARRY_LINKS_SQL[1]!);
  await connection.run(CARRY_PAIRS_SQL);
  if ((await count(connection, 'SELECT count(*) FROM carry_pairs')) === 0) return false;
  await connection.run(CARRY_RELABEL_SQL, [instant(minAt - 2 * DAY_MS)]);
  for (const sql of CARRY_APPLY_SQL) await connection.run(sql);
  return (await count(connection, 'SELECT count(*) FROM carry_relabel WHERE NOT is_new')) > 0;
}
