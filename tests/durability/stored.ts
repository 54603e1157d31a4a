import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { decodeWalRecord } from '@footfall/schema';
import { listWalStreams, openWalReader } from '@footfall/wal';

/** One stored event row, as the checks need it. */
export interface StoredEvent {
  id: string;
  kind: string;
  /** the visitor id's `visitor_key` (events store only that; see support/visitor-key.ts) */
  visitorKey: string;
  /** epoch ms */
  ts: number;
  sessionId: string | null;
  /** epoch ms */
  visitStart: number | null;
}

/** One stored visit row. */
export interface StoredVisit {
  sessionId: string;
  visitorKey: string;
  startedAt: number;
  lastAt: number;
  pageviews: number;
  events: number;
}

export interface StoredAnalytics {
  events: StoredEvent[];
  visits: StoredVisit[];
  /** applied seq per WAL stream */
  positions: Map<string, bigint>;
}

const text = (v: unknown): string => String(v);
const num = (v: unknown): number => Number(v);
const orNull = <T>(v: unknown, f: (x: unknown) => T): T | null =>
  v === null || v === undefined ? null : f(v);

/**
 * Reads a site's events, visits and the applied WAL positions from analytics.duckdb, opened
 * read-only: the query service must be stopped (DuckDB allows one opening process).
 */
export async function readStored(path: string, site: string): Promise<StoredAnalytics> {
  const db = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await db.connect();
  try {
    const rows = async (sql: string) =>
      (await connection.runAndReadAll(sql, [site])).getRowObjectsJS() as Record<string, unknown>[];
    const events = (
      await rows(
        `SELECT id, kind, visitor_key::VARCHAR AS visitor_key, epoch_ms(ts) AS ts, session_id::VARCHAR AS session_id,
           epoch_ms(visit_start) AS visit_start
         FROM events WHERE site = $1`,
      )
    ).map((r) => ({
      id: text(r.id),
      kind: text(r.kind),
      visitorKey: text(r.visitor_key),
      ts: num(r.ts),
      sessionId: orNull(r.session_id, text),
      visitStart: orNull(r.visit_start, num),
    }));
    const visits = (
      await rows(
        `SELECT session_id::VARCHAR AS session_id, visitor_key::VARCHAR AS visitor_key, epoch_ms(started_at) AS started_at,
           epoch_ms(last_at) AS last_at, pageviews, events
         FROM sessions WHERE site = $1`,
      )
    ).map((r) => ({
      sessionId: text(r.session_id),
      visitorKey: text(r.visitor_key),
      startedAt: num(r.started_at),
      lastAt: num(r.last_at),
      pageviews: num(r.pageviews),
      events: num(r.events),
    }));
    const positions = new Map<string, bigint>();
    for (const r of (
      await connection.runAndReadAll('SELECT stream, seq FROM stream_positions')
    ).getRowObjectsJS()) {
      positions.set(text(r.stream), BigInt(r.seq as bigint));
    }
    return { events, visits, positions };
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

/** The last durable seq of every WAL stream under `walRoot`. */
export async function walEnds(walRoot: string): Promise<Map<string, bigint>> {
  const ends = new Map<string, bigint>();
  for (const stream of await listWalStreams(walRoot)) {
    const reader = openWalReader({ dir: join(walRoot, stream) });
    ends.set(stream, await reader.lastSeq());
    await reader.close();
  }
  return ends;
}

/** How many times each event id was appended to the WAL, over every stream. */
export async function walEventCopies(walRoot: string): Promise<Map<string, number>> {
  const copies = new Map<string, number>();
  for (const stream of await listWalStreams(walRoot)) {
    const reader = openWalReader({ dir: join(walRoot, stream) });
    try {
      for (let after = 0n; ; ) {
        const batch = await reader.read({ after, maxRecords: 5000 });
        if (batch.length === 0) break;
        for (const { seq, payload } of batch) {
          after = seq;
          const record = decodeWalRecord(payload);
          if (record.t === 'event') copies.set(record.id, (copies.get(record.id) ?? 0) + 1);
        }
      }
    } finally {
      await reader.close();
    }
  }
  return copies;
}
