import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoData } from '../../bench/demo-data.ts';
import { type RunningFootfall, runFootfall, startFootfall, tempDir } from '../support/footfall.ts';
import { type FakeGoogle, ga4Days, startFakeGoogle } from '../support/google.ts';
import {
  type ExportDay,
  plausibleExportFiles,
  plausibleExportZip,
  writePlausibleExport,
} from '../support/plausible-export.ts';
import { UMAMI_WEBSITE, umamiExportFiles, writeUmamiExport } from '../support/umami-export.ts';

/**
 * `footfall import plausible` as an operator runs it: through the running service (progress and a
 * summary; days from the site's first native day on are skipped), by itself while Footfall is
 * stopped, and a broken export refused with the file and line, nothing kept.
 */
const API = 'import-cli-api-token-0123456789';
const END = Date.UTC(2026, 10, 20, 12);
const root = tempDir('ff-import-');
const dataDir = join(root, 'data');
const env: Record<string, string> = {
  FOOTFALL_DATA_DIR: dataDir,
  FOOTFALL_API_TOKEN: API,
  FOOTFALL_DRAIN_SECONDS: '3',
  FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
  FOOTFALL_GEO: 'off',
};
const days = (from: string, n: number): ExportDay[] =>
  Array.from({ length: n }, (_, i) => ({
    date: new Date(Date.parse(`${from}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
    visitors: 10 + i,
    visits: 12 + i,
  }));

let site = '';
let running: (RunningFootfall & { url: string }) | undefined;
afterAll(() => running?.stop());

const importing = async (args: string[]) => {
  const run = runFootfall(['import', ...args], env);
  const { code } = await run.exited;
  return { code, output: run.output() };
};
const report = async (from: string, to: string) => {
  const res = await fetch(`${running!.url}/api/v1/sites/${site}/report?from=${from}&to=${to}`, {
    headers: { authorization: `Bearer ${API}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { kpis: { visits: number }; imported: { from: string; to: string } | null };
};

let google: FakeGoogle;
afterAll(() => google?.close());
beforeAll(async () => {
  google = await startFakeGoogle('sc-domain:shop.example');
  google.ga4.property = '42';
  google.ga4.days = ga4Days('2026-07-01', 3, { users: 10, sessions: 12, views: 30, engaged: 8, seconds: 40 });
  env.FOOTFALL_UNSAFE_GOOGLE_API = google.url;
  // native data from 2026-10-22 to 2026-11-20
  site = (await writeDemoData({ dataDir, events: 3000, days: 30, endMs: END, domain: 'shop.example' }))
    .siteId;
}, 60_000);

describe('footfall import plausible', () => {
  it('imports through the running service, keeping only the days before the native ones', async () => {
    running = await startFootfall(env);
    await expect
      .poll(async () => (await report('2026-10-22', '2026-11-20')).kpis.visits, { timeout: 60_000 })
      .toBeGreaterThan(0);
    const folder = writePlausibleExport(join(root, 'export'), plausibleExportFiles(days('2026-10-01', 30)));
    const { code, output } = await importing(['plausible', folder, '--site', site]);
    expect(code, output).toBe(0);
    expect(output).toContain('imported export: 21 days, 2026-10-01 to 2026-10-21');
    expect(output).toMatch(/skipped \d+ rows: the site has its own data from that day/);
    // 12..32 visits a day over the 21 days kept
    const r = await report('2026-10-01', '2026-10-21');
    expect(r.imported).toMatchObject({ from: '2026-10-01', to: '2026-10-21' });
    expect(r.kpis.visits).toBe(((12 + 32) * 21) / 2);
  }, 120_000);

  it('imports by itself while Footfall is stopped, and refuses a broken export keeping nothing', async () => {
    await running?.stop();
    running = undefined;
    const zip = join(root, 'september.zip');
    writeFileSync(zip, plausibleExportZip(plausibleExportFiles(days('2026-09-01', 3))));
    const done = await importing(['plausible', zip, '--site', site]);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain('imported september.zip: 3 days, 2026-09-01 to 2026-09-03');

    const files = plausibleExportFiles(days('2026-08-01', 3));
    const broken = join(root, 'broken.zip');
    const name = Object.keys(files).find((n) => n.startsWith('imported_visitors'))!;
    writeFileSync(
      broken,
      plausibleExportZip({ ...files, [name]: `${files[name]}2026-08-04,many,1,1,1,1\n` }),
    );
    const refused = await importing(['plausible', broken, '--site', site]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`${name}, line 5: visitors "many" is not a count`);
    expect((await importing(['plausible', broken])).code).toBe(2);
    expect((await importing(['ga4', broken, '--site', site])).code).toBe(2);

    running = await startFootfall(env);
    const r = await report('2026-08-01', '2026-09-30');
    expect(r.imported).toEqual({ source: 'plausible', from: '2026-09-01', to: '2026-09-03' });
    expect(r.kpis.visits).toBe(12 + 13 + 14);
  }, 120_000);

  it("imports Umami's tables as events, and reports count them as visits by Footfall's rules", async () => {
    const files = umamiExportFiles();
    const broken = writeUmamiExport(join(root, 'umami-broken'), {
      ...files,
      'website_event.csv': files['website_event.csv']!.replace('2026-09-11 08:01:00+00', 'yesterday'),
    });
    const refused = await importing(['umami', broken, '--site', site]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('website_event.csv, line 6: created_at "yesterday" is not a time');
    const folder = writeUmamiExport(join(root, 'umami'), files);
    const other = await importing(['umami', folder, '--site', site, '--website', 'nope']);
    expect(other.output).toContain(`holds no events of website nope (it holds ${UMAMI_WEBSITE}, `);

    const done = await importing(['umami', folder, '--site', site, '--website', UMAMI_WEBSITE]);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain('imported umami: 6 events, 2026-09-10 to 2026-09-11');
    type Answer = {
      kpis: { visitors: number; visits: number; pageviews: number; bounce_rate: number };
      breakdowns: Record<string, { value: string | null; visits: number }[]>;
    };
    const get = async (query: string) =>
      (await (
        await fetch(`${running!.url}/api/v1/sites/${site}/report?${query}`, {
          headers: { authorization: `Bearer ${API}` },
        })
      ).json()) as Answer;
    // the events are loaded by the tailer like any others: A's visit, B's two (2 h 29 min apart)
    await expect
      .poll(async () => (await get('from=2026-09-10&to=2026-09-11&imported=0')).kpis.visits, {
        timeout: 30_000,
      })
      .toBe(3);
    const r = await get('from=2026-09-10&to=2026-09-11&imported=0&limit=5');
    expect(r.kpis).toMatchObject({ visitors: 2, visits: 3, pageviews: 5 });
    expect(r.breakdowns['channel']?.map((x) => [x.value, x.visits])).toEqual([
      ['Direct', 1],
      ['Email', 1],
      ['Organic Search', 1],
    ]);
    expect(r.breakdowns['country']?.map((x) => x.value).sort()).toEqual(['DE', 'FR']);
    expect(r.breakdowns['browser']?.map((x) => x.value).sort()).toEqual(['Chrome', 'Safari']);
    expect(r.breakdowns['events']?.map((x) => x.value)).toEqual(['Signup']);
    // the same export again stores nothing twice
    expect((await importing(['umami', folder, '--site', site, '--website', UMAMI_WEBSITE])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await get('from=2026-09-10&to=2026-09-11&imported=0')).kpis).toMatchObject({
      visits: 3,
      pageviews: 5,
    });
  }, 120_000);

  it('reads a GA4 property through the running service with a key file', async () => {
    const keyFile = join(root, 'key.json');
    writeFileSync(keyFile, google.keyFile);
    const args = ['ga4', '--site', site, '--property', '42', '--key-file', keyFile, '--from', '2026-07-01'];
    expect((await importing(args)).code).toBe(2);
    const done = await importing([...args, '--to', '2026-07-03']);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain('imported GA4 property 42: 3 days, 2026-07-01 to 2026-07-03');
    expect(await report('2026-07-01', '2026-07-31')).toMatchObject({
      imported: { source: 'ga4' },
      kpis: { visits: 36 },
    });
    const refused = await importing([
      'ga4',
      '--site',
      site,
      '--property',
      '7',
      '--key-file',
      keyFile,
      '--from',
      '2026-07-01',
      '--to',
      '2026-07-03',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('Google Analytics refused property 7');
  }, 60_000);

  it('reads a GA4 property by itself while Footfall is stopped', async () => {
    await running?.stop();
    running = undefined;
    google.ga4.days = ga4Days('2026-06-01', 3, { users: 5, sessions: 7, views: 9, engaged: 3, seconds: 20 });
    const keyFile = join(root, 'key.json');
    const args = ['ga4', '--site', site, '--property', '42', '--key-file', keyFile];
    const done = await importing([...args, '--from', '2026-06-01', '--to', '2026-06-03']);
    expect(done.code, done.output).toBe(0);
    expect(done.output).toContain('imported GA4 property 42: 3 days, 2026-06-01 to 2026-06-03');
    running = await startFootfall(env);
    expect(await report('2026-06-01', '2026-06-30')).toMatchObject({
      imported: { source: 'ga4', from: '2026-06-01', to: '2026-06-03' },
      kpis: { visits: 21 },
    });
  }, 60_000);
});
