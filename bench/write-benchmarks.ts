// Writes BENCHMARKS.md from the sections each benchmark left in bench/results/, with the machine
// and the date. Run a benchmark (pnpm bench:ingest, bench:report, bench:soak, bench:dashboard,
// bench:tracker, bench:footprint), then pnpm benchmarks.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { machineLine } from './machine.ts';

const results = new URL('./results/', import.meta.url);
const order = [
  'ingest.md',
  'report.md',
  'soak.md',
  'live.md',
  'dashboard.md',
  'dashboard-10m.md',
  'tracker.md',
];
const files = readdirSync(results)
  .filter((f) => f.endsWith('.md'))
  .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
const out = [
  '# Benchmarks',
  '',
  'Written by `pnpm benchmarks` from the sections in `bench/results/` (each benchmark writes its own:',
  '`pnpm bench:ingest`, `pnpm bench:report`, `pnpm bench:soak`, `pnpm bench:live`, `pnpm bench:dashboard`, `pnpm bench:tracker`,',
  '`pnpm bench:footprint`, `pnpm bench:backup`, `pnpm bench:export`). Targets are checked here, never by timed tests. Comparisons are ratios',
  'measured in one run on one machine.',
  '',
  `Written ${new Date().toISOString().slice(0, 10)} on ${machineLine()} (load average when written: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}).`,
  '',
  // a blank line after each section, so the next heading starts a block of its own
  ...files.flatMap((f) => [readFileSync(new URL(f, results), 'utf8').trim(), '']),
].join('\n');
writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), out);
console.log(`BENCHMARKS.md: ${files.join(', ')}`);
