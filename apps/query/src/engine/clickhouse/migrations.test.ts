import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, visitorKeyOf } from '../../visits/model.ts';
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
      'bot_counters',
      'crawl_counters',
      'engine_state',
      'events',
      'load_ids',
      'load_keys',
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

  it('collapse a rewritten visit by sign: sums without FINAL, one row with it, and the visit id computed as the loader makes it', async () => {
    await migrateClickHouse(admin, 'ff_d');
    const visit = (ver: number, sign: number, pageviews: number, endMs: number) => ({
      site: 's1',
      started_at: '2026-03-02 10:00:00.000',
      visitor_key: String(visitorKeyOf('v1')),
      visitor: 'v1',
      last_ms: endMs,
      end_ms: endMs,
      pageviews,
      events: 0,
      channel: 'Direct',
      ver,
      sign,
    });
    // a visit written, then gone on with: the old state cancelled beside the new one
    await admin.insert({ table: 'ff_d.sessions', values: [visit(1, 1, 1, 0)], format: 'JSONEachRow' });
    await admin.insert({
      table: 'ff_d.sessions',
      values: [visit(1, -1, 1, 0), visit(2, 1, 3, 60_000)],
      format: 'JSONEachRow',
    });
    expect(
      await rows(`SELECT channel, sum(sign) AS visits, sum(sign * pageviews) AS pageviews
                  FROM ff_d.sessions GROUP BY channel HAVING sum(sign) > 0`),
    ).toEqual([{ channel: 'Direct', visits: '1', pageviews: '3' }]);
    const [row] = await rows<{ session_id: string; duration_ms: string; ended_at: string }>(
      'SELECT session_id, duration_ms, ended_at FROM ff_d.sessions FINAL',
    );
    expect(row).toEqual({
      session_id: String(sessionIdOf('s1', 'v1', Date.parse('2026-03-02T10:00:00Z'))),
      duration_ms: '60000',
      ended_at: '2026-03-02 10:01:00.000',
    });
  });

  it('keep two different events of one visitor in one millisecond apart, and cancel only an exact copy', async () => {
    await migrateClickHouse(admin, 'ff_e');
    const event = (path: string, sign: number, ver = 1) => ({
      site: 's1',
      ts: '2026-03-02 10:00:00.000',
      visitor_key: '42',
      kind: 'pv',
      host: 'example.com',
      path,
      id_mode: 'cookie',
      channel: 'Direct',
      device: 'desktop',
      visit_first: false,
      ver,
      sign,
    });
    await admin.insert({
      table: 'ff_e.events',
      values: [event('/a', 1), event('/b', 1)],
      format: 'JSONEachRow',
    });
    await admin.insert({
      table: 'ff_e.events',
      values: [event('/b', -1), event('/b', 1, 2)],
      format: 'JSONEachRow',
    });
    await admin.command({ query: 'OPTIMIZE TABLE ff_e.events FINAL' });
    expect(await rows('SELECT path, sum(sign) AS n FROM ff_e.events GROUP BY path ORDER BY path')).toEqual([
      { path: '/a', n: '1' },
      { path: '/b', n: '1' },
    ]);
    expect(await rows('SELECT path, ver FROM ff_e.events FINAL ORDER BY path')).toEqual([
      { path: '/a', ver: 1 },
      { path: '/b', ver: 2 },
    ]);
  });
});
