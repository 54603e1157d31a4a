import { DuckDBInstance } from '@duckdb/node-api';
import type { WalBotDrop, WalCrawl, WalEvent, WalRecord } from '@footfall/schema';
import type { BatchRecord } from './loader.ts';
import { MIGRATIONS, migrate, schemaVersion } from './migrations.ts';

/** Test helpers: hand-built WAL records with only what a test cares about spelled out. */

let counter = 0;

/**
 * Waits until the engine has built every day rollup asked for: each call of `positions` waits
 * on the writer for the run being built (runs are handed to the writer one at a time).
 */
export async function rollupsBuilt(engine: {
  rollupWork: { queuedDays: number };
  positions(): Promise<unknown>;
}): Promise<void> {
  while (engine.rollupWork.queuedDays > 0) await engine.positions();
}

/** Milliseconds since the epoch of an ISO instant such as '2026-03-02T10:00:00Z'. */
export const ms = (iso: string): number => {
  const value = Date.parse(iso);
  if (Number.isNaN(value)) throw new Error(`bad test time ${iso}`);
  return value;
};

/** A pageview by default; `at` takes an ISO instant. */
export function ev(at: string, fields: Partial<WalEvent> = {}): WalEvent {
  counter++;
  return {
    t: 'event',
    id: `evt-${counter.toString().padStart(8, '0')}`,
    site: 'site1',
    at: ms(at),
    kind: 'pv',
    host: 'example.com',
    path: '/',
    visitor: 'v1',
    idMode: 'cookie',
    channel: 'Direct',
    device: 'desktop',
    ...fields,
  };
}

export function crawl(fields: Partial<WalCrawl> = {}): WalCrawl {
  return {
    t: 'crawl',
    site: 'site1',
    day: '2026-03-02',
    robot: 'GPTBot',
    robotKind: 'ai_training',
    path: '/',
    status: 200,
    ...fields,
  };
}

export function botDrop(fields: Partial<WalBotDrop> = {}): WalBotDrop {
  return { t: 'bot', site: 'site1', day: '2026-03-02', kind: 'list', ...fields };
}

/** Numbers records 1.. (or from `first`) on one stream. */
export function onStream(stream: string, records: WalRecord[], first = 1n): BatchRecord[] {
  return records.map((record, i) => ({ stream, seq: first + BigInt(i), record }));
}

/** Writes a database file at schema 1 holding one stream position ('old'), as an older Footfall left it. */
export async function schemaOneDatabase(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  await migrate(c, MIGRATIONS.slice(0, 1));
  await c.run("INSERT INTO stream_positions VALUES ('old', 42)");
  c.closeSync();
  instance.closeSync();
}

/** The schema version and stream positions of a database file, opened on its own. */
export async function inspectDatabase(path: string): Promise<{ version: number; streams: unknown[] }> {
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  const rows = (await c.runAndReadAll('SELECT stream FROM stream_positions')).getRowObjectsJS();
  const version = await schemaVersion(c);
  c.closeSync();
  instance.closeSync();
  return { version, streams: rows.map((row) => row['stream']) };
}
