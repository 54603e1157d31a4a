// Every site at once, as an agency asks for it: `footfall start` on 30 sites of 100,000 demo events
// each (three time zones), then `GET /api/v1/report` over all of them: the first ask (nothing
// cached), the same again (each site's report cached), and a different 30-day range each run
// (uncached), beside one site's report of the same range for the ratio. Writes
// bench/results/all-sites.md.
// Run: pnpm bench:all-sites [--sites 30] [--events 100000] [--runs 5] [--keep] [--reuse dir]
// (--reuse: a data directory kept by an earlier run, loaded already)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeDemoData } from './demo-data.ts';
import { startFootfall, waitTailed } from './footfall-process.ts';
import { machineLine } from './machine.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-api-token-0123456789abcdef';
const TARGET_MS = 1000;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const DAY = 86_400_000;

const { values } = parseArgs({
  options: {
    sites: { type: 'string', default: '30' },
    events: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    out: { type: 'string', default: join(root, 'bench/results/all-sites.md') },
  },
});
const sites = Number(values.sites);
const events = Number(values.events);
const runs = Number(values.runs);

/** One GET with the API token, timed from the request to the whole answer. */
async function timed(url: string): Promise<{ ms: number; body: { kpis: { visitors: number } } }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text}`);
  return { ms, body: JSON.parse(text) };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (ms: number) => `${Math.round(ms).toLocaleString('en-US')} ms`;

async function main(): Promise<void> {
  const dir = values.reuse ?? mkdtempSync(join(tmpdir(), 'ff-bench-all-sites-'));
  const dataDir = join(dir, 'data');
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  let written = 0;
  let firstSite = '';
  const madeAt = performance.now();
  for (let i = 0; i < sites; i++) {
    // on a kept directory the events are there already: only the site ids are read back
    const demo = await writeDemoData({
      dataDir,
      events: values.reuse ? 0 : events,
      domain: `client-${String(i + 1).padStart(2, '0')}.example`,
      timeZone: ZONES[i % ZONES.length],
      stream: `site-${i + 1}`,
    });
    written += values.reuse ? events : demo.events;
    if (i === 0) firstSite = demo.siteId;
  }
  console.log(
    `${sites} sites, ${written} events written in ${((performance.now() - madeAt) / 1000).toFixed(0)} s`,
  );
  const ff = await startFootfall(dataDir, { FOOTFALL_API_TOKEN: TOKEN });
  try {
    const tail = await waitTailed(ff.url);
    console.log(`loaded in ${tail.toFixed(0)} s`);
    // as the dashboard asks it: the three breakdowns it shows
    const all = (q: string) => timed(`${ff.url}/api/v1/report?${q}&breakdowns=channel,pages,country`);
    const first = await all('period=30d');
    const again = await all('period=30d');
    const uncached: number[] = [];
    const single: number[] = [];
    for (let r = 0; r < runs; r++) {
      // a different range each run (ending a few days further back), so no site's report is cached
      const to = day(Date.now() - (2 + r) * DAY);
      const from = day(Date.now() - (31 + r) * DAY);
      uncached.push((await all(`from=${from}&to=${to}`)).ms);
      const one = await timed(
        `${ff.url}/api/v1/sites/${firstSite}/report?from=${day(Date.now() - (32 + r) * DAY)}&to=${to}`,
      );
      single.push(one.ms);
    }
    console.log({ first: first.ms, again: again.ms, uncached, single });
    const met = (ms: number) => (ms <= TARGET_MS ? 'met' : '**not met**');
    const lines = [
      '## All sites at once',
      '',
      `\`pnpm bench:all-sites\` (bench/all-sites.ts): \`footfall start\` with its defaults on ${sites} sites of ${events.toLocaleString('en-US')} demo events each (${written.toLocaleString('en-US')} in all, time zones ${ZONES.join(', ')}), then \`GET /api/v1/report\` over every site as the dashboard asks it (\`breakdowns=channel,pages,country\`; each site's own report, three at a time, merged), timed from the request to the whole answer. "Uncached" runs ask a different 30-day range each time, beside one site's report of a range no run asked before. Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. Load average before: ${load}.`,
      '',
      '| Measure | Result | Target | |',
      '| --- | --- | --- | --- |',
      `| the last 30 days of all ${sites} sites, first ask (nothing cached) | ${fmt(first.ms)} | ≤ ${fmt(TARGET_MS)} | ${met(first.ms)} |`,
      `| the same again (every site's report cached) | ${fmt(again.ms)} | | |`,
      `| a new 30-day range of all ${sites} sites, ${runs} runs | p50 ${fmt(p50(uncached))}, max ${fmt(Math.max(...uncached))} | ≤ ${fmt(TARGET_MS)} | ${met(Math.max(...uncached))} |`,
      `| one site's report of a new range, ${runs} runs | p50 ${fmt(p50(single))}, max ${fmt(Math.max(...single))} | | |`,
      `| all sites over one site (p50) | ${(p50(uncached) / p50(single)).toFixed(1)} × | | |`,
      '',
      `Visitors counted: ${first.body.kpis.visitors.toLocaleString('en-US')} in the last 30 days of all sites.`,
      '',
    ];
    writeFileSync(values.out, lines.join('\n'));
    console.log(lines.join('\n'));
  } finally {
    await ff.stop();
    if (!values.keep && !values.reuse) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

await main();
