// How soon a visit shows on the live stream, as a person watching the dashboard sees it: the real
// `footfall start` on a fresh data directory, the site's live stream held open (GET …/live, the
// dashboard's own), and a pageview with a path of its own sent to POST /api/e now and then. Each
// probe is timed from the gateway's 202 to the stream message that carries its path. Probes run
// with nothing else going on, then while autocannon sends the gateway a steady rate of other
// events (varied visitors, the rate limits on). The spec's promise: a visit shows within 2 s.
// Writes bench/results/live.md (then `node --import tsx bench/write-benchmarks.ts`).
// Run: pnpm bench:live [--probes 40] [--rates 1000,5000] (a phase of probes per background rate)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchSite, freePort, machineLine } from './machine.ts';
import { percentile } from './soak-probes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const OPERATOR = 'live-operator-token-0123456789';
const API = 'live-api-token-0123456789abcdef';
/** the spec's promise for the live view */
const TARGET_MS = 2000;
const UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const { values } = parseArgs({
  options: {
    probes: { type: 'string', default: '40' },
    rates: { type: 'string', default: '1000,5000' },
  },
});
const probes = Number(values.probes);
const rates = values.rates.split(',').map(Number);

/** The live stream: resolves each awaited path when a `visits` message carries it. */
function watchLive(base: string, site: string, signal: AbortSignal) {
  const waiting = new Map<string, (at: number) => void>();
  let messages = 0;
  const opened = (async () => {
    const res = await fetch(`${base}/api/v1/sites/${site}/live`, {
      headers: { authorization: `Bearer ${API}`, accept: 'text/event-stream' },
      signal,
    });
    if (res.status !== 200 || !res.body) throw new Error(`live answered ${res.status}`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let ready: () => void = () => {};
    const isReady = new Promise<void>((r) => (ready = r));
    void (async () => {
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          const now = performance.now();
          buffer += decoder.decode(read.value, { stream: true });
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
            if (/^event: ready/m.test(message)) ready();
            const data = /^data: (.*)$/m.exec(message)?.[1];
            if (!/^event: visits/m.test(message) || !data) continue;
            messages += 1;
            for (const visit of JSON.parse(data) as { path: string }[]) waiting.get(visit.path)?.(now);
          }
        }
      } catch {
        // aborted at the end
      }
    })();
    await isReady;
  })();
  return {
    opened,
    messages: () => messages,
    /** resolves with when the stream carried `path` (performance.now()), or null after 30 s */
    seen(path: string): Promise<number | null> {
      return new Promise((resolve) => {
        const t = setTimeout(() => {
          waiting.delete(path);
          resolve(null);
        }, 30_000);
        waiting.set(path, (at) => {
          clearTimeout(t);
          waiting.delete(path);
          resolve(at);
        });
      });
    },
  };
}

interface Phase {
  name: string;
  /** ms from the 202 to the stream message, per probe; null: not seen within 30 s */
  delays: (number | null)[];
  /** events/s the load tool had answered 202 while the probes ran (0 when idle) */
  loadRate: number;
}

/** Sends `count` probes, one every 400 to 900 ms, each a pageview of a path of its own. */
async function runProbes(
  base: string,
  site: string,
  live: ReturnType<typeof watchLive>,
  tag: string,
  count: number,
): Promise<(number | null)[]> {
  const delays: (number | null)[] = [];
  for (let i = 0; i < count; i++) {
    const path = `/live-probe/${tag}-${i}`;
    const seen = live.seen(path);
    const res = await fetch(`${base}/api/e`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': UA, 'x-real-ip': `203.0.113.${i % 250}` },
      body: JSON.stringify({
        s: site,
        k: 'pv',
        u: `https://example.com${path}`,
        i: `probe-${tag}-${i}`,
        v: `probe-visitor-${tag}-${i}`,
      }),
    });
    const accepted = performance.now();
    if (res.status !== 202) throw new Error(`a probe was answered ${res.status}: ${await res.text()}`);
    const at = await seen;
    delays.push(at === null ? null : Math.max(0, at - accepted));
    await new Promise((r) => setTimeout(r, 400 + Math.floor(Math.random() * 500)));
  }
  return delays;
}

/** Steady background load: autocannon at `rate` events/s until the signal, counting its 202s. */
function backgroundLoad(
  port: number,
  site: string,
  rate: number,
  signal: AbortSignal,
): Promise<{ accepted: number; seconds: number }> {
  let n = 0;
  let accepted = 0;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections: 32,
        overallRate: rate,
        duration: 3600,
        requests: [
          {
            method: 'POST',
            path: '/api/e',
            onResponse: (status) => {
              if (status === 202) accepted++;
            },
            setupRequest: (req) => {
              const visitor = n % 20_000;
              const body = JSON.stringify({
                s: site,
                k: 'pv',
                u: `https://example.com/page/${n % 50}`,
                i: `load-${(n++).toString(36)}`,
                v: `load-visitor-${visitor}`,
              });
              return {
                ...req,
                body,
                headers: {
                  ...req.headers,
                  'content-type': 'application/json',
                  'user-agent': UA,
                  'x-real-ip': `198.51.${(visitor >> 8) & 255}.${visitor & 255}`,
                },
              };
            },
          },
        ],
      },
      (err) => (err ? reject(err) : resolve({ accepted, seconds: (performance.now() - started) / 1000 })),
    );
    signal.addEventListener('abort', () => instance.stop(), { once: true });
  });
}

const fmt = (ms: number | undefined) => (ms === undefined ? '—' : Math.round(ms).toLocaleString('en-US'));

function render(phases: Phase[], loadBefore: number[]): string {
  const rows = phases.map((p) => {
    const seen = p.delays.filter((d): d is number => d !== null).sort((a, b) => a - b);
    const missed = p.delays.length - seen.length;
    const within = seen.filter((d) => d <= TARGET_MS).length;
    return {
      p,
      line: `| ${p.name} | ${p.delays.length} | ${fmt(percentile(seen, 0.5))} | ${fmt(percentile(seen, 0.95))} | ${fmt(seen.at(-1))} | ${missed} | ${within} of ${p.delays.length} |`,
      met: missed === 0 && within === p.delays.length,
    };
  });
  return [
    '## A visit on the live stream',
    '',
    `\`pnpm bench:live\` (bench/live.ts): \`footfall start\` with its defaults (geo off) on a fresh data directory, the site's live stream (\`GET …/live\`, as the dashboard's live view holds it) open, and a pageview with a path of its own sent every 400 to 900 ms; each is timed from the gateway's 202 to the stream message that carries it. First with nothing else going on, then while autocannon (32 connections, in this process) sends other events at ${rates.map((r) => r.toLocaleString('en-US')).join(' and then ')} a second (asked; the table gives what the gateway answered 202). Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}; load average before: ${loadBefore.map((l) => l.toFixed(2)).join(', ')}.`,
    '',
    '| while | probes | p50 ms | p95 ms | max ms | not seen in 30 s | within 2 s |',
    '| --- | --: | --: | --: | --: | --: | --: |',
    ...rows.map((r) => r.line),
    '',
    `**Target: every visit on the live stream within ${TARGET_MS.toLocaleString('en-US')} ms of its 202:** ${rows.map((r) => `${r.p.name}: ${r.met ? 'met' : '**not met**'}`).join('; ')}.`,
    '',
    "The stream sends a committed batch's visits as it commits: idle, the query service polls the write-ahead log every 250 ms; under load, a batch holds what arrived while the one before it loaded.",
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ff-live-'));
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    FOOTFALL_DATA_DIR: join(work, 'data'),
    FOOTFALL_ADDR: `127.0.0.1:${port}`,
    FOOTFALL_GEO: 'off',
    FOOTFALL_LOG_LEVEL: 'warn',
    FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    FOOTFALL_API_TOKEN: API,
    FOOTFALL_TRUST_PROXY: 'header:X-Real-IP',
  };
  const site = await benchSite(env);
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, 'packages/cli/bin/footfall.mjs'), 'start'],
    {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const loadBefore = loadavg();
  const base = `http://127.0.0.1:${port}`;
  const stop = new AbortController();
  try {
    for (;;) {
      const res = await fetch(`${base}/_footfall/health`, {
        headers: { authorization: `Bearer ${OPERATOR}` },
      }).catch(() => null);
      if (res?.ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const live = watchLive(base, site.id, stop.signal);
    await live.opened;
    const phases: Phase[] = [];
    process.stderr.write('probes with nothing else going on\n');
    phases.push({
      name: 'nothing else going on',
      delays: await runProbes(base, site.id, live, 'idle', probes),
      loadRate: 0,
    });
    for (const rate of rates) {
      process.stderr.write(`probes while ${rate} events/s arrive\n`);
      const loadStop = new AbortController();
      const load = backgroundLoad(port, site.id, rate, loadStop.signal);
      await new Promise((r) => setTimeout(r, 10_000)); // the load settles first
      const delays = await runProbes(base, site.id, live, `loaded-${rate}`, probes);
      loadStop.abort();
      const { accepted, seconds } = await load;
      phases.push({
        name: `${Math.round(accepted / seconds).toLocaleString('en-US')} events/s arriving`,
        delays,
        loadRate: accepted / seconds,
      });
      await new Promise((r) => setTimeout(r, 5_000)); // the backlog, if any, drains between phases
    }
    const out = render(phases, loadBefore);
    writeFileSync(new URL('./results/live.md', import.meta.url), out);
    console.log(out);
  } finally {
    stop.abort();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
