// The footprint of `footfall start` as a person runs it: the time from the command to the first
// answer of GET /api/v1/health through the gateway, and the resident memory of every process it
// runs once idle, on an empty data directory and on one with demo events loaded. Each measurement
// is kept under a label (`--label before|after`) in bench/results/footprint.json, and
// bench/results/footprint.md shows every label beside the targets.
// Run: pnpm bench:footprint [--label after] [--note text] [--events 1000000] [--rounds 3] [--settle 10]
// or --render to rewrite footprint.md from footprint.json.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeDemoData } from './demo-data.ts';
import { freePort, machineLine, rssOf, tree } from './machine.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'packages/cli/bin/footfall.mjs');
const RESULTS = join(root, 'bench/results/footprint.json');
const TARGET_MIB = 200;
const TARGET_START_MS = 1500;

const { values } = parseArgs({
  options: {
    label: { type: 'string', default: 'after' },
    note: { type: 'string', default: '' },
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '3' },
    settle: { type: 'string', default: '10' },
    /** rewrite footprint.md from footprint.json without measuring */
    render: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const settleMs = Number(values.settle) * 1000;

interface ProcessRss {
  name: string;
  mib: number;
}
interface Measure {
  startMs: number;
  totalMib: number;
  processes: ProcessRss[];
}
interface Entry {
  label: string;
  note: string;
  date: string;
  machine: string;
  empty: Measure;
  loaded: Measure & { events: number };
}

function start(dataDir: string, port: number): ChildProcess {
  return spawn(process.execPath, [BIN, 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      FOOTFALL_DATA_DIR: dataDir,
      FOOTFALL_ADDR: `127.0.0.1:${port}`,
      FOOTFALL_GEO: 'off',
      FOOTFALL_OPERATOR_TOKEN: 'footprint-operator-token',
      FOOTFALL_API_TOKEN: 'footprint-api-token-0123456789',
    },
    stdio: 'ignore',
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Polls GET /api/v1/health every 5 ms; resolves with the ms from `since` to the first 200. */
async function firstHealth(port: number, since: number): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`, {
        headers: { authorization: 'Bearer footprint-api-token-0123456789' },
      });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > 60_000) throw new Error('no health answer within 60 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function measure(dataDir: string): Promise<Measure> {
  const runs: Measure[] = [];
  for (let r = 0; r < rounds; r++) {
    const port = await freePort();
    const t0 = performance.now();
    const child = start(dataDir, port);
    const startMs = await firstHealth(port, t0);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const processes: ProcessRss[] = [];
    for (const p of await tree(child.pid!)) {
      const rss = await rssOf(p.pid);
      if (rss !== null) processes.push({ name: p.name, mib: rss / 2 ** 20 });
    }
    await stop(child);
    runs.push({ startMs, totalMib: processes.reduce((n, p) => n + p.mib, 0), processes });
    console.log(
      `  round ${r + 1}: ${startMs.toFixed(0)} ms to health, ${runs.at(-1)!.totalMib.toFixed(1)} MiB`,
    );
  }
  const sorted = [...runs].sort((a, b) => a.totalMib - b.totalMib);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const startMs = [...runs.map((m) => m.startMs)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  return { ...median, startMs };
}

/**
 * Loads demo events and lets the query service tail them all, so later starts find them applied
 * (and stops it cleanly, so DuckDB checkpoints and no later start replays its log).
 */
async function loadEvents(dataDir: string, events: number): Promise<number> {
  const demo = await writeDemoData({ dataDir, events });
  const port = await freePort();
  const child = start(dataDir, port);
  await firstHealth(port, performance.now());
  // done once the backlog has been seen and is gone (versions before 0.1.0's tailer fix reported no
  // backlog until their first batch)
  let sawBacklog = false;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/_footfall/health`, {
      headers: { authorization: 'Bearer footprint-operator-token' },
    });
    const body = (await res.json()) as { writer?: { lag_events: number } };
    const lag = res.status === 200 ? body.writer?.lag_events : undefined;
    if (lag !== undefined && lag > 0) sawBacklog = true;
    if (sawBacklog && lag === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await stop(child);
  return demo.events;
}

if (values.render) {
  writeFileSync(
    join(root, 'bench/results/footprint.md'),
    markdown(JSON.parse(readFileSync(RESULTS, 'utf8'))),
  );
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'ff-footprint-'));
try {
  console.log('empty data directory');
  const empty = await measure(join(work, 'empty'));
  console.log(`loading about ${values.events} demo events`);
  const loadedDir = join(work, 'loaded');
  const events = await loadEvents(loadedDir, Number(values.events));
  console.log(`${events} events loaded`);
  const loaded = { ...(await measure(loadedDir)), events };
  const entries: Entry[] = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : [];
  const entry: Entry = {
    label: values.label!,
    note: values.note!,
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    machine: machineLine(),
    empty,
    loaded,
  };
  const kept = entries.filter((e) => e.label !== entry.label);
  kept.push(entry);
  writeFileSync(RESULTS, `${JSON.stringify(kept, null, 2)}\n`);
  writeFileSync(join(root, 'bench/results/footprint.md'), markdown(kept));
  console.log('bench/results/footprint.md written');
} finally {
  rmSync(work, { recursive: true, force: true });
}

function markdown(entries: Entry[]): string {
  const mib = (n: number) => `${n.toFixed(1)} MiB`;
  const per = (m: Measure) => m.processes.map((p) => `${p.name} ${p.mib.toFixed(0)}`).join(', ');
  const lines = [
    '## Footprint of `footfall start`',
    '',
    `Resident memory of every process \`footfall start\` runs, summed, ${values.settle} s after its first answer (idle), and the time from the command to the first answer of \`GET /api/v1/health\` through the gateway; median of ${rounds} starts, geo off. "Loaded" is a data directory whose demo events the query service has already tailed. Targets: at most ${TARGET_MIB} MiB idle on an empty data directory, at most ${TARGET_START_MS / 1000} s to the first answer.`,
    '',
    '| run | data | to first health answer | idle resident memory, all processes | per process (MiB) |',
    '|---|---|--:|--:|---|',
  ];
  for (const e of entries) {
    const name = `${e.label}${e.note ? ` (${e.note})` : ''}, ${e.date}`;
    lines.push(
      `| ${name} | empty | ${e.empty.startMs.toFixed(0)} ms | ${mib(e.empty.totalMib)} | ${per(e.empty)} |`,
    );
    lines.push(
      `| ${name} | ${(e.loaded.events / 1e6).toFixed(2)} M events | ${e.loaded.startMs.toFixed(0)} ms | ${mib(e.loaded.totalMib)} | ${per(e.loaded)} |`,
    );
  }
  const last = entries.at(-1)!;
  lines.push(
    '',
    `**Targets, latest run (${last.label}):** idle memory on an empty data directory ${mib(last.empty.totalMib)} (target ≤ ${TARGET_MIB} MiB: ${last.empty.totalMib <= TARGET_MIB ? 'met' : 'missed'}); first health answer ${last.empty.startMs.toFixed(0)} ms (target ≤ ${TARGET_START_MS} ms: ${last.empty.startMs <= TARGET_START_MS ? 'met' : 'missed'}).`,
    '',
    `Machine: ${last.machine}.`,
    '',
  );
  return lines.join('\n');
}
