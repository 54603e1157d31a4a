import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import type { WalRecord } from '@footfall/schema';
import { VisitorStore } from '../../visits/store.ts';
import type { BatchRecord } from '../loader.ts';
import { onStream } from '../test-fixtures.ts';
import { clickhouseClient } from './connection.ts';
import { ClickHouseLoader, type LoadStep } from './loader.ts';
import { migrateClickHouse } from './migrations.ts';

/** Test support: the chdb test server and fresh databases with a loader each. */
export interface ClickHouseHarness {
  dir: string;
  server: TestServer;
  /** a fresh, migrated database: its client, and a loader (again: reopened on the same store and spool) */
  database(step?: (s: LoadStep) => void): Promise<{
    client: ClickHouseClient;
    loader: ClickHouseLoader;
    reopen(step?: (s: LoadStep) => void): Promise<ClickHouseLoader>;
  }>;
  close(): Promise<void>;
}

let databases = 0;

export async function startHarness(): Promise<ClickHouseHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'ff-ch-'));
  const server = await startTestServer({ path: join(dir, 'ch'), port: 0 });
  const admin = clickhouseClient({ url: server.url, database: 'unused' }, { server: true });
  const clients: ClickHouseClient[] = [admin];
  return {
    dir,
    server,
    async database(step) {
      const database = `ff_t${process.pid}_${++databases}`;
      await migrateClickHouse(admin, database);
      const client = clickhouseClient({ url: server.url, database });
      clients.push(client);
      const own = join(dir, database);
      mkdirSync(own, { recursive: true });
      const reopen = async (stepAt?: (s: LoadStep) => void) => {
        const store = new VisitorStore(join(own, 'visitors.db'));
        const loader = new ClickHouseLoader({ client, store, dir: join(own, 'loading'), step: stepAt });
        await loader.open();
        return loader;
      };
      return { client, loader: await reopen(step), reopen };
    },
    async close() {
      for (const c of clients) await c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/* The tables of both engines, read as plain values so they compare (loader.test.ts, copy.test.ts). */

/** The batches as the tailer hands them: numbered on stream 'a', in the order given. */
export function numbered(batches: WalRecord[][]): BatchRecord[][] {
  let seq = 0n;
  return batches.map((records) => {
    const out = onStream('a', records, seq + 1n);
    seq += BigInt(records.length);
    return out;
  });
}

export const TABLE_QUERIES = {
  sessions: {
    duck: `SELECT site, visitor, epoch_ms(started_at) AS s, epoch_ms(last_at) AS l, epoch_ms(ended_at) AS e,
      pageviews AS pv, events AS ev, channel, assistant, referrer, entry_page, exit_page, utm_source, utm_medium,
      utm_campaign, utm_term, utm_content, country, region, city, device, browser, os, language,
      epoch_ms(prev_at) AS prev_at,
      list_value(prev_channel, prev_referrer, prev_entry_page, prev_exit_page, prev_campaign, prev_source,
        prev_medium, prev_term, prev_content, prev_country, prev_region, prev_city, prev_device, prev_browser,
        prev_os, prev_language)::VARCHAR[] AS prevs, session_id::VARCHAR AS id
      FROM sessions ORDER BY site, visitor, s`,
    ch: `SELECT site, visitor, toUnixTimestamp64Milli(started_at) AS s, toUnixTimestamp64Milli(last_at) AS l,
      toUnixTimestamp64Milli(ended_at) AS e, pageviews AS pv, events AS ev, channel, assistant, referrer, entry_page,
      exit_page, utm_source, utm_medium, utm_campaign, utm_term, utm_content, country, region, city, device, browser,
      os, language, toUnixTimestamp64Milli(prev_at) AS prev_at,
      [prev_channel, prev_referrer, prev_entry_page, prev_exit_page, prev_campaign, prev_source, prev_medium,
        prev_term, prev_content, prev_country, prev_region, prev_city, prev_device, prev_browser, prev_os,
        prev_language] AS prevs, toString(session_id) AS id
      FROM sessions FINAL ORDER BY site, visitor, s`,
  },
  events: {
    duck: `SELECT site, id, epoch_ms(ts) AS ts, visitor_key::VARCHAR AS vk, kind, name, props, host, path, channel,
      country, device, browser, screen_w, engaged_ms, scroll, lcp, epoch_ms(visit_start) AS vs, visit_first AS vf,
      epoch_ms(prev_view_at) AS pva FROM events ORDER BY site, id`,
    ch: `SELECT site, id, toUnixTimestamp64Milli(ts) AS ts, toString(visitor_key) AS vk, kind, name, props, host, path,
      channel, country, device, browser, screen_w, engaged_ms, scroll, lcp, toUnixTimestamp64Milli(visit_start) AS vs,
      visit_first AS vf, toUnixTimestamp64Milli(prev_view_at) AS pva FROM events FINAL ORDER BY site, id`,
  },
  crawls: {
    duck: `SELECT site, strftime(day, '%Y-%m-%d') AS day, robot, robot_kind, path, status_class, hits
      FROM crawl_counters ORDER BY ALL`,
    ch: `SELECT site, toString(day) AS day, robot, robot_kind, path, status_class, sum(hits) AS hits
      FROM crawl_counters GROUP BY ALL ORDER BY ALL`,
  },
  bots: {
    duck: `SELECT site, strftime(day, '%Y-%m-%d') AS day, kind, hits FROM bot_counters ORDER BY ALL`,
    ch: 'SELECT site, toString(day) AS day, kind, sum(hits) AS hits FROM bot_counters GROUP BY ALL ORDER BY ALL',
  },
  positions: {
    duck: 'SELECT stream, seq FROM stream_positions ORDER BY stream',
    ch: 'SELECT stream, max(seq) AS seq FROM stream_positions GROUP BY stream ORDER BY stream',
  },
} as const;

/** Plain values, so the two engines' answers compare (times in ms, -infinity as 1900, numbers as numbers). */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'string' && /^-?\d+$/.test(value) && value.length < 16) return Number(value);
  if (typeof value === 'string' && value === '-infinity') return '1900-01-01T00:00:00.000Z';
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d/.test(value)) {
    return new Date(`${value.replace(' ', 'T').replace(/(\+00(:00)?|Z)?$/, '')}Z`).toISOString();
  }
  return value;
}

export const plainRows = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)])));

/** Reads each table of a DuckDB file (closed) back. */
export async function duckTablesAt(path: string): Promise<Record<string, unknown[]>> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  const out: Record<string, unknown[]> = {};
  for (const [name, q] of Object.entries(TABLE_QUERIES)) {
    out[name] = plainRows((await c.runAndReadAll(q.duck)).getRowObjectsJS() as Record<string, unknown>[]);
  }
  c.closeSync();
  instance.closeSync();
  return out;
}

export async function chTables(client: ClickHouseClient): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [name, q] of Object.entries(TABLE_QUERIES)) {
    const rows = await (await client.query({ query: q.ch, format: 'JSONEachRow' })).json<
      Record<string, unknown>
    >();
    out[name] = plainRows(rows);
  }
  return out;
}
