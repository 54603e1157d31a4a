import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import { migrate, NewerSchemaError, SCHEMA_VERSION, schemaVersion } from './migrations.ts';
import { ev, inspectDatabase, onStream, schemaOneDatabase } from './test-fixtures.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'footfall-engine-'));
  dirs.push(dir);
  return join(dir, 'analytics.duckdb');
};
const options = (path: string) => ({ path, threads: 1, memoryLimit: '128MB' });

describe('migrations', () => {
  it('creates the schema once and keeps data and positions across a reopen', async () => {
    const path = tempFile();
    const first = await createDuckDbEngine(options(path));
    await first.applyBatch({ records: onStream('a', [ev('2026-03-02T10:00:00Z')], 5n) });
    await first.close();
    const again = await createDuckDbEngine(options(path));
    expect(await again.positions()).toEqual(new Map([['a', 5n]]));
    expect((await again.journey({ site: 'site1', visitor: 'v1' })).visits).toHaveLength(1);
    await again.close();
  });

  it('refuses a database written by a newer version, naming both versions, and leaves it untouched', async () => {
    const path = tempFile();
    await (await createDuckDbEngine(options(path))).close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    await connection.run('INSERT INTO schema_version VALUES ($1)', [SCHEMA_VERSION + 1]);
    connection.closeSync();
    instance.closeSync();

    const opening = createDuckDbEngine(options(path));
    await expect(opening).rejects.toBeInstanceOf(NewerSchemaError);
    await expect(opening).rejects.toThrow(
      `schema version ${SCHEMA_VERSION + 1} but this Footfall only knows up to ${SCHEMA_VERSION}`,
    );

    const check = await DuckDBInstance.create(path);
    const c = await check.connect();
    expect(await schemaVersion(c)).toBe(SCHEMA_VERSION + 1);
    c.closeSync();
    check.closeSync();
  });

  it('applies only the migrations newer than the stored version, each with its version', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    const steps = [
      { version: 1, name: 'one', statements: ['CREATE TABLE a (x INTEGER)'] },
      { version: 2, name: 'two', statements: ['ALTER TABLE a ADD COLUMN y INTEGER'] },
    ];
    expect(await migrate(c, steps.slice(0, 1))).toEqual([1]);
    expect(await migrate(c, steps)).toEqual([2]);
    expect(await migrate(c, steps)).toEqual([]);
    expect(await schemaVersion(c)).toBe(2);
    c.closeSync();
    instance.closeSync();
  });

  it('rolls a failing migration back whole and keeps the previous version', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    const broken = [
      { version: 1, name: 'broken', statements: ['CREATE TABLE b (x INTEGER)', 'SELECT nope FROM nowhere'] },
    ];
    await expect(migrate(c, broken)).rejects.toThrow();
    expect(await schemaVersion(c)).toBe(0);
    const tables = (
      await c.runAndReadAll("SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'b'")
    ).getRowObjectsJS();
    expect(tables[0]?.['n']).toBe(0);
    c.closeSync();
    instance.closeSync();
  });

  describe('before an upgrade', () => {
    it('hands the database file, checkpointed and not yet changed, to beforeUpgrade first', async () => {
      const path = tempFile();
      await schemaOneDatabase(path);
      const calls: number[] = [];
      const copy = `${path}.copy`;
      const engine = await createDuckDbEngine({
        ...options(path),
        beforeUpgrade: (from) => {
          calls.push(from);
          copyFileSync(path, copy); // what the service seals
        },
      });
      expect(calls).toEqual([1]);
      await engine.close();
      // the file alone (no .wal beside it) is the whole schema-1 database
      expect(existsSync(`${copy}.wal`)).toBe(false);
      expect(await inspectDatabase(copy)).toEqual({ version: 1, streams: ['old'] });
      expect((await inspectDatabase(path)).version).toBe(SCHEMA_VERSION);
      // nothing to change at the next start, and a new database is no upgrade: no copy
      await (
        await createDuckDbEngine({ ...options(path), beforeUpgrade: () => void calls.push(-1) })
      ).close();
      await (
        await createDuckDbEngine({ ...options(tempFile()), beforeUpgrade: () => void calls.push(-2) })
      ).close();
      expect(calls).toEqual([1]);
    });

    it('changes nothing and does not open when the copy cannot be made', async () => {
      const path = tempFile();
      await schemaOneDatabase(path);
      const opening = createDuckDbEngine({
        ...options(path),
        beforeUpgrade: () => {
          throw new Error('no space left on device');
        },
      });
      await expect(opening).rejects.toThrow('no space left on device');
      expect(await inspectDatabase(path)).toEqual({ version: 1, streams: ['old'] });
    });
  });
});

describe('migration 4: UTM term and content', () => {
  it("gives stored visits their first pageview's term and content, and their previous visits", async () => {
    const path = tempFile();
    // a database as version 3 left it: two visits of one visitor, their events carrying UTM terms
    const instance = await DuckDBInstance.create(path);
    const c = await instance.connect();
    await c.run("SET TimeZone = 'UTC'");
    await migrate(c, (await import('./migrations.ts')).MIGRATIONS.slice(0, 3));
    const visit = (id: number, start: string) =>
      `('site1', ${id}, 'v1', 7, TIMESTAMPTZ '${start}', TIMESTAMPTZ '${start}', TIMESTAMPTZ '${start}', 0, 1, 0, 'Paid Search', '/')`;
    await c.run(
      `INSERT INTO sessions (site, session_id, visitor, visitor_key, started_at, last_at, ended_at, duration_ms,
         pageviews, events, channel, entry_page)
       VALUES ${visit(1, '2026-03-02 10:00:00+00')}, ${visit(2, '2026-03-03 10:00:00+00')}`,
    );
    const event = (id: string, session: number, at: string, term: string) =>
      `('site1', '${id}', TIMESTAMPTZ '${at}', 'pv', 'example.com', '/', 'v1', 7, 'cookie', 'Paid Search',
        'desktop', '${term}', 'banner', ${session}, TIMESTAMPTZ '${at}', true)`;
    await c.run(
      `INSERT INTO events (site, id, ts, kind, host, path, visitor, visitor_key, id_mode, channel, device,
         utm_term, utm_content, session_id, visit_start, visit_first)
       VALUES ${event('e1', 1, '2026-03-02 10:00:00+00', 'shoes')}, ${event('e2', 2, '2026-03-03 10:00:00+00', 'shoes')}`,
    );
    c.closeSync();
    instance.closeSync();

    const engine = await createDuckDbEngine(options(path));
    const { parseReportParams } = await import('./report-params.ts');
    const report = await engine.report({
      site: 'site1',
      timeZone: 'UTC',
      params: parseReportParams(
        { from: '2026-03-02', to: '2026-03-03', deep: '1' },
        'UTC',
        Date.parse('2026-03-10T00:00:00Z'),
      ),
    });
    await engine.close();
    // two visits, one visitor: the previous-visit columns count them once (the fast way)
    expect(report.breakdowns.term).toEqual([
      { value: 'shoes', visitors: 1, visits: 2, pageviews: 2, bounce_rate: 1, visit_duration: 0 },
    ]);
    expect(report.breakdowns.content?.[0]).toMatchObject({ value: 'banner', visitors: 1 });
  });
});
