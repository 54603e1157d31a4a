/**
 * The ClickHouse test server (packages/clickhouse-test-server), as `pnpm clickhouse:test-server`
 * starts it, driven by the official `@clickhouse/client` over HTTP: what Footfall's ClickHouse
 * engine will rely on it to speak as a real server does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClickHouseClient, ClickHouseError, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;
let child: ChildProcess;
let port: number;
const clients: ClickHouseClient[] = [];
const client = (options: Parameters<typeof createClient>[0] = {}): ClickHouseClient => {
  const c = createClient({
    url: `http://127.0.0.1:${port}`,
    username: 'footfall',
    password: 'pw s3cret',
    log: { level: ClickHouseLogLevel.OFF },
    ...options,
  });
  clients.push(c);
  return c;
};
const rows = async <T>(c: ClickHouseClient, query: string, query_params?: Record<string, unknown>) =>
  (await c.query({ query, format: 'JSONEachRow', ...(query_params && { query_params }) })).json<T>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ch-test-server-'));
  child = spawn(
    'npx',
    [
      '--yes',
      'pnpm@10',
      '--silent',
      'clickhouse:test-server',
      '--port',
      '0',
      '--path',
      join(dir, 'data'),
      '--user',
      'footfall',
      '--password',
      'pw s3cret',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c;
  });
  const started = Date.now();
  while (!/^ready$/m.test(out)) {
    if (child.exitCode !== null) throw new Error(`the test server exited: ${out}`);
    if (Date.now() - started > 60_000) throw new Error(`the test server did not print ready: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  port = Number(/on 127\.0\.0\.1:(\d+)/.exec(out)![1]);
  const c = client();
  await c.command({ query: 'CREATE DATABASE IF NOT EXISTS ff' });
}, 90_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  // the pnpm wrapper and the server: the group this test started
  if (child.pid !== undefined && child.exitCode === null) {
    process.kill(-child.pid, 'SIGTERM');
    await once(child, 'exit');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the ClickHouse test server', () => {
  it('answers ping and says which ClickHouse it embeds', async () => {
    const c = client();
    expect((await c.ping()).success).toBe(true);
    const [answer] = await rows<{ v: string }>(c, 'SELECT version() AS v');
    expect(Number(answer!.v.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('inserts in bulk and binds every kind of parameter on the server, as given', async () => {
    const c = client({ database: 'ff' });
    await c.command({
      query: `CREATE TABLE t_params (s String, n UInt64, at DateTime64(3, 'UTC'), tags Array(String))
              ENGINE = MergeTree ORDER BY s`,
    });
    const tricky = "it's a \\ back\tslash\nand 'quotes', ünïcødé";
    await c.insert({
      table: 't_params',
      format: 'JSONEachRow',
      values: [
        { s: tricky, n: '18446744073709551615', at: '2026-11-27 10:11:12.345', tags: ['a', "b'c"] },
        { s: 'plain', n: 1, at: '2026-01-01 00:00:00.000', tags: [] },
      ],
    });
    const found = await rows<{ s: string; n: string; tags: string[] }>(
      c,
      `SELECT s, n, tags FROM t_params
       WHERE s = {s:String} AND n = {n:UInt64} AND at = {at:DateTime64(3)} AND has({tags:Array(String)}, tags[2])`,
      { s: tricky, n: '18446744073709551615', at: '2026-11-27 10:11:12.345', tags: ["b'c", 'x'] },
    );
    expect(found).toEqual([{ s: tricky, n: '18446744073709551615', tags: ['a', "b'c"] }]);
    // a value is data, never SQL
    const none = await rows(c, 'SELECT s FROM t_params WHERE s = {s:String}', { s: "plain' OR '1'='1" });
    expect(none).toEqual([]);
  });

  it('answers each of many queries at once with its own parameters', async () => {
    const c = client();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        rows<{ x: number }>(c, 'SELECT toUInt32({x:UInt32} * 2) AS x', { x: i }),
      ),
    );
    expect(answers.map(([a]) => a!.x)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
  });

  it('applies a setting to its query only: deduplication tokens, and the default after', async () => {
    const c = client({ database: 'ff' });
    await c.command({
      query: `CREATE TABLE t_dedupe (k UInt32) ENGINE = MergeTree ORDER BY k
              SETTINGS non_replicated_deduplication_window = 100`,
    });
    for (let i = 0; i < 2; i++) {
      await c.insert({
        table: 't_dedupe',
        format: 'JSONEachRow',
        values: [{ k: 1 }, { k: 2 }],
        clickhouse_settings: { insert_deduplication_token: 'stream-a:1-2' },
      });
    }
    await c.insert({
      table: 't_dedupe',
      format: 'JSONEachRow',
      values: [{ k: 3 }],
      clickhouse_settings: { insert_deduplication_token: 'stream-a:3-3' },
    });
    expect(await rows(c, 'SELECT k FROM t_dedupe ORDER BY k')).toEqual([{ k: 1 }, { k: 2 }, { k: 3 }]);
    const [set] = await rows<{ m: string }>(
      c,
      "SELECT toString(getSetting('max_result_rows')) AS m SETTINGS max_result_rows = 7",
    );
    expect(set!.m).toBe('7');
    const limited = c.query({
      query: "SELECT toString(getSetting('max_threads')) AS m",
      format: 'JSONEachRow',
      clickhouse_settings: { max_threads: 1 },
    });
    expect(await (await limited).json()).toEqual([{ m: '1' }]);
    const [after] = await rows<{ m: string }>(c, "SELECT toString(getSetting('max_threads')) AS m");
    expect(after!.m).not.toBe('1');
  });

  it('speaks gzip both ways', async () => {
    const c = client({ compression: { request: true, response: true } });
    const [count] = await rows<{ n: string }>(c, 'SELECT count() AS n FROM numbers({k:UInt32})', { k: 5000 });
    expect(count!.n).toBe('5000');
    await c.command({ query: 'CREATE TABLE ff.t_gzip (s String) ENGINE = MergeTree ORDER BY s' });
    await c.insert({ table: 'ff.t_gzip', format: 'JSONEachRow', values: [{ s: 'x'.repeat(10_000) }] });
    // 64-bit integers are strings in JSON, as a server's defaults make them
    expect(await rows(c, 'SELECT length(s) AS l FROM ff.t_gzip')).toEqual([{ l: '10000' }]);
  });

  it('fails as ClickHouse does: code, name and message', async () => {
    const c = client();
    const syntax = await c.query({ query: 'SELEC 1' }).catch((e: unknown) => e);
    expect(syntax).toBeInstanceOf(ClickHouseError);
    expect((syntax as ClickHouseError).code).toBe('62');
    expect((syntax as ClickHouseError).type).toBe('SYNTAX_ERROR');
    const missing = await c.query({ query: 'SELECT * FROM ff.no_such_table' }).catch((e: unknown) => e);
    expect((missing as ClickHouseError).code).toBe('60');
    expect((missing as ClickHouseError).message).toMatch(/no_such_table/);
    const badParam = await c
      .query({ query: 'SELECT {n:UInt8} AS n', query_params: { n: 'not a number' } })
      .catch((e: unknown) => e);
    expect(badParam).toBeInstanceOf(ClickHouseError);
    const wrong = client({ password: 'wrong' });
    const refused = await wrong.query({ query: 'SELECT 1' }).catch((e: unknown) => e);
    expect((refused as ClickHouseError).code).toBe('516');
    expect((refused as ClickHouseError).type).toBe('AUTHENTICATION_FAILED');
  });

  it('stops a query whose client went away, and goes on serving', async () => {
    const c = client({ request_timeout: 60_000 });
    const abort = new AbortController();
    const started = Date.now();
    const long = c
      .query({
        query: 'SELECT number FROM system.numbers WHERE sleepEachRow(0.001) = 0 LIMIT 100000',
        format: 'JSONEachRow',
        abort_signal: abort.signal,
        clickhouse_settings: { max_block_size: '100' },
      })
      .then((r) => r.json())
      .catch((e: unknown) => e);
    setTimeout(() => abort.abort(), 300);
    expect(await long).toBeInstanceOf(Error);
    const [next] = await rows<{ one: number }>(c, 'SELECT 1 AS one');
    expect(next!.one).toBe(1);
    // a hundred seconds of sleeping rows, stopped at the next block
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
