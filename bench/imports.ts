import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { writePlausibleExport } from '../tests/support/plausible-export.ts';
import { machineLine, runFootfall } from './machine.ts';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, pages: { type: 'string', default: '300' } },
});
const DAY_MS = 86_400_000;
const START = Date.UTC(2023, 0, 1);
const dayOf = (i: number) => new Date(START + i * DAY_MS).toISOString().slice(0, 10);

async function instance(root: string): Promise<{ dataDir: string; site: string }> {
  const dataDir = join(root, 'data');
  const inst = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  const control = openControlDb({
    path: inst.paths.controlDb,
    secret: inst.secret,
    version: footfallVersion(),
  });
  const site = await createSite(control, { domain: 'bench.example', timezone: 'UTC' });
  await control.close();
  return { dataDir, site: site.id };
}

/** A Plausible export of `pages` pages a day over `days` days. */
function plausible(dir: string, days: number, pages: number): number {
  const csv = (header: string, rows: (i: number) => string[]) => {
    const out: string[] = [header];
    for (let i = 0; i < days; i++) out.push(...rows(i));
    return `${out.join('\n')}\n`;
  };
  const each = (f: (p: number, date: string) => string) => (i: number) =>
    Array.from({ length: pages }, (_, p) => f(p, dayOf(i)));
  const files: Record<string, string> = {
    'imported_visitors.csv': csv('date,visitors,pageviews,bounces,visits,visit_duration', (i) => [
      `${dayOf(i)},${pages * 3},${pages * 8},${pages},${pages * 4},${pages * 400}`,
    ]),
    'imported_pages.csv': csv(
      'date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors',
      each((p, d) => `${d},bench.example,/page/${p},4,3,8,,0`),
    ),
    'imported_entry_pages.csv': csv(
      'date,entry_page,visitors,entrances,visit_duration,bounces,pageviews',
      each((p, d) => `${d},/page/${p},3,4,400,1,8`),
    ),
    'imported_exit_pages.csv': csv(
      'date,exit_page,visitors,visit_duration,exits,bounces,pageviews',
      each((p, d) => `${d},/page/${p},3,400,4,1,8`),
    ),
    'imported_sources.csv': csv(
      'date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces',
      (i) =>
        Array.from(
          { length: 20 },
          (_, s) =>
            `${dayOf(i)},Source ${s},ref${s}.example,,,,,,${pages},${pages},${pages},${pages * 20},${pages / 4}`,
        ),
    ),
    'imported_locations.csv': csv(
      'date,country,region,city,visitors,visits,visit_duration,bounces,pageviews',
      (i) => [`${dayOf(i)},DE,,0,${pages * 3},${pages * 4},${pages * 400},${pages},${pages * 8}`],
    ),
  };
  writePlausibleExport(dir, files);
  return Object.values(files).reduce((n, text) => n + text.split('\n').length - 2, 0);
}

/** Umami's two tables with `events` events: visitors of 4 pageviews a visit, a visit every 7 minutes. */
async function umami(dir: string, events: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const website = '3f1e2d4c-0000-4000-8000-00000000aaaa';
  const out = createWriteStream(join(dir, 'website_event.csv'));
  const write = (line: string) =>
    out.write(line) ? Promise.resolve() : new Promise((r) => out.once('drain', () => r(undefined)));
  await write(
    'event_id,website_id,session_id,created_at,url_path,referrer_domain,event_type,event_name,hostname\n',
  );
  const sessions = Math.ceil(events / 4);
  for (let e = 0; e < events; e++) {
    const session = Math.floor(e / 4);
    const at = new Date(START + session * 420_000 + (e % 4) * 60_000)
      .toISOString()
      .replace('T', ' ')
      .replace('Z', '+00');
    await write(
      `00000000-0000-4000-8000-${String(e).padStart(12, '0')},${website},10000000-0000-4000-8000-${String(session).padStart(12, '0')},${at},/page/${e % 300},${e % 4 === 0 ? 'www.google.com' : ''},1,,bench.example\n`,
    );
  }
  await new Promise((r) => out.end(r));
  const s = createWriteStream(join(dir, 'session.csv'));
  const writeS = (line: string) =>
    s.write(line) ? Promise.resolve() : new Promise((r) => s.once('drain', () => r(undefined)));
  await writeS('session_id,website_id,browser,os,device,screen,language,country,city\n');
  for (let i = 0; i < sessions; i++) {
    await writeS(
      `10000000-0000-4000-8000-${String(i).padStart(12, '0')},${website},chrome,Mac OS,laptop,1440x900,en-US,DE,Berlin\n`,
    );
  }
  await new Promise((r) => s.end(r));
}

interface Row {
  kind: string;
  size: string;
  inputMib: number;
  units: number;
  unit: string;
  seconds: number;
  peakMib: number;
}

const mibOf = (path: string, names: string[]) =>
  names.reduce((n, f) => n + statSync(join(path, f)).size, 0) / 2 ** 20;
const rows: Row[] = [];
const pages = Number(values.pages);
const events = Number(values.events);
for (const [label, days] of [
  ['30 days', 30],
  ['3 years', 1095],
] as const) {
  const root = mkdtempSync(join(tmpdir(), 'ff-bench-import-'));
  try {
    const { dataDir, site } = await instance(root);
    const dir = join(root, 'plausible');
    const units = plausible(dir, days, pages);
    const r = await runFootfall(['import', 'plausible', dir, '--site', site], dataDir);
    rows.push({
      kind: 'Plausible CSV',
      size: `${label}, ${pages} pages a day`,
      inputMib: mibOf(dir, [
        'imported_pages.csv',
        'imported_entry_pages.csv',
        'imported_exit_pages.csv',
        'imported_sources.csv',
        'imported_visitors.csv',
        'imported_locations.csv',
      ]),
      units,
      unit: 'rows',
      ...r,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
for (const count of [Math.round(events / 20), events]) {
  const root = mkdtempSync(join(tmpdir(), 'ff-bench-import-'));
  try {
    const { dataDir, site } = await instance(root);
    const dir = join(root, 'umami');
    await umami(dir, count);
    const r = await runFootfall(['import', 'umami', dir, '--site', site], dataDir);
    rows.push({
      kind: 'Umami tables',
      size: `${count.toLocaleString('en')} events`,
      inputMib: mibOf(dir, ['website_event.csv', 'session.csv']),
      units: count,
      unit: 'events',
      ...r,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const peakRatio = (kind: string) => {
  const [small, large] = rows.filter((r) => r.kind === kind);
  return small && large ? large.peakMib / small.peakMib : Number.NaN;
};
const md = [
  '## Imports',
  '',
  `\`footfall import\` as an operator runs it, the built command with Footfall stopped (it then imports by itself: the engine opened only to read the site's first day), on ${machineLine()}, run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Peak resident memory is the command's own, sampled every 20 ms. Umami's rows are checked, joined with their sessions and sorted by time in a scratch DuckDB (FOOTFALL_ENGINE_MEMORY, 256 MB by default, spilling to disk), then written as a WAL stream; loading them into the reports is the tailer's work afterwards (tail rates: the report section).`,
  '',
  '| export | size | input | rate | time | peak RSS |',
  '| --- | --- | --: | --: | --: | --: |',
  ...rows.map(
    (r) =>
      `| ${r.kind} | ${r.size} | ${r.inputMib.toFixed(1)} MiB | ${Math.round(r.units / r.seconds).toLocaleString('en')} ${r.unit}/s | ${r.seconds.toFixed(1)} s | ${r.peakMib.toFixed(0)} MiB |`,
  ),
  '',
  `Peak memory of the large run ÷ the small run: Plausible ${peakRatio('Plausible CSV').toFixed(2)}, Umami ${peakRatio('Umami tables').toFixed(2)} (streamed: near 1 means memory does not grow with the export).`,
  '',
].join('\n');
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
await import('node:fs').then((fs) => fs.writeFileSync(new URL('./results/imports.md', import.meta.url), md));
console.log(md);
