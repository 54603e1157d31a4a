import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeDemoData } from './demo-data.ts';
import { startFootfall, waitTailed } from './footfall-process.ts';
import { benchSite, machineLine, runFootfall } from './machine.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, reuse: { type: 'string' } },
});

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
      const r = await runFootfall(
        ['export', '--site', demo.siteId, '--format', format, '--out', out],
        dataDir,
      );
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
    const site = await benchSite({ FOOTFALL_DATA_DIR: target });
    const imported = await runFootfall(
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
