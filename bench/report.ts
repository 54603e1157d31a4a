// Report latency, tail throughput and bytes per event of the real query service: demo data is
// written through the WAL, `footfall query` (2 engine threads, 256 MB) tails it into DuckDB, then
// uncached 30-day reports are timed by their Server-Timing header. Writes bench/results/report.md.
// Run: pnpm bench:report [--sizes 1000000,10000000] [--reports 40] [--out file.md] [--keep]
// or, on directories an earlier --keep left (data loaded already): --reuse dir1,dir2
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type DemoDataSummary, writeDemoData } from './demo-data.ts';
import { machineLine, mib, rssOf } from './machine.ts';
import { cpuSecondsOf, percentile, type QueryProcess, startQuery } from './query-process.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const ENGINE = { FOOTFALL_ENGINE_THREADS: '2', FOOTFALL_ENGINE_MEMORY: '256MB' };
const BUDGET_MS = 250;
const DAY = 86_400_000;

/** The report variants timed; each request uses a different 30-day window, so none is cached. */
const SERIES = [
  { name: '30 days, `compare=previous&daily=1`', query: '&compare=previous&daily=1' },
  { name: '30 days, `compare=previous`', query: '&compare=previous' },
  { name: '30 days, no comparison', query: '' },
  { name: '30 days, filtered by channel', query: `&f=${encodeURIComponent('channel:Organic Search')}` },
  { name: '30 days, filtered by page', query: `&f=${encodeURIComponent('page:/pricing')}` },
  {
    name: '30 days, two filters (channel and page)',
    query: `&f=${encodeURIComponent('channel:Organic Search')}&f=${encodeURIComponent('page:/pricing')}`,
  },
] as const;

/** Long periods: fewer requests each (every one a different window ending on a different day). */
const LONG_SERIES = [
  { name: '365 days', days: 365 },
  {
    name: '365 days, filtered by channel',
    days: 365,
    query: `&f=${encodeURIComponent('channel:Organic Search')}`,
  },
  { name: '90 days', days: 90 },
] as const;
const LONG_REPORTS = 6;

interface SeriesResult {
  name: string;
  n: number;
  p50: number;
  p95: number;
  max: number;
  clientP50: number;
  /** answers other than 200 (not timed) and the first one's body */
  failed: number;
  error?: string;
}

/** What a generation and tail left for a later `--reuse` of the same directory. */
interface TailRecord {
  demo: DemoDataSummary;
  generateSeconds: number;
  tailSeconds: number;
  tailCpuSeconds: number | null;
}

interface SizeResult extends TailRecord {
  series: SeriesResult[];
  long: SeriesResult[];
  fullRange: { ms: number; days: number };
  /** seconds from the end of the tail until the query service had rolled up every past day */
  rollupSeconds: number;
  kpis: { visitors: number; visits: number; pageviews: number; bounce_rate: number; visit_duration: number };
  rss: { afterTail: number | null; peak: number };
  dbBytes: number;
  /** the visitor store (visitors.db and its SQLite WAL) */
  storeBytes: number;
  load: { before: string; after: string };
}

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
    const queued = metric(res.body, 'footfall_rollup_days_queued');
    busy ||= queued > 0 || metric(res.body, 'footfall_rollup_days_built_total') > 0;
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
async function prepare(events: number, reuse: string | undefined, q: () => Promise<QueryProcess>) {
  if (reuse !== undefined) {
    const record = JSON.parse(readFileSync(join(reuse, 'tail.json'), 'utf8')) as TailRecord;
    return { record, query: await q() };
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
  const query = await q();
  const cpuAtListen = await cpuSecondsOf(query.pid);
  const done = await waitForTail(query, demo, Math.max(600_000, events / 5));
  const cpuAtDone = await cpuSecondsOf(query.pid);
  const record: TailRecord = {
    demo,
    generateSeconds,
    tailSeconds: (done - query.listeningAt) / 1000,
    tailCpuSeconds: cpuAtDone !== null && cpuAtListen !== null ? cpuAtDone - cpuAtListen : null,
  };
  writeFileSync(join(current, 'tail.json'), JSON.stringify(record));
  process.stderr.write(`tailed in ${record.tailSeconds.toFixed(1)} s\n`);
  return { record, query };
}

let current = '';
const dataDirOf = (dir: string) => join(dir, 'data');

async function runSize(events: number, reports: number, keep: boolean, reuse?: string): Promise<SizeResult> {
  current = reuse ?? mkdtempSync(join(tmpdir(), 'ff-bench-report-'));
  const dataDir = dataDirOf(current);
  const loadBefore = load();
  const token = randomBytes(24).toString('base64url');
  let q: QueryProcess | undefined;
  let peak = 0;
  const sampler = setInterval(async () => {
    if (q) peak = Math.max(peak, (await rssOf(q.pid)) ?? 0);
  }, 500);
  try {
    const { record, query } = await prepare(events, reuse, async () => {
      q = await startQuery(dataDir, ENGINE, token);
      return q;
    });
    const { demo } = record;
    const afterTail = await rssOf(query.pid);
    const today = todayIn(demo.timeZone);
    // the whole history: every generated pageview belongs to a visit, so the counts must match
    const firstDay = Date.parse(
      `${new Intl.DateTimeFormat('en-CA', { timeZone: demo.timeZone }).format(demo.firstAt)}T00:00:00Z`,
    );
    const fullPath = `/api/v1/sites/${demo.siteId}/report?from=${day(firstDay)}&to=${day(today)}`;
    // Caught up, the query service rolls up every past day by itself (before any report asks);
    // the timed reports run once it has.
    const rollupStarted = performance.now();
    await waitForRollups(query, 1_800_000);
    const rollupSeconds = (performance.now() - rollupStarted) / 1000;
    process.stderr.write(`rollups built ${rollupSeconds.toFixed(1)} s after the tail\n`);
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
    peak = Math.max(peak, (await rssOf(query.pid)) ?? 0);
    await query.stop();
    const db = join(dataDir, 'analytics.duckdb');
    return {
      ...record,
      series,
      long,
      fullRange: { ms: full.serverMs, days: Math.round((today - firstDay) / DAY) + 1 },
      rollupSeconds,
      kpis: (JSON.parse(last30.body) as { kpis: SizeResult['kpis'] }).kpis,
      rss: { afterTail, peak },
      dbBytes: fileSize(db) + fileSize(`${db}.wal`),
      storeBytes: fileSize(join(dataDir, 'visitors.db')) + fileSize(join(dataDir, 'visitors.db-wal')),
      load: { before: loadBefore, after: load() },
    };
  } finally {
    clearInterval(sampler);
    await q?.stop();
    if (keep || reuse) process.stderr.write(`kept ${current} (--reuse ${current})\n`);
    else rmSync(current, { recursive: true, force: true });
  }
}

const n = (x: number) => Math.round(x).toLocaleString('en');
const ms = (x: number) => x.toFixed(1);

/** The targets of issue 38 at the size each applies to (the largest run, or 1 M). */
function targets(results: SizeResult[]): string[] {
  const largest = results.reduce((a, b) => (b.demo.events > a.demo.events ? b : a));
  const near1M = results.reduce((a, b) =>
    Math.abs(b.demo.events - 1e6) < Math.abs(a.demo.events - 1e6) ? b : a,
  );
  const size = (r: SizeResult) => `${(r.demo.events / 1e6).toFixed(1)} M`;
  const rate = (r: SizeResult) => r.demo.events / r.tailSeconds;
  const worstFiltered = Math.max(...largest.series.slice(3).map((s) => s.p95));
  const ratio = (x: number) => x.toFixed(2);
  const checks: [string, SizeResult, number, number, (x: number) => string, boolean][] = [
    ['tail, events/s', near1M, rate(near1M), 33_000, n, true],
    ['tail, events/s', largest, rate(largest), 33_000, n, true],
    ['tail rate ÷ the 1 M rate', largest, rate(largest) / rate(near1M), 0.9, ratio, true],
    ['query process RSS after tail, MiB', largest, (largest.rss.afterTail ?? 0) / 2 ** 20, 456, n, false],
    ['query process RSS peak, MiB', largest, largest.rss.peak / 2 ** 20, 456, n, false],
    ['30-day report with comparison and daily=1, p95 ms', largest, largest.series[0]!.p95, 100, ms, false],
    ['filtered 30-day reports, worst p95 ms', largest, worstFiltered, 200, ms, false],
    ['whole history in one report, ms', largest, largest.fullRange.ms, 500, ms, false],
    ['365 days filtered by channel, median ms', near1M, near1M.long[1]!.p50, 100, ms, false],
  ];
  return [
    '| target (issue 38) | at | measured | target | |',
    '| --- | --: | --: | --: | --- |',
    ...checks.map(([name, r, value, target, fmt, atLeast]) => {
      const met = atLeast ? value >= target : value <= target;
      return `| ${name} | ${size(r)} | ${fmt(value)} | ${atLeast ? '≥' : '≤'} ${fmt(target)} | ${met ? 'met' : '**not met**'} |`;
    }),
  ];
}

function markdown(results: SizeResult[], reports: number): string {
  const head = results.map((r) => `${(r.demo.events / 1e6).toFixed(r.demo.events < 1e6 ? 2 : 1)} M events`);
  const row = (name: string, cells: string[]) => `| ${name} | ${cells.join(' | ')} |`;
  const budget = results.map((r) => r.series[0]!.p95);
  const lines = [
    '## Report latency, tail throughput and storage',
    '',
    `Machine: ${machineLine()}. Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    '',
    'Demo data from `bench/demo-data.ts` (seed 1, 400 days ending at the run, Europe/Berlin, weekday and hour cycles, returning visitors, about 45 % bounces, engagement/vitals/custom events beside pageviews) written through the WAL; then the real `footfall query` process with `FOOTFALL_ENGINE_THREADS=2`, `FOOTFALL_ENGINE_MEMORY=256MB` tails it into DuckDB and answers over its unix socket (as the gateway forwards). ' +
      'Once the tail has caught up, the query service rolls up every past day of the site by itself (day rollups, apps/query/src/engine/README.md); once they are built the rows below are timed, so they show a site whose past days are rolled up. ' +
      `Latency is the query service's own \`Server-Timing\` total for ${reports} sequential uncached reports per row: every request asks for a different 30-day window (the cache is keyed by parameters), after 2 warm-up requests. Filtered rows use \`f=channel:Organic Search\` and \`f=page:/pricing\`; the 365- and 90-day rows time ${LONG_REPORTS} windows each (the filtered one with \`f=channel:Organic Search\`).`,
    '',
    row('', head),
    row(
      '---',
      head.map(() => '--:'),
    ),
    row(
      'events (pageviews)',
      results.map((r) => `${n(r.demo.events)} (${n(r.demo.pageviews)})`),
    ),
    ...SERIES.flatMap((s, i) => [
      row(
        `${s.name}: p50 / p95 ms`,
        results.map((r) => `${ms(r.series[i]!.p50)} / **${ms(r.series[i]!.p95)}**`),
      ),
    ]),
    row(
      'slowest single report (daily=1), ms',
      results.map((r) => ms(r.series[0]!.max)),
    ),
    ...LONG_SERIES.map((s, i) =>
      row(
        `${s.name} (${LONG_REPORTS} reports): p50 / max ms`,
        results.map((r) => `${ms(r.long[i]!.p50)} / **${ms(r.long[i]!.max)}**`),
      ),
    ),
    row(
      'whole history in one report (month chart), ms',
      results.map((r) => `${ms(r.fullRange.ms)} (${r.fullRange.days} days)`),
    ),
    row(
      'day rollups of every past day, built by the service after the tail, s',
      results.map((r) => r.rollupSeconds.toFixed(1)),
    ),
    row(
      'tail: events/s into DuckDB',
      results.map((r) => `${n(r.demo.events / r.tailSeconds)} (${r.tailSeconds.toFixed(1)} s)`),
    ),
    row(
      'tail: query process CPU s',
      results.map((r) => (r.tailCpuSeconds === null ? 'n/a' : r.tailCpuSeconds.toFixed(1))),
    ),
    row(
      'DuckDB bytes per event (analytics.duckdb + .wal)',
      results.map((r) => `${n(r.dbBytes / r.demo.events)} (${mib(r.dbBytes)})`),
    ),
    row(
      'visitor store (visitors.db) bytes per event',
      results.map((r) => `${n(r.storeBytes / r.demo.events)} (${mib(r.storeBytes)})`),
    ),
    row(
      'WAL bytes per event',
      results.map((r) => `${n(r.demo.walBytes / r.demo.events)} (${mib(r.demo.walBytes)})`),
    ),
    row(
      'query process RSS after tail / peak',
      results.map((r) => `${mib(r.rss.afterTail)} / ${mib(r.rss.peak)}`),
    ),
    row(
      'demo data: generate + write WAL, s',
      results.map((r) => r.generateSeconds.toFixed(1)),
    ),
    row(
      'last 30 days: visitors / visits / bounce',
      results.map(
        (r) => `${n(r.kpis.visitors)} / ${n(r.kpis.visits)} / ${(r.kpis.bounce_rate * 100).toFixed(1)} %`,
      ),
    ),
    row(
      'load average (1/5/15 min) before → after',
      results.map((r) => `${r.load.before} → ${r.load.after}`),
    ),
    '',
    `**Budget: p95 ≤ ${BUDGET_MS} ms for a 30-day report with comparison and daily=1:** ${budget
      .map((b, i) => `${b <= BUDGET_MS ? 'met' : '**NOT met**'} at ${head[i]} (${ms(b)} ms)`)
      .join('; ')}.`,
    '',
    ...targets(results),
    '',
    'The load averages show how busy the shared machine was. The whole-history report is checked to count exactly the pageviews written (`tests/reports/rollups-demo.test.ts` checks that reports over rollups equal raw ones on this demo data).',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000000,10000000' },
      reports: { type: 'string', default: '40' },
      out: { type: 'string', default: join(root, 'bench/results/report.md') },
      keep: { type: 'boolean', default: false },
      /** a directory kept by --keep: its data is already loaded, only reports run */
      reuse: { type: 'string' },
    },
  });
  const reports = Number(values.reports);
  const results: SizeResult[] = [];
  const runs = values.reuse ? values.reuse.split(',') : values.sizes.split(',');
  for (const run of runs) {
    process.stderr.write(`\n== ${run} ==\n`);
    results.push(
      values.reuse ? await runSize(0, reports, true, run) : await runSize(Number(run), reports, values.keep),
    );
  }
  const md = markdown(results, reports);
  writeFileSync(values.out, md);
  console.log(md);
}

await main();
