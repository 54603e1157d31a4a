import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import type { WalRecord } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../apps/query/src/engine/duckdb-engine.ts';
import { onStream } from '../../apps/query/src/engine/test-fixtures.ts';
import { demoTraffic } from '../../bench/demo-traffic.ts';
import { FOOTFALL_BIN, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * `footfall engine copy --to clickhouse` as an operator runs it: a DuckDB installation with two
 * months of history is copied by the real command into ClickHouse (the chdb test server), and
 * `footfall start` on ClickHouse then answers the same report as it did on DuckDB. While Footfall
 * runs the command refuses; run again after, it finds the copy complete.
 */
const TOKEN = 'engine-copy-test-token-0123456789';
const DAY = 86_400_000;
let root: string;
let clickhouse: TestServer;
let env: Record<string, string>;
let site: string;

beforeAll(async () => {
  root = tempDir('ff-engine-copy-');
  const dataDir = join(root, 'data');
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  site = (await createSite(control, { domain: 'example.com', timezone: 'Europe/Berlin' })).id;
  await control.close();
  // two months of history, loaded as the tailer loads it
  const events: WalRecord[] = [];
  for (const chunk of demoTraffic({
    events: 3_000,
    siteId: site,
    host: 'example.com',
    timeZone: 'Europe/Berlin',
    endMs: Date.now() - DAY,
    days: 60,
    seed: 5,
  })) {
    events.push(...chunk);
  }
  const engine = await createDuckDbEngine({
    path: instance.paths.analyticsDb,
    threads: 1,
    memoryLimit: '256MB',
  });
  for (let i = 0; i < events.length; i += 500) {
    await engine.applyBatch({ records: onStream('demo', events.slice(i, i + 500), BigInt(i + 1)) });
  }
  await engine.close();
  clickhouse = await startTestServer({ path: join(root, 'clickhouse-server'), port: 0 });
  env = { FOOTFALL_DATA_DIR: dataDir, FOOTFALL_API_TOKEN: TOKEN };
}, 120_000);

afterAll(async () => {
  await clickhouse?.close();
  rmSync(root, { recursive: true, force: true });
});

const onClickHouse = () => ({
  ...env,
  FOOTFALL_ENGINE: 'clickhouse',
  FOOTFALL_CLICKHOUSE_URL: clickhouse.url,
});

/** Runs `footfall ...` without blocking this process, whose server answers ClickHouse. */
const command = (args: string[], own: Record<string, string>) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...own }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ status: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });
const engineCommand = (args: string[], own: Record<string, string>) => command(['engine', ...args], own);

/** Every row of an export's newline-delimited JSON file, parsed. */
const rowsOf = (folder: string, table: string) =>
  readFileSync(join(root, folder, `${table}.ndjson`), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** What a Parquet export of events holds, summed by DuckDB. */
async function parquetSums(folder: string) {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const reader = await c.runAndReadAll(
      `SELECT count(*)::INTEGER AS events, count(DISTINCT visit_id)::INTEGER AS visits,
         sum(engaged_ms)::DOUBLE AS engaged, count(DISTINCT visitor)::INTEGER AS visitors,
         min(epoch_ms(ts))::DOUBLE AS first
       FROM read_parquet($1)`,
      [join(root, folder, 'events.parquet')],
    );
    return reader.getRowObjectsJS()[0];
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/** The last 60 days' report of the site, as the API answers it once the engine is open. */
async function report(url: string): Promise<Record<string, unknown>> {
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 59 * DAY).toISOString().slice(0, 10);
  const path = `/api/v1/sites/${site}/report?from=${from}&to=${today}&daily=1`;
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (res.status === 200) return (await res.json()) as Record<string, unknown>;
    // 503: an engine on a server is still opening
    if (res.status !== 503 || i > 300) throw new Error(`report: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('footfall engine copy --to clickhouse', () => {
  it('moves a DuckDB installation to ClickHouse with the same numbers', async () => {
    const duck = await startFootfall(env);
    const before = await report(duck.url);
    for (const format of ['ndjson', 'parquet']) {
      const exported = await command(
        ['export', '--site', site, '--format', format, '--out', join(root, `duckdb-${format}`)],
        env,
      );
      expect(exported.status, exported.stderr).toBe(0);
    }
    await duck.stop();
    expect((before['kpis'] as { pageviews: number }).pageviews).toBeGreaterThan(1_000);

    expect((await engineCommand(['copy', '--to', 'duckdb'], onClickHouse())).status).toBe(2);
    expect((await engineCommand(['copy', '--to', 'clickhouse'], env)).stderr).toContain(
      'FOOTFALL_ENGINE=clickhouse',
    );

    const copy = await engineCommand(['copy', '--to', 'clickhouse'], onClickHouse());
    expect(copy.status, copy.stderr).toBe(0);
    expect(copy.stdout).toMatch(
      /copied [\d,]+ events, [\d,]+ visits, .* into ClickHouse database footfall; the counts match/,
    );
    // without a terminal: progress lines, each table up to 100 %
    expect(copy.stderr).toMatch(/events +\[#{20}\] 100 %/);
    expect(copy.stderr).toMatch(/sessions +\[#{20}\] 100 %/);

    const ch = await startFootfall(onClickHouse());
    try {
      const after = await report(ch.url);
      for (const key of ['kpis', 'compare', 'chart', 'breakdowns', 'daily'])
        expect(after[key], key).toEqual(before[key]);
      // footfall export on ClickHouse writes what it wrote on DuckDB, row for row
      for (const format of ['ndjson', 'parquet']) {
        const exported = await command(
          ['export', '--site', site, '--format', format, '--out', join(root, `clickhouse-${format}`)],
          onClickHouse(),
        );
        expect(exported.status, exported.stderr).toBe(0);
      }
      for (const table of ['events', 'visits', 'robots']) {
        expect(rowsOf('clickhouse-ndjson', table), table).toEqual(rowsOf('duckdb-ndjson', table));
      }
      expect(rowsOf('duckdb-ndjson', 'events').length).toBeGreaterThan(1_000);
      expect(await parquetSums('clickhouse-parquet')).toEqual(await parquetSums('duckdb-parquet'));
      const running = await engineCommand(['copy', '--to', 'clickhouse'], onClickHouse());
      expect(running.status).toBe(1);
      expect(running.stderr).toContain('stop Footfall first');
    } finally {
      await ch.stop();
    }
    const again = await engineCommand(['copy', '--to', 'clickhouse'], onClickHouse());
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('already holds this copy');
  }, 240_000);
});
