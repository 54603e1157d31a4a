// Ingest throughput at durable acknowledgement: the real gateway (`footfall ingest`, fsync per
// group commit) against a bare Hono handler answering 202, both loaded by the same tool in the same
// run on the same machine: autocannon, then wrk when it is installed. Writes
// bench/results/ingest.md. Run: pnpm bench:ingest
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INGEST_NODE_FLAGS } from '@footfall/cli/node-flags';
import autocannon from 'autocannon';
import { benchSite, machineLine, mib, rssOf } from './machine.ts';
import { cpuSecondsOf } from './query-process.ts';
import { eventBodies } from './varied-events.ts';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** a few browsers at once, more, and a busy site's many; BENCH_CONNECTIONS=32,64 for others */
const CONCURRENCY = (process.env.BENCH_CONNECTIONS ?? '64,128,256').split(',').map(Number);
const WRK_INSTALLED = spawnSync('wrk', ['--version']).error === undefined;
/** autocannon always; wrk too when installed (Debian: apt-get install wrk). BENCH_TOOLS=wrk for one. */
const TOOLS = (process.env.BENCH_TOOLS ?? (WRK_INSTALLED ? 'autocannon,wrk' : 'autocannon'))
  .split(',')
  .map((t) => t.trim()) as Tool[];
type Tool = 'autocannon' | 'wrk';
const root = fileURLToPath(new URL('..', import.meta.url));

function startProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      const m =
        /"msg":"(?:ingest gateway )?listening".*?"port":(\d+)|"port":(\d+).*?"msg":"(?:ingest gateway )?listening"/.exec(
          buf,
        );
      if (m) resolve({ child, port: Number(m[1] ?? m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`exited early (${code})`)));
  });
}

/** What one load of one server gave, in the same terms for both tools. */
interface LoadResult {
  requestsPerSecond: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** One load of one server, with the CPU time the server and the load tool spent per request. */
interface Run {
  result: LoadResult;
  /** server CPU (user + system, every thread) per answered request, µs */
  serverUs: number;
  /** the load tool's CPU per answered request, µs */
  clientUs: number;
}

interface Target {
  child: ChildProcess;
  port: number;
}

async function load(tool: Tool, server: Target, bodies: Bodies, connections: number): Promise<Run> {
  const serverBefore = await cpuSecondsOf(server.child.pid!);
  const clientBefore = await loadToolCpuSeconds();
  const result =
    tool === 'wrk'
      ? await loadWithWrk(server.port, bodies.file, connections)
      : await loadWithAutocannon(server.port, bodies.list, connections);
  const serverAfter = await cpuSecondsOf(server.child.pid!);
  const n = Math.max(1, result.total);
  return {
    result,
    serverUs:
      serverBefore === null || serverAfter === null ? Number.NaN : ((serverAfter - serverBefore) * 1e6) / n,
    clientUs: (((await loadToolCpuSeconds()) - clientBefore) * 1e6) / n,
  };
}

/**
 * CPU seconds of the load tools: autocannon runs in this process, wrk is a child that has exited
 * (and been waited for) by the time its load resolves, so its time is in our children's.
 */
async function loadToolCpuSeconds(): Promise<number> {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1e6 + ((await cpuSecondsOf('self', 'children')) ?? 0);
}

async function loadWithAutocannon(port: number, bodies: string[], connections: number): Promise<LoadResult> {
  let i = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: DURATION_S,
    requests: [
      {
        method: 'POST',
        path: '/api/e',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: bodies[i++ % bodies.length],
          headers: {
            ...req.headers,
            'user-agent': UAS[i % UAS.length]!,
            'x-real-ip': `198.51.${(i >> 8) & 255}.${i & 255}`,
          },
        }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** wrk with two threads and bench/wrk-events.lua, which sends the same traffic as autocannon. */
function loadWithWrk(port: number, bodiesFile: string, connections: number): Promise<LoadResult> {
  const args = ['-t2', `-c${connections}`, `-d${DURATION_S}s`, '-s', join(root, 'bench/wrk-events.lua')];
  const child = spawn('wrk', [...args, `http://127.0.0.1:${port}/api/e`, '--', bodiesFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const m = /WRK_RESULT (\{.*\})/.exec(out);
      if (code !== 0 || !m) {
        reject(new Error(`wrk exited with ${code}: ${out}`));
        return;
      }
      const r = JSON.parse(m[1]!) as Record<string, number>;
      resolve({
        requestsPerSecond: r['requests']! / (r['durationUs']! / 1e6),
        total: r['requests']!,
        p50Ms: r['p50Us']! / 1000,
        p99Ms: r['p99Us']! / 1000,
        non2xx: r['non2xx']!,
        errors: r['errors']!,
      });
    });
  });
}

interface Bodies {
  list: string[];
  /** the same bodies, one per line, for wrk */
  file: string;
}

const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
];

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'ff-bench-'));
  const dataDir = join(tmp, 'data');
  const env = {
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_ADDR: '127.0.0.1:0',
    FOOTFALL_GEO: 'off',
    FOOTFALL_LOG_LEVEL: 'warn',
    FOOTFALL_TRUST_PROXY: 'header:X-Real-IP',
  };
  const site = await benchSite(env);
  // 40,000 visitors and 65,536 addresses: each sends about one event a second at most, under the
  // rate limits, which stay on as in production (a 429 would show as non-2xx)
  const list = eventBodies(site.id, 40_000);
  const bodies: Bodies = { list, file: join(tmp, 'bodies.txt') };
  writeFileSync(bodies.file, `${list.join('\n')}\n`);

  // Both servers run for the whole benchmark; the loads alternate between them, round after round,
  // so a noisy stretch of the shared machine hits both sides alike. The table shows the median round.
  const bare = await startProcess(['--import', 'tsx', join(root, 'bench/bare-server.ts')], {});
  // with the node options it runs with in production (footfall start, the ingest image)
  const gw = await startProcess(
    [...INGEST_NODE_FLAGS, join(root, 'packages/cli/bin/footfall.mjs'), 'ingest'],
    {
      ...env,
      FOOTFALL_LOG_LEVEL: 'info',
    },
  );
  await new Promise((r) => setTimeout(r, 500));
  const idleRss = await rssOf(gw.child.pid!);
  let peakRss = 0;
  const sampler = setInterval(async () => {
    peakRss = Math.max(peakRss, (await rssOf(gw.child.pid!)) ?? 0);
  }, 250);
  const sections: string[] = [];
  for (const tool of TOOLS) {
    const runs = CONCURRENCY.map(() => [] as Pair[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of CONCURRENCY.entries()) {
        const b = await load(tool, bare, bodies, c);
        const g = await load(tool, gw, bodies, c);
        runs[i]!.push({ bare: b, gw: g, ratio: g.result.requestsPerSecond / b.result.requestsPerSecond });
      }
    }
    sections.push(toolSection(tool, runs));
  }
  clearInterval(sampler);
  bare.child.kill('SIGTERM');
  gw.child.kill('SIGTERM');
  await new Promise((r) => gw.child.once('exit', r));
  rmSync(tmp, { recursive: true, force: true });

  const md = [
    '## Ingest throughput at durable acknowledgement',
    '',
    `${list.length.toLocaleString('en')} varied pageviews and events (paths, referrers, UTM, user agents, addresses) against \`POST /api/e\`, ${DURATION_S} s per run, ${ROUNDS} rounds alternating between the two servers (each table shows its concurrency's median round). The gateway makes every event durable (group commit: one O_DSYNC write per batch) before its 202; rate limits on, as in production (each address and visitor stays under them), geo off; the gateway runs with the node options \`footfall start\` gives it (\`${INGEST_NODE_FLAGS.join(' ')}\`), the bare handler with none. Load tool and servers share the machine's 2 cores, so the load tool's own CPU sets how fast the bare handler can go: autocannon (JavaScript, one thread) takes about as much CPU per request as the bare handler, wrk (C, two threads) about half as much. Each tool is compared with itself only.`,
    '',
    ...sections,
    WRK_INSTALLED ? '' : 'wrk is not installed (`apt-get install wrk`): autocannon only.\n',
    `Machine: ${machineLine()}; ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `Gateway resident memory: ${mib(idleRss)} idle, ${mib(peakRss)} peak under load.`,
    '',
  ].join('\n');
  writeFileSync(join(root, 'bench/results/ingest.md'), md);
  console.log(md);
}

interface Pair {
  bare: Run;
  gw: Run;
  ratio: number;
}

const TOOL_NOTES: Record<Tool, string> = {
  autocannon:
    "autocannon's own CPU keeps one core busy, so with few connections the gateway is bound by connections ÷ commit latency rather than by its CPU: an event arriving during a commit waits for it and then for its own, and a commit's kernel work waits for a CPU. (Instrumented once, at 64 connections: a commit carried about 24 events and took about 1 ms, against 0.1 to 0.2 ms for the same write on an idle machine.)",
  wrk: "wrk leaves the servers more of the machine: the bare handler goes faster, and the gateway's event loop is its limit at every concurrency, so the ratio follows the two servers' CPU per request.",
};

/** The markdown of one load tool's runs: table, ratios, peaks and CPU cost ratios. */
function toolSection(tool: Tool, runs: Pair[][]): string {
  const median = runs.map(
    (list) => [...list].sort((a, b) => a.ratio - b.ratio)[Math.floor(list.length / 2)]!,
  );
  const row = (name: string, c: number, run: Run) => {
    const r = run.result;
    return `| ${name} | ${c} | ${Math.round(r.requestsPerSecond).toLocaleString('en')} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${run.serverUs.toFixed(1)} | ${run.clientUs.toFixed(1)} | ${r.non2xx} | ${r.errors} |`;
  };
  // CPU per request is much steadier than requests/s on a shared VM: the cost ratio of the two
  // servers, load tool included, is what the throughput ratio tends to once the CPUs are the limit.
  const costRatio = (list: Pair[]) => {
    const ratios = list
      .map((r) => (r.bare.serverUs + r.bare.clientUs) / (r.gw.serverUs + r.gw.clientUs))
      .sort((a, b) => a - b);
    return ratios[Math.floor(ratios.length / 2)]!;
  };
  // Each server's best requests/s over the concurrencies: what it can take at most on this machine.
  const peak = (side: 'bare' | 'gw') => Math.max(...median.map((m) => m[side].result.requestsPerSecond));
  const ratios = CONCURRENCY.map((c, i) => {
    const all = runs[i]!.map((r) => r.ratio);
    return `${median[i]!.ratio.toFixed(2)} at ${c} connections (rounds ${Math.min(...all).toFixed(2)} to ${Math.max(...all).toFixed(2)})`;
  });
  return [
    `### Loaded by ${tool === 'wrk' ? 'wrk (2 threads, bench/wrk-events.lua)' : 'autocannon'}`,
    '',
    TOOL_NOTES[tool],
    '',
    '| server | connections | requests/s | p50 ms | p99 ms | server CPU µs/request | load tool CPU µs/request | non-2xx | errors |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...CONCURRENCY.map((c, i) => row('bare Hono handler (202, nothing done)', c, median[i]!.bare)),
    ...CONCURRENCY.map((c, i) => row('Footfall ingest gateway', c, median[i]!.gw)),
    '',
    `**Ratio gateway / bare (median round): ${ratios.join('; ')}** (target at least 0.70).`,
    '',
    `Peak requests/s over these concurrencies: gateway ${Math.round(peak('gw')).toLocaleString('en')}, bare ${Math.round(peak('bare')).toLocaleString('en')}: **${(peak('gw') / peak('bare')).toFixed(2)}**.`,
    '',
    `CPU per request, server and load tool together, bare / gateway (median round): ${CONCURRENCY.map((c, i) => `${costRatio(runs[i]!).toFixed(2)} at ${c} connections`).join('; ')}. When both sides are CPU-bound this is the ratio requests/s tends to; below it the gateway waits for the disk.`,
    '',
  ].join('\n');
}

await main();
