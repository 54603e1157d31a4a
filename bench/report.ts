// Report latency, tail throughput and bytes per event of the real query service: demo data is
// written through the WAL, `footfall query` (2 engine threads, 256 MB) tails it into its engine
// (DuckDB, or ClickHouse: the chdb test server as a process of its own), then uncached 30-day
// reports are timed by their Server-Timing header. Each run is kept as JSON in
// bench/results/report-runs/ (one per engine and size, replaced by the next run of both), and
// bench/results/report.md is written from all of them, the engines side by side.
// Run: pnpm bench:report [--engine duckdb|clickhouse|both] [--sizes 1000000,10000000]
// [--reports 40] [--keep], or on directories an earlier --keep left: --reuse dir1,dir2; --table
// writes report.md again from the kept runs alone
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BenchClickHouse, startClickHouse } from './clickhouse-server.ts';
import { type DemoDataSummary, writeDemoData } from './demo-data.ts';
import { machineLine, rssOf } from './machine.ts';
import { cpuSecondsOf, percentile, type QueryProcess, startQuery } from './query-process.ts';
import {
  type BenchEngine,
  LONG_SERIES,
  reportMarkdown,
  SERIES,
  type SeriesResult,
  type SizeResult,
  type TailRecord,
} from './report-table.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const ENGINE = { FOOTFALL_ENGINE_THREADS: '2', FOOTFALL_ENGINE_MEMORY: '256MB' };
const DAY = 86_400_000;

const LONG_REPORTS = 6;
const DATABASE = 'footfall';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Today's date in a zone as a UTC-midnight timestamp. */
function todayIn(timeZone: string): number {
  const d = new Intl.DateTimeFormat('en-CA', { timeZone }).format(Date.now());
  return Date.parse(`${d}T00:00:00Z`);
}

async function waitForTail(q: QueryProcess, demo: DemoDataSummary, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const res = await q.get(`/api/v1/sites/${demo.siteId}/events?limit=1`);
    // 503: the engine is still opening (ClickHouse: the server is reached and migrated first)
    if (res.status === 503) {
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    if (res.status !== 200) throw new Error(`events answered ${res.status}: ${res.body}`);
    const newest = (JSON.parse(res.body) as { events: { id: string }[] }).events[0];
    // the stream is in time order: its newest pageview applied means every record before it is
    if (newest?.id === demo.last?.id) return performance.now();
    if (performance.now() > deadline) throw new Error(`tailing did not finish in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until the query service has rolled up the days it prepares by itself once the tail has
 * caught up (its /metrics: days were queued or built, and none is queued any more). A kept data
 * directory whose days are all rolled up already shows neither: after `quietMs` that counts too.
 */
async function waitForRollups(q: QueryProcess, timeoutMs: number, quietMs = 15_000): Promise<void> {
  const started = performance.now();
  const metric = (body: string, name: string) => {
    const value = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(body)?.[1];
    if (value === undefined) throw new Error(`metrics have no ${name}`);
    return Number(value);
  };
  let busy = false;
  for (;;) {
    const res = await q.get('/metrics');
    if (res.status !== 200) throw new Error(`metrics answered ${res.status}: ${res.body.slice(0, 300)}`);
    const queued = metric(res.body, 'footfall_rollups_queued');
    busy ||= queued > 0 || metric(res.body, 'footfall_rollups_built_total') > 0;
    if (queued === 0 && (busy || performance.now() - started > quietMs)) return;
    if (performance.now() - started > timeoutMs)
      throw new Error(`day rollups were not built in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function timeSeries(
  q: QueryProcess,
  demo: DemoDataSummary,
  series: { name: string; query?: string; days?: number },
  n: number,
): Promise<SeriesResult> {
  const days = series.days ?? 30;
  const today = todayIn(demo.timeZone);
  const server: number[] = [];
  const client: number[] = [];
  let failed = 0;
  let error: string | undefined;
  // two warm-up requests on windows the timed ones do not use
  for (let i = -2; i < n; i++) {
    const to = today - (i < 0 ? n - i : i) * DAY;
    const path = `/api/v1/sites/${demo.siteId}/report?from=${day(to - (days - 1) * DAY)}&to=${day(to)}${series.query ?? ''}`;
    const res = await q.get(path);
    if (res.status !== 200) {
      failed++;
      error ??= `${res.status} ${res.body.slice(0, 300)}`;
      continue;
    }
    if (i < 0) continue;
    server.push(res.serverMs);
    client.push(res.clientMs);
  }
  return {
    name: series.name,
    n,
    p50: percentile(server, 50),
    p95: percentile(server, 95),
    max: Math.max(...server),
    clientP50: percentile(client, 50),
    failed,
    ...(error === undefined ? {} : { error }),
  };
}

/** Generates demo data into a fresh directory and tails it, or reuses a kept directory. */
async function prepare(
  engine: BenchEngine,
  events: number,
  reuse: string | undefined,
  start: () => Promise<{ query: QueryProcess; server?: BenchClickHouse }>,
) {
  if (reuse !== undefined) {
    const record = JSON.parse(readFileSync(join(reuse, 'tail.json'), 'utf8')) as TailRecord;
    const started = await start();
    // loaded already: this waits for the engine to open (and for anything the WAL still holds)
    await waitForTail(started.query, record.demo, 600_000);
    return { record, ...started };
  }
  const started = performance.now();
  const demo = await writeDemoData({
    dataDir: dataDirOf(current),
    events,
    onProgress: (n) => process.stderr.write(`\rgenerating: ${n.toLocaleString('en')} events`),
  });
  const generateSeconds = (performance.now() - started) / 1000;
  process.stderr.write(
    `\nwrote ${demo.events.toLocaleString('en')} events in ${generateSeconds.toFixed(1)} s\n`,
  );
  const { query, server } = await start();
  const cpu = async () => [await cpuSecondsOf(query.pid), server ? await cpuSecondsOf(server.pid) : null];
  const atListen = await cpu();
  // ClickHouse on the test server tails a few thousand events a second: it gets longer
  const done = await waitForTail(
    query,
    demo,
    Math.max(600_000, engine === 'clickhouse' ? events : events / 5),
  );
  const atDone = await cpu();
  const spent = (i: number) => (atDone[i] != null && atListen[i] != null ? atDone[i]! - atListen[i]! : null);
  const record: TailRecord = {
    engine,
    demo,
    generateSeconds,
    tailSeconds: (done - query.listeningAt) / 1000,
    tailCpuSeconds: spent(0),
    ...(server && { serverTailCpuSeconds: spent(1) }),
  };
  writeFileSync(join(current, 'tail.json'), JSON.stringify(record));
  process.stderr.write(`tailed in ${record.tailSeconds.toFixed(1)} s\n`);
  return { record, query, server };
}

/** The visitor store (visitors.db and its SQLite WAL) in a directory: the data directory, or ClickHouse's. */
const storeBytesOf = (dir: string) =>
  fileSize(join(dir, 'visitors.db')) + fileSize(join(dir, 'visitors.db-wal'));

let current = '';
const dataDirOf = (dir: string) => join(dir, 'data');

async function runSize(
  engine: BenchEngine,
  events: number,
  reports: number,
  keep: boolean,
  reuse?: string,
): Promise<SizeResult> {
  current = reuse ?? mkdtempSync(join(tmpdir(), 'ff-bench-report-'));
  const dataDir = dataDirOf(current);
  const loadBefore = load();
  const token = randomBytes(24).toString('base64url');
  let q: QueryProcess | undefined;
  let ch: BenchClickHouse | undefined;
  const peak = { query: 0, server: 0 };
  const sample = async () => {
    if (q) peak.query = Math.max(peak.query, (await rssOf(q.pid)) ?? 0);
    if (ch) peak.server = Math.max(peak.server, (await rssOf(ch.pid)) ?? 0);
  };
  const sampler = setInterval(sample, 500);
  try {
    const { record, query, server } = await prepare(engine, events, reuse, async () => {
      if (engine === 'clickhouse') ch = await startClickHouse(join(current, 'clickhouse'));
      q = await startQuery(
        dataDir,
        {
          ...ENGINE,
          ...(ch && {
            FOOTFALL_ENGINE: 'clickhouse',
            FOOTFALL_CLICKHOUSE_URL: ch.url,
            FOOTFALL_CLICKHOUSE_DATABASE: DATABASE,
          }),
        },
        token,
      );
      return { query: q, ...(ch && { server: ch }) };
    });
    const { demo } = record;
    const afterTail = await rssOf(query.pid);
    const serverAfterTail = server ? await rssOf(server.pid) : null;
    const today = todayIn(demo.timeZone);
    // the whole history: every generated pageview belongs to a visit, so the counts must match
    const firstDay = Date.parse(
      `${new Intl.DateTimeFormat('en-CA', { timeZone: demo.timeZone }).format(demo.firstAt)}T00:00:00Z`,
    );
    const fullPath = `/api/v1/sites/${demo.siteId}/report?from=${day(firstDay)}&to=${day(today)}`;
    // Caught up, the DuckDB query service rolls up every past day by itself (before any report
    // asks); the timed reports run once it has. ClickHouse has no day rollups.
    let rollupSeconds: number | null = null;
    if (engine === 'duckdb') {
      const rollupStarted = performance.now();
      await waitForRollups(query, 1_800_000);
      rollupSeconds = (performance.now() - rollupStarted) / 1000;
      process.stderr.write(`rollups built ${rollupSeconds.toFixed(1)} s after the tail\n`);
    }
    const timeAll = async (list: readonly Parameters<typeof timeSeries>[2][], n: number) => {
      const results: SeriesResult[] = [];
      for (const s of list) {
        const r = await timeSeries(query, demo, s, n);
        results.push(r);
        process.stderr.write(
          `${s.name}: p50 ${r.p50} ms, p95 ${r.p95} ms, ${r.failed} failed ${r.error ?? ''}\n`,
        );
      }
      return results;
    };
    const series = await timeAll(SERIES, reports);
    const long = await timeAll(LONG_SERIES, LONG_REPORTS);
    const last30 = await query.get(
      `/api/v1/sites/${demo.siteId}/report?from=${day(today - 29 * DAY)}&to=${day(today)}`,
    );
    const full = await query.get(fullPath);
    if (full.status !== 200 || last30.status !== 200)
      throw new Error(`report answered ${full.status} / ${last30.status}: ${full.body.slice(0, 300)}`);
    const fullKpis = (JSON.parse(full.body) as { kpis: SizeResult['kpis'] }).kpis;
    if (fullKpis.pageviews !== demo.pageviews)
      throw new Error(`report counts ${fullKpis.pageviews} pageviews, ${demo.pageviews} were written`);
    await sample();
    await query.stop();
    const db = join(dataDir, 'analytics.duckdb');
    const dbBytes = server ? await server.bytesOf(DATABASE) : fileSize(db) + fileSize(`${db}.wal`);
    // ClickHouse merges parts (and collapses cancelled rows) in the background: what it settles to
    let mergedBytes: number | undefined;
    if (server) {
      await server.merge(DATABASE);
      mergedBytes = await server.bytesOf(DATABASE);
    }
    return {
      ...record,
      at: new Date().toISOString(),
      machine: machineLine(),
      reports: { short: reports, long: LONG_REPORTS },
      series,
      long,
      fullRange: { ms: full.serverMs, days: Math.round((today - firstDay) / DAY) + 1 },
      rollupSeconds,
      kpis: (JSON.parse(last30.body) as { kpis: SizeResult['kpis'] }).kpis,
      rss: { afterTail, peak: peak.query },
      ...(server && { server: { afterTail: serverAfterTail, peak: peak.server } }),
      dbBytes,
      ...(mergedBytes !== undefined && { mergedBytes }),
      storeBytes: storeBytesOf(engine === 'clickhouse' ? join(dataDir, 'clickhouse') : dataDir),
      load: { before: loadBefore, after: load() },
    };
  } finally {
    clearInterval(sampler);
    await q?.stop();
    await ch?.stop();
    if (keep || reuse) process.stderr.write(`kept ${current} (--reuse ${current})\n`);
    else rmSync(current, { recursive: true, force: true });
  }
}

/** Every kept run, one per engine and size: a run replaces the earlier one of its engine and size. */
function keptRuns(dir: string): SizeResult[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as SizeResult);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engine: { type: 'string', default: 'duckdb' },
      sizes: { type: 'string', default: '1000000,10000000' },
      reports: { type: 'string', default: '40' },
      keep: { type: 'boolean', default: false },
      /** directories kept by --keep: their data is already loaded, only reports run */
      reuse: { type: 'string' },
      /** only write bench/results/report.md again from the kept runs */
      table: { type: 'boolean', default: false },
    },
  });
  const engines: BenchEngine[] =
    values.engine === 'both' ? ['duckdb', 'clickhouse'] : [values.engine as BenchEngine];
  if (!engines.every((e) => e === 'duckdb' || e === 'clickhouse'))
    throw new Error(`--engine is duckdb, clickhouse or both, not ${values.engine}`);
  const reports = Number(values.reports);
  const runsDir = join(root, 'bench/results/report-runs');
  mkdirSync(runsDir, { recursive: true });
  const keepRun = (r: SizeResult) =>
    writeFileSync(
      join(
        runsDir,
        `${r.engine}-${r.demo.events >= 5e6 ? '10M' : r.demo.events >= 5e5 ? '1M' : 'small'}.json`,
      ),
      `${JSON.stringify(r, null, 1)}\n`,
    );
  if (values.table) {
    // nothing is run
  } else if (values.reuse) {
    for (const dir of values.reuse.split(',')) {
      const { engine } = JSON.parse(readFileSync(join(dir, 'tail.json'), 'utf8')) as TailRecord;
      process.stderr.write(`\n== ${engine} ${dir} ==\n`);
      keepRun(await runSize(engine, 0, reports, true, dir));
    }
  } else {
    for (const events of values.sizes.split(',').map(Number))
      for (const engine of engines) {
        process.stderr.write(`\n== ${engine} ${events} ==\n`);
        keepRun(await runSize(engine, events, reports, values.keep));
      }
  }
  const md = reportMarkdown(keptRuns(runsDir));
  writeFileSync(join(root, 'bench/results/report.md'), md);
  console.log(md);
}

await main();
