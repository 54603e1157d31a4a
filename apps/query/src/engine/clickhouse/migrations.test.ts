import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseClient } from './connection.ts';
import {
  CLICKHOUSE_SCHEMA_VERSION,
  type ClickHouseMigration,
  migrateClickHouse,
  NewerSchemaError,
} from './migrations.ts';

let dir: string;
let server: TestServer;
let admin: ClickHouseClient;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-migrate-'));
  server = await startTestServer({ path: join(dir, 'ch'), port: 0 });
  admin = clickhouseClient({ url: server.url, database: 'unused' }, { server: true });
});
afterAll(async () => {
  await admin.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = async <T>(query: string, query_params: Record<string, unknown> = {}) =>
  (await admin.query({ query, query_params, format: 'JSONEachRow' })).json<T>();
const tables = async (db: string) =>
  (
    await rows<{ name: string }>(
      'SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name',
      { db },
    )
  ).map((r) => r.name);

describe('ClickHouse migrations', () => {
  it('create the database and every table, record the version, and do nothing the second time', async () => {
    expect(await migrateClickHouse(admin, 'ff_a')).toEqual({ from: 0, to: CLICKHOUSE_SCHEMA_VERSION });
    expect(await tables('ff_a')).toEqual([
      'bot_drops',
      'crawl_hits',
      'events',
      'loader_state',
      'loader_touched',
      'schema_migrations',
      'sessions',
      'stream_positions',
      'visit_carries',
    ]);
    expect(await migrateClickHouse(admin, 'ff_a')).toEqual({
      from: CLICKHOUSE_SCHEMA_VERSION,
      to: CLICKHOUSE_SCHEMA_VERSION,
    });
    const applied = await rows<{ version: number }>('SELECT version FROM ff_a.schema_migrations FINAL');
    expect(applied).toEqual([{ version: 1 }]);
  });

  it('run a migration a crash cut short again, whole', async () => {
    const broken: ClickHouseMigration[] = [
      {
        version: 1,
        name: 'two tables',
        statements: [
          'CREATE TABLE IF NOT EXISTS {db:Identifier}.a (n UInt8) ENGINE = MergeTree ORDER BY n',
          'CREATE TABLE {db:Identifier}.b (n UInt8) ENGINE = NoSuchEngine ORDER BY n',
        ],
      },
    ];
    await expect(migrateClickHouse(admin, 'ff_b', broken)).rejects.toThrow(
      /NoSuchEngine|Unknown table engine/,
    );
    expect(await tables('ff_b')).toEqual(['a', 'schema_migrations']);
    const fixed = [
      {
        ...broken[0]!,
        statements: [
          broken[0]!.statements[0]!,
          'CREATE TABLE IF NOT EXISTS {db:Identifier}.b (n UInt8) ENGINE = MergeTree ORDER BY n',
        ],
      },
    ];
    expect(await migrateClickHouse(admin, 'ff_b', fixed)).toEqual({ from: 0, to: 1 });
    expect(await tables('ff_b')).toEqual(['a', 'b', 'schema_migrations']);
  });

  it('refuse a database whose schema is newer than this Footfall knows', async () => {
    await migrateClickHouse(admin, 'ff_c');
    await admin.command({
      query: "INSERT INTO ff_c.schema_migrations (version, name) VALUES (99, 'future')",
    });
    const refused = await migrateClickHouse(admin, 'ff_c').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NewerSchemaError);
    expect((refused as Error).message).toBe(
      `ClickHouse database ff_c has schema 99, newer than this Footfall knows (${CLICKHOUSE_SCHEMA_VERSION}): run the Footfall release that wrote it, or a newer one`,
    );
  });

  it('keep one row per identity under FINAL: a written-again event takes its latest visit, a deleted visit is gone', async () => {
    await migrateClickHouse(admin, 'ff_d');
    const event = (gen: number, session: number) => ({
      site: 's1',
      ts: '2026-03-02 10:00:00.000',
      id: 'e1',
      kind: 'pv',
      host: 'example.com',
      path: '/',
      visitor_key: '42',
      id_mode: 'cookie',
      channel: 'Direct',
      device: 'desktop',
      session_id: String(session),
      gen,
    });
    // the same batch applied twice (a crash before its position was written), then a replay
    for (const values of [[event(1, 7)], [event(1, 7)], [event(2, 8)]]) {
      await admin.insert({ table: 'ff_d.events', values, format: 'JSONEachRow' });
    }
    expect(await rows('SELECT id, session_id FROM ff_d.events FINAL')).toEqual([
      { id: 'e1', session_id: '8' },
    ]);
    const visit = (gen: number, deleted: number) => ({
      site: 's1',
      session_id: '7',
      visitor: 'v1',
      visitor_key: '42',
      started_at: '2026-03-02 10:00:00.000',
      last_at: '2026-03-02 10:00:00.000',
      ended_at: '2026-03-02 10:00:00.000',
      duration_ms: 0,
      pageviews: 1,
      events: 0,
      gen,
      is_deleted: deleted,
    });
    await admin.insert({ table: 'ff_d.sessions', values: [visit(1, 0)], format: 'JSONEachRow' });
    expect(await rows('SELECT session_id FROM ff_d.sessions FINAL')).toEqual([{ session_id: '7' }]);
    await admin.insert({ table: 'ff_d.sessions', values: [visit(2, 1)], format: 'JSONEachRow' });
    expect(await rows('SELECT session_id FROM ff_d.sessions FINAL')).toEqual([]);
  });
});
