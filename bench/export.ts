// `footfall export` and `footfall import footfall` as an operator runs them: the built command, with
// Footfall stopped (each then opens the engine by itself), on the demo data (1M events by default,
// loaded by `footfall start` first, or a directory an earlier bench kept: --reuse). Exports the
// demo site as Parquet and as newline-delimited JSON, then imports the Parquet folder into a new
// site of a fresh installation. Times each, the files' size and the command's peak resident
// memory (sampled every 20 ms). Writes bench/results/export.md.
// Run: pnpm bench:export [--events 1000000] [--reuse <data dir>]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { writeDemoData } from './demo-data.ts';
import { startFootfall, waitTailed } from './footfall-process.ts';
import { machineLine, rssOf } from './machine.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(root, 'packages/cli/bin/footfall.mjs');

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, reuse: { type: 'string' } },
});

/** Runs the built `footfall <args>` on a data directory and samples its resident memory until it exits. */
async function run(
  args: string[],
  dataDir: string,
): Promise<{ seconds: number; peakMib: number; output: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', FOOTFALL_DATA_DIR: dataDir, FOOTFALL_GEO: 'off' },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  let peak = 0;
  const timer = setInterval(async () => {
    peak = Math.max(peak, (await rssOf(child.pid as number)) ?? 0);
  }, 20);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearInterval(timer);
  if (code !== 0) throw new Error(`footfall ${args.join(' ')} exited ${code}: ${output}`);
  return { seconds: (performance.now() - started) / 1000, peakMib: peak / 2 ** 20, output };
}

const folderMib = (dir: string) =>
  readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0) / 2 ** 20;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ff-bench-export-'));
  const dataDir = values.reuse ?? join(work, 'data');
  const marker = join(dataDir, 'bench-demo.json');
  try {
    if (!existsSync(marker)) {
      console.log(`writing ${values.events} demo events into ${dataDir}`);
      writeFileSync(marker, JSON.stringify(await writeDemoData({ dataDir, events: Number(values.events) })));
    }
    const demo = JSON.parse(readFileSync(marker, 'utf8')) as { siteId: string; events: number };
    // the WAL loaded into the engine, then Footfall stopped: the commands open it themselves
    const ff = await startFootfall(dataDir);
    await waitTailed(ff.url);
    await ff.stop();

    const rows: { what: string; seconds: number; peakMib: number; mib: number | null; rows: string }[] = [];
    for (const format of ['parquet', 'ndjson'] as const) {
      const out = join(work, `export-${format}`);
      const r = await run(['export', '--site', demo.siteId, '--format', format, '--out', out], dataDir);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
        files: Record<string, { rows: number }>;
      };
      const count = (name: string) => manifest.files[name]?.rows ?? 0;
      rows.push({
        what: `export, ${format === 'parquet' ? 'Parquet (zstd)' : 'JSON lines'}`,
        ...r,
        mib: folderMib(out),
        rows: `${count('events').toLocaleString('en')} events, ${count('visits').toLocaleString('en')} visits`,
      });
      console.log(`${format}: ${r.seconds.toFixed(1)} s, ${folderMib(out).toFixed(1)} MiB`);
    }
    // into a fresh installation's new site
    const target = join(work, 'target');
    const inst = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: target }));
    const control = openControlDb({
      path: inst.paths.controlDb,
      secret: inst.secret,
      version: footfallVersion(),
    });
    const site = await createSite(control, { domain: 'moved.example', timezone: 'Europe/Berlin' });
    await control.close();
    const imported = await run(
      ['import', 'footfall', join(work, 'export-parquet'), '--site', site.id],
      target,
    );
    rows.push({
      what: 'import footfall (the Parquet folder, into a new site)',
      ...imported,
      mib: null,
      rows: '',
    });
    console.log(`import: ${imported.seconds.toFixed(1)} s`);

    const md = [
      '## Export and moving to another Footfall',
      '',
      `\`pnpm bench:export\` (bench/export.ts): \`footfall export\` and \`footfall import footfall\` as an operator runs them, the built command with Footfall stopped (each then opens the engine by itself), on ${demo.events.toLocaleString('en')} demo events already loaded; peak resident memory is the command's own, sampled every 20 ms. The import writes the events as a WAL stream, which the tailer loads into reports afterwards (tail rates: the report section). Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}; load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}.`,
      '',
      '| command | what | files | time | rate | peak RSS |',
      '| --- | --- | --: | --: | --: | --: |',
      ...rows.map(
        (r) =>
          `| ${r.what} | ${r.rows || '—'} | ${r.mib === null ? '—' : `${r.mib.toFixed(1)} MiB`} | ${r.seconds.toFixed(1)} s | ${Math.round(demo.events / r.seconds).toLocaleString('en')} events/s | ${r.peakMib.toFixed(0)} MiB |`,
      ),
      '',
    ].join('\n');
    writeFileSync(new URL('./results/export.md', import.meta.url), md);
    console.log(md);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
