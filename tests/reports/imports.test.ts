import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../apps/query/src/engine/report-types.ts';
import { importPlausible } from '../../apps/query/src/imports/run.ts';
import { type AccountsApp, type Agent, accountsApp, dumpControl } from '../accounts/harness.ts';
import {
  type ExportDay,
  plausibleExportFiles,
  plausibleExportZip,
  writePlausibleExport,
} from '../support/plausible-export.ts';
import { UMAMI_WEBSITE, umamiExportFiles } from '../support/umami-export.ts';

/**
 * A Plausible export imported through the API, and reports over its days: totals exact as
 * docs/imports.md says (daily uniques summed), breakdowns mapped onto Footfall's dimensions,
 * `imported=0` and filters leave it out; a broken export is refused naming file and line, and
 * leaves nothing behind.
 */
const DAYS: ExportDay[] = [
  { date: '2024-03-01', visitors: 30, visits: 36 },
  { date: '2024-03-02', visitors: 12, visits: 15 },
  { date: '2024-03-04', visitors: 60, visits: 90 },
];
const FILES = plausibleExportFiles(DAYS);

let h: AccountsApp;
let owner: Agent;
let site = '';
const upload = (body: Uint8Array, query = 'source=plausible&name=export.zip') =>
  h.call('POST', `/api/v1/sites/${site}/imports?${query}`, {
    raw: { text: body, type: 'application/zip' },
    agent: owner,
  });
const report = async (query: string) => {
  const res = await h.call('GET', `/api/v1/sites/${site}/report?${query}`, { agent: owner });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<Report & { imported: unknown }>;
};

beforeAll(async () => {
  h = await accountsApp();
  owner = await h.setup();
  const made = await h.call('POST', '/api/v1/sites', {
    body: { domain: 'example.com', timezone: 'Europe/Berlin' },
    agent: owner,
  });
  site = ((await made.json()) as { site: { id: string } }).site.id;
});
afterAll(() => h.cleanup());

describe('a Plausible export', () => {
  it('refuses a broken export naming the file and line, and keeps nothing of it', async () => {
    const before = dumpControl(h.control);
    const badDate = { ...FILES };
    const pages = Object.keys(badDate).find((n) => n.startsWith('imported_pages'))!;
    badDate[pages] = `${badDate[pages]}2024-02-30,example.com,/x,1,1,1,,0\n`;
    const answers = [
      await upload(plausibleExportZip(badDate)),
      await upload(
        plausibleExportZip({
          ...FILES,
          'imported_devices.csv': 'date,kind,visitors\n2024-03-01,Desktop,1\n',
        }),
      ),
      await upload(plausibleExportZip(FILES).slice(0, 400)),
      await upload(plausibleExportZip({ 'notes.txt': 'hello' })),
    ];
    const bodies = await Promise.all(
      answers.map(async (a) => ({ status: a.status, ...((await a.json()) as object) })),
    );
    expect(bodies[0]).toMatchObject({
      status: 422,
      code: 'invalid_import',
      field: pages,
      message: `${pages}, line 8: date "2024-02-30" is not a date YYYY-MM-DD`,
    });
    expect(bodies[1]).toMatchObject({
      status: 422,
      message:
        'imported_devices.csv, line 1: the header has no device, visits, visit_duration, bounces column',
    });
    expect(bodies[2]).toMatchObject({ status: 422, field: 'export.zip' });
    expect(String((bodies[2] as unknown as { message: string }).message)).toMatch(
      /not a zip file, or a truncated one/,
    );
    expect(bodies[3]).toMatchObject({
      status: 422,
      message: expect.stringMatching(/no file of a Plausible export/),
    });
    expect((await upload(new Uint8Array([1]), 'source=sheets')).status).toBe(400);
    expect(dumpControl(h.control)).toBe(before);
  });

  it('imports every table and answers its totals in reports', async () => {
    const res = await upload(plausibleExportZip(FILES));
    expect(res.status).toBe(201);
    const summary = (await res.json()) as Record<string, unknown>;
    expect(summary).toMatchObject({
      import: {
        source: 'plausible',
        name: 'export.zip',
        state: 'done',
        from: '2024-03-01',
        to: '2024-03-04',
      },
      days: 3,
      ignored_files: [],
      skipped: {},
    });
    expect(summary['rows_read']).toBe(3 * 12);

    const r = await report('from=2024-03-01&to=2024-03-31');
    const visits = 36 + 15 + 90;
    expect(r['imported']).toEqual({ source: 'plausible', from: '2024-03-01', to: '2024-03-04' });
    expect(r['kpis']).toEqual({
      visitors: 30 + 12 + 60, // daily uniques summed
      visits,
      pageviews: visits * 3,
      views_per_visit: 3,
      bounce_rate: (12 + 5 + 30) / visits,
      visit_duration: 60,
    });
    const day = (d: string) =>
      (r['chart'] as { bucket: string; visits: number }[]).find((p) => p.bucket === d);
    expect(day('2024-03-01')?.visits).toBe(36);
    expect(day('2024-03-03')?.visits).toBe(0);
    const b = r.breakdowns;
    expect(b.channel?.map((x) => [x.value, x.visits])).toEqual([
      ['Organic Search', 24 + 10 + 60],
      ['Direct', 12 + 5 + 30],
    ]);
    expect(b.referrer?.map((x) => x.value)).toEqual(['google.com', null]);
    expect(b.pages.map((x) => [x.value, x.pageviews])).toEqual([
      ['/', visits * 2],
      ['/pricing', visits],
    ]);
    expect(b.country?.[0]).toMatchObject({ value: 'DE', visits, bounce_rate: (12 + 5 + 30) / visits });
    expect(b.device?.[0]).toMatchObject({ value: 'desktop', visits });
    expect(b.os?.[0]).toMatchObject({ value: 'macOS' });
    expect(b.events).toEqual([{ value: 'Signup', visitors: 3, visits: 3, events: 6 }]);
    expect(b.language).toEqual([]);

    // months add up their days; a week's bucket is its Monday
    const monthly = await report('from=2024-03-01&to=2024-03-31&bucket=month');
    expect(monthly.chart[0]).toMatchObject({ bucket: '2024-03-01', visits });
    const weekly = await report('from=2024-02-26&to=2024-03-10&bucket=week');
    expect(weekly.chart.map((p) => p.visits)).toEqual([36 + 15, 90]);

    // the breakdown on its own, searched
    const one = await h.call(
      'GET',
      `/api/v1/sites/${site}/report/breakdown?dim=pages&from=2024-03-01&to=2024-03-31&search=PRIC`,
      {
        agent: owner,
      },
    );
    expect(await one.json()).toMatchObject({
      imported: { source: 'plausible' },
      rows: [{ value: '/pricing', pageviews: visits }],
    });
  });

  it('leaves imported days out with imported=0, a filter, or outside the period', async () => {
    const none = { visitors: 0, visits: 0, pageviews: 0 };
    expect(await report('from=2024-03-01&to=2024-03-31&imported=0')).toMatchObject({
      imported: null,
      kpis: none,
    });
    expect(await report('from=2024-03-01&to=2024-03-31&f=country:DE')).toMatchObject({
      imported: null,
      kpis: none,
    });
    expect(await report('from=2024-04-01&to=2024-04-30')).toMatchObject({ imported: null, kpis: none });
    expect((await h.call('GET', `/api/v1/sites/${site}/report?imported=2`, { agent: owner })).status).toBe(
      400,
    );
    // the compared period reads its imported days too
    const compared = await report(
      'from=2024-04-01&to=2024-04-30&compare=custom&cfrom=2024-03-01&cto=2024-03-30',
    );
    expect(compared.compare_kpis?.visits).toBe(36 + 15 + 90);
  });

  it('skips days an earlier import holds, lists imports, and deletes one', async () => {
    const again = await upload(plausibleExportZip(FILES));
    expect(await again.json()).toMatchObject({ days: 0, skipped: { 'that day is already imported': 36 } });
    const list = (await (await h.call('GET', `/api/v1/sites/${site}/imports`, { agent: owner })).json()) as {
      imports: { id: string; from: string | null }[];
    };
    expect(list.imports.map((i) => i.from)).toEqual([null, '2024-03-01']);
    for (const i of list.imports) {
      expect((await h.call('DELETE', `/api/v1/sites/${site}/imports/${i.id}`, { agent: owner })).status).toBe(
        204,
      );
    }
    expect(await report('from=2024-03-01&to=2024-03-31')).toMatchObject({
      imported: null,
      kpis: { visits: 0 },
    });
    expect(h.control.raw.prepare('SELECT COUNT(*) FROM imported_rows').pluck().get()).toBe(0);
  });

  it('keeps only the days before the first day of native data, unless told how far', async () => {
    const dir = writePlausibleExport(join(h.root, 'export'), FILES);
    const first = await importPlausible({
      control: h.control,
      siteId: site,
      path: dir,
      name: 'folder',
      personId: null,
      firstNativeDay: '2024-03-02',
    });
    expect(first.import).toMatchObject({ firstDay: '2024-03-01', lastDay: '2024-03-01' });
    expect(first.skipped).toEqual({ 'the site has its own data from that day': 24 });
    const through = await importPlausible({
      control: h.control,
      siteId: site,
      path: dir,
      name: 'folder',
      personId: null,
      firstNativeDay: '2024-03-02',
      through: '2024-03-02',
    });
    expect(through.import).toMatchObject({ firstDay: '2024-03-02', lastDay: '2024-03-02' });
  });

  it("hands an uploaded Umami export's events to the WAL as a stream of its own, whole", async () => {
    const zip = plausibleExportZip(umamiExportFiles());
    const several = await upload(zip, 'source=umami&name=umami.zip');
    expect(several.status).toBe(422);
    const res = await upload(zip, `source=umami&name=umami.zip&website=${UMAMI_WEBSITE}`);
    expect(res.status).toBe(201);
    const summary = (await res.json()) as {
      events: number;
      import: { id: string; from: string; to: string };
    };
    expect(summary).toMatchObject({
      events: 6,
      import: { source: 'umami', from: '2026-09-10', to: '2026-09-11' },
    });
    const streams = readdirSync(join(h.root, 'data', 'wal')).filter((n) => n.startsWith('import-'));
    expect(streams).toHaveLength(1);
    // its events are the site's own now: they go as other events go
    const gone = await h.call('DELETE', `/api/v1/sites/${site}/imports/${summary.import.id}`, {
      agent: owner,
    });
    expect(gone.status).toBe(409);
    // nothing of it is read as imported aggregates
    expect(await report('from=2026-09-01&to=2026-09-30')).toMatchObject({ imported: null });
  });
});
