import type { ClickHouseClient } from '@clickhouse/client';
import { CLICKHOUSE_SCHEMA } from './schema.ts';

/**
 * The ClickHouse engine's schema, owned by the engine: forward-only migrations, applied in order at
 * start, each recorded in `schema_migrations` once all its statements ran. ClickHouse has no
 * transactional DDL, so every statement is idempotent (`IF NOT EXISTS`, `IF EXISTS`): a migration
 * that a crash cut short runs again whole at the next start. A database whose schema is newer
 * than this Footfall knows is refused: an older release must not write into it.
 *
 * Statements name the database as `{db:Identifier}`, a query parameter like every value.
 */
export interface ClickHouseMigration {
  version: number;
  name: string;
  statements: readonly string[];
}

export const CLICKHOUSE_MIGRATIONS: readonly ClickHouseMigration[] = CLICKHOUSE_SCHEMA;

/** The schema version this Footfall writes. */
export const CLICKHOUSE_SCHEMA_VERSION = CLICKHOUSE_MIGRATIONS.at(-1)?.version ?? 0;

export class NewerSchemaError extends Error {}

/**
 * Creates the database when missing and brings its schema to CLICKHOUSE_SCHEMA_VERSION. `server`
 * is a client without a database (the database may not exist yet). Returns the versions before
 * and after.
 */
export async function migrateClickHouse(
  server: ClickHouseClient,
  database: string,
  migrations: readonly ClickHouseMigration[] = CLICKHOUSE_MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const db = { db: database };
  await server.command({ query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}', query_params: db });
  await server.command({
    query: `CREATE TABLE IF NOT EXISTS {db:Identifier}.schema_migrations (
              version UInt32,
              name String,
              applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
            ) ENGINE = ReplacingMergeTree ORDER BY version`,
    query_params: db,
  });
  const rows = await (
    await server.query({
      query: 'SELECT toUInt32(max(version)) AS v FROM {db:Identifier}.schema_migrations',
      query_params: db,
      format: 'JSONEachRow',
    })
  ).json<{ v: number }>();
  const from = Number(rows[0]?.v ?? 0);
  const latest = migrations.at(-1)?.version ?? 0;
  if (from > latest) {
    throw new NewerSchemaError(
      `ClickHouse database ${database} has schema ${from}, newer than this Footfall knows (${latest}): run the Footfall release that wrote it, or a newer one`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    for (const statement of migration.statements) {
      await server.command({ query: statement, query_params: db });
    }
    await server.command({
      query:
        'INSERT INTO {db:Identifier}.schema_migrations (version, name) VALUES ({version:UInt32}, {name:String})',
      query_params: { ...db, version: migration.version, name: migration.name },
    });
  }
  return { from, to: Math.max(from, latest) };
}
