import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { encodeWalRecord, type WalCrawl } from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { type RunningFootfall, runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

/**
 * "Your data is yours": `footfall export` writes every stored event, visit and robot counter of a
 * site, and `footfall import footfall` reads the folder into another installation, whose reports
 * are then the same, number for number. Round-tripped with the demo data in both formats, through
 * the running services and by the commands alone while Footfall is stopped.
 */
const API = 'export-cli-api-token-0123456789';
const END = Date.UTC(2026, 10, 20, 12);
const ZONE = 'Europe/Berlin';
const root = tempDir('ff-export-');
const envOf = (name: string): Record<string, string> => ({
  FOOTFALL_DATA_DIR: join(root, name),
  FOOTFALL_API_TOKEN: API,
  FOOTFALL_DRAIN_SECONDS: '3',
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
  FOOTFALL_GEO: 'off',
});
const source = envOf('source');
const running: (RunningFootfall & { url: string })[] = [];
afterAll(async () => {
  for (const r of running) await r.stop();
});

const footfall = async (args: string[], env: Record<string, string>) => {
  const run = runFootfall(args, env);
  const { code } = await run.exited;
  return { code, output: run.output() };
};
const start = async (env: Record<string, string>) => {
  const r = await startFootfall(env);
  running.push(r);
  return r;
};
const get = async (r: { url: string }, path: string) => {
  const res = await fetch(`${r.url}/api/v1${path}`, { headers: { authorization: `Bearer ${API}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
/** Waits until everything received is loaded and the site has visits. */
const loaded = async (r: { url: string }, site: string) => {
  await expect
    .poll(
      async () => {
        const status = await get(r, `/sites/${site}/status`);
        const report = await get(r, `/sites/${site}/report?from=2026-09-01&to=2026-11-20`);
        return status['loading_events'] === 0 && (report['kpis'] as { visits: number }).visits > 0;
      },
      { timeout: 90_000, interval: 500 },
    )
    .toBe(true);
};
/** A site of the same domain and zone in an empty data directory. */
const emptySite = async (dataDir: string) => {
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const site = await createSite(control, { domain: 'shop.example', timezone: ZONE });
  await control.close();
  return site.id;
};

/** What the reports answer for a site: every number a person sees, over several periods and filters. */
const READS = [
  '/report?from=2026-09-22&to=2026-11-20&daily=1',
  '/report?from=2026-11-14&to=2026-11-20&compare=previous',
  '/report?from=2026-10-01&to=2026-10-31&f=country:DE',
  '/report/breakdown?from=2026-09-22&to=2026-11-20&dim=pages',
  '/report/breakdown?from=2026-09-22&to=2026-11-20&dim=referrer',
  '/report/retention?from=2026-09-22&to=2026-11-20',
  '/report/crawlers?from=2026-09-22&to=2026-11-20',
  '/report/vitals?from=2026-09-22&to=2026-11-20',
];
const answers = async (r: { url: string }, site: string) => {
  const out: Record<string, unknown> = {};
  for (const read of READS) {
    const [path, query] = read.split('?');
    out[read] = await get(r, `/sites/${site}${path}?${query}`);
  }
  return out;
};

let site = '';
let expected: Record<string, unknown> = {};
beforeAll(async () => {
  // 60 days of demo traffic up to 2026-11-20, and robot requests on two of its days
  site = (
    await writeDemoData({
      dataDir: source.FOOTFALL_DATA_DIR!,
      events: 12_000,
      days: 60,
      endMs: END,
      domain: 'shop.example',
    })
  ).siteId;
  const instance = prepareInstance(loadConfig(source));
  const wal = await openWalWriter({ dir: join(instance.paths.wal, 'robots') });
  const crawl = (day: string, robot: string, path: string, status: number | null): WalCrawl => ({
    t: 'crawl',
    site,
    day,
    robot,
    robotKind: 'ai_training',
    path,
    status,
  });
  await wal.appendMany(
    [
      ...Array.from({ length: 3 }, () => crawl('2026-11-02', 'GPTBot', '/pricing', 200)),
      crawl('2026-11-02', 'ClaudeBot', '/blog', 404),
      crawl('2026-11-10', 'GPTBot', '/', null),
    ].map(encodeWalRecord),
  );
  await wal.close();
}, 60_000);

describe('footfall export and footfall import footfall', () => {
  it('exports every event, visit and robot counter through the running service, in both formats', async () => {
    const a = await start(source);
    await loaded(a, site);
    expected = await answers(a, site);
    // the reports compared below hold real numbers: visits, pages with engagement, robots
    const report = expected[READS[0]!] as { kpis: { visits: number }; breakdowns: { pages: unknown[] } };
    expect(report.kpis.visits).toBeGreaterThan(1000);
    expect(report.breakdowns.pages.length).toBeGreaterThan(3);
    expect(expected[READS[6]!]).toMatchObject({ totals: { hits: 5 } });
    const parquet = await footfall(['export', '--site', site, '--out', join(root, 'exported')], source);
    expect(parquet.code, parquet.output).toBe(0);
    const counts =
      /events\.parquet: (\d+) events[\s\S]*visits\.parquet: (\d+) visits[\s\S]*robots\.parquet: 3 robot counters/.exec(
        parquet.output,
      );
    expect(counts, parquet.output).not.toBeNull();
    const ndjson = await footfall(
      ['export', '--site', site, '--format', 'ndjson', '--out', join(root, 'exported-json')],
      source,
    );
    expect(ndjson.code, ndjson.output).toBe(0);
    expect(ndjson.output).toContain(`events.ndjson: ${counts![1]} events`);
    expect(ndjson.output).toContain(`visits.ndjson: ${counts![2]} visits`);

    const manifest = JSON.parse(readFileSync(join(root, 'exported-json', 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'footfall-export',
      version: 1,
      site: { id: site, domain: 'shop.example', time_zone: ZONE },
      from: null,
      to: null,
      file_format: 'ndjson',
    });
    expect(readdirSync(join(root, 'exported-json')).sort()).toEqual([
      'events.ndjson',
      'manifest.json',
      'robots.ndjson',
      'visits.ndjson',
    ]);
    const lines = readFileSync(join(root, 'exported-json', 'events.ndjson'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(Number(counts![1]));
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual(manifest.files.events.columns);
    expect(first.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // a visitor is an id (a cookie id or a daily hash), never an address
    expect(lines.join('\n')).not.toMatch(/\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/);
    const robots = readFileSync(join(root, 'exported-json', 'robots.ndjson'), 'utf8')
      .trim()
      .split('\n');
    expect(robots.map((l) => JSON.parse(l))).toContainEqual({
      day: '2026-11-02',
      robot: 'GPTBot',
      robot_kind: 'ai_training',
      path: '/pricing',
      status_class: 2,
      hits: 3,
    });

    const refused = await footfall(['export', '--site', site, '--out', join(root, 'exported')], source);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('exists already');
    expect((await footfall(['export', '--format', 'csv', '--site', site], source)).code).toBe(2);
    expect((await footfall(['export', '--site', 'nope', '--out', join(root, 'x')], source)).output).toContain(
      'no site nope',
    );
  }, 180_000);

  it('imports the Parquet export into a running installation: every report is the same', async () => {
    const target = envOf('target');
    const other = await emptySite(target.FOOTFALL_DATA_DIR!);
    const b = await start(target);
    const done = await footfall(['import', 'footfall', join(root, 'exported'), '--site', other], target);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toMatch(
      /imported exported \(exported [^)]+\): \d+ events, 2026-09-2\d to 2026-11-20/,
    );
    await loaded(b, other);
    expect(await answers(b, other)).toEqual(expected);
    // the same export again would count the robots twice: refused, nothing changes
    const again = await footfall(['import', 'footfall', join(root, 'exported'), '--site', other], target);
    expect(again.code).toBe(1);
    expect(again.output).toContain('imported into the site already');
  }, 180_000);

  it('exports and imports with Footfall stopped (newline-delimited JSON, a period), and refuses a broken file', async () => {
    for (const r of running.splice(0)) await r.stop();
    const period = await footfall(
      ['export', '--site', site, '--from', '2026-11-01', '--to', '2026-11-07', '--out', join(root, 'week')],
      source,
    );
    expect(period.code, period.output).toBe(0);
    expect(period.output).toContain('exported shop.example (2026-11-01 to 2026-11-07)');
    expect(period.output).toMatch(/robots\.parquet: 2 robot counters/);

    const target = envOf('stopped');
    const other = await emptySite(target.FOOTFALL_DATA_DIR!);
    const broken = join(root, 'broken');
    const { mkdirSync, cpSync } = await import('node:fs');
    mkdirSync(broken);
    cpSync(join(root, 'exported-json'), broken, { recursive: true });
    const events = join(broken, 'events.ndjson');
    const lines = readFileSync(events, 'utf8').split('\n');
    lines[4] = lines[4]!.replace(/"channel":"[^"]*"/, '"channel":"Carrier pigeon"');
    writeFileSync(events, lines.join('\n'));
    const refused = await footfall(['import', 'footfall', broken, '--site', other], target);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('events.ndjson, line 5: channel:');

    const done = await footfall(['import', 'footfall', join(root, 'exported-json'), '--site', other], target);
    expect(done.code, done.output).toBe(0);
    const c = await start(target);
    await loaded(c, other);
    expect(await answers(c, other)).toEqual(expected);
    expect(existsSync(join(target.FOOTFALL_DATA_DIR!, 'imports'))).toBe(true);
  }, 240_000);
});
