import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../support/csv.ts';
import { addDays, localDate } from '../support/zones.ts';
import type { ModelQuery } from './expected.ts';
import { cell, expectedCsv } from './expected-csv.ts';
import { BULK_PAGES, SCRIPTED, type ScriptedRun, type ScriptedSite, scriptedRun } from './run.ts';

let run: ScriptedRun;
beforeAll(async () => {
  run = await scriptedRun({ bulk: true });
}, 90_000);
afterAll(async () => run?.stack.stop());

interface Numbers {
  visitors: number;
  visits: number;
  pageviews?: number;
  events?: number;
  bounce_rate?: number;
  scroll_depth?: number | null;
  time_on_page?: number | null;
}
interface JsonReport {
  period: { from: string; to: string };
  compare: { from: string; to: string } | null;
  bucket: string;
  kpis: Numbers;
  compare_kpis: Numbers | null;
  chart: (Numbers & { bucket: string })[];
  breakdowns: Record<string, (Numbers & { value: string | null })[]>;
  daily: { day: string; breakdowns: JsonReport['breakdowns'] }[] | null;
  goals?: (Numbers & { name: string; conversions: number })[] | null;
}

/** The JSON report laid out as the export's rows, to compare numbers one for one. */
function rowsOfReport(r: JsonReport, withGoals = true): string[][] {
  const line = (dim: string, value: string | null, n: Numbers) => [
    dim,
    cell(value),
    String(n.visitors),
    String(n.visits),
    String(n.pageviews ?? n.events),
    n.bounce_rate === undefined ? '' : String(Math.round(n.bounce_rate * 1000) / 10),
    n.scroll_depth === undefined || n.scroll_depth === null ? '' : String(n.scroll_depth),
    n.time_on_page === undefined || n.time_on_page === null ? '' : String(n.time_on_page),
  ];
  const rows = [line('total', `${r.period.from}..${r.period.to}`, r.kpis)];
  if (r.compare && r.compare_kpis)
    rows.push(line('compare_total', `${r.compare.from}..${r.compare.to}`, r.compare_kpis));
  for (const p of r.chart) rows.push(line(`chart_${r.bucket}`, p.bucket, p));
  const { pages = [], events = [], ...dims } = r.breakdowns;
  for (const [dim, list] of Object.entries(dims)) for (const b of list) rows.push(line(dim, b.value, b));
  for (const p of pages) rows.push(line('page', p.value, p));
  for (const e of events) rows.push(line('event', e.value, e));
  if (withGoals)
    for (const g of r.goals ?? []) rows.push(line('goal', g.name, { ...g, pageviews: g.conversions }));
  return rows;
}

async function csv(name: ScriptedSite | 'bulk', query: string) {
  const site = run.stack.sites[name];
  const res = await run.stack.get(`/sites/${site.id}/export.csv?${query}`);
  expect(res.status).toBe(200);
  return { res, text: await res.text() };
}

describe.each(SCRIPTED)('export.csv of the %s site', (name) => {
  it('holds the true numbers, the same as the report: total, compared total, chart, then breakdowns', async () => {
    const site = run.stack.sites[name];
    const d = run.day[name];
    const q: ModelQuery = {
      timeZone: site.timezone,
      from: d,
      to: d,
      bucket: 'hour',
      compare: true,
      limit: 1000,
    };
    const { res, text } = await csv(name, `from=${d}&to=${d}&compare=previous`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="footfall-${site.domain}-${d}-${d}.csv"`,
    );
    const rows = parseCsv(text);
    expect(rows).toEqual(expectedCsv(run.visits[name], q));
    const report = await run.stack.json<JsonReport>(
      `/sites/${site.id}/report?from=${d}&to=${d}&compare=previous&limit=1000`,
    );
    expect(rows.slice(1)).toEqual(rowsOfReport(report));
    // total, compared total, then 24 hours (more or fewer on a DST day)
    expect(rows.slice(1, 4).map((r) => r[0])).toEqual(['total', 'compare_total', 'chart_hour']);
  });

  it('writes every day of the period with daily=1, the day in a last column', async () => {
    const site = run.stack.sites[name];
    const d = run.day[name];
    const query = `from=${addDays(d, -1)}&to=${d}&daily=1&limit=100`;
    const rows = parseCsv((await csv(name, query)).text);
    expect(rows[0]).toEqual([
      'dimension',
      'value',
      'visitors',
      'sessions',
      'pageviews',
      'bounce_rate',
      'scroll_depth',
      'time_on_page',
      'day',
    ]);
    const report = await run.stack.json<JsonReport>(`/sites/${site.id}/report?${query}`);
    const days = report.daily ?? [];
    expect(days.map((x) => x.day)).toEqual([addDays(d, -1), d]);
    const expected = [
      ...rowsOfReport({ ...report, breakdowns: report.breakdowns }, false).map((r) => [...r, '']),
      ...days.flatMap((x) =>
        rowsOfReport(
          { ...report, chart: [], kpis: report.kpis, compare: null, breakdowns: x.breakdowns },
          false,
        )
          .slice(1)
          .map((r) => [...r, x.day]),
      ),
      // the goals last, for the whole period
      ...rowsOfReport({ ...report, chart: [], compare: null, breakdowns: {} })
        .slice(1)
        .map((r) => [...r, '']),
    ];
    expect(rows.slice(1)).toEqual(expected);
    expect(rows.filter((r) => r[8] === d).length).toBeGreaterThan(0);
  });

  it('puts an apostrophe before a value a spreadsheet would run as a formula, and quotes commas', async () => {
    const d = run.day[name];
    const { text } = await csv(name, `from=${addDays(d, -2)}&to=${d}&bucket=day`);
    expect(text).toContain("\r\ncampaign,'=SUM(A1),");
    expect(text).toContain("\r\ncampaign,'@launch,");
    expect(text).toContain('\r\ncampaign,"spring,sale",');
    expect(text).not.toMatch(/(^|[\r\n,])[=+\-@]/);
    const site = run.stack.sites[name];
    const q: ModelQuery = {
      timeZone: site.timezone,
      from: addDays(d, -2),
      to: d,
      bucket: 'day',
      limit: 1000,
    };
    expect(parseCsv(text)).toEqual(expectedCsv(run.visits[name], q));
  });
});

describe('export.csv of a site with more than 1000 pages', () => {
  it('keeps at most 1000 rows per breakdown: the first 1000 in order', async () => {
    const today = localDate(Date.now(), 'UTC');
    const { text } = await csv('bulk', `from=${addDays(today, -1)}&to=${today}&bucket=day&deep=1`);
    const rows = parseCsv(text);
    const total = rows.find((r) => r[0] === 'total');
    expect(total?.slice(2, 5)).toEqual([String(BULK_PAGES), String(BULK_PAGES), String(BULK_PAGES)]);
    // every visit has one visitor, so the order is by value: /p/0000 .. /p/0999
    const first1000 = [...run.bulkPaths].sort().slice(0, 1000);
    for (const dim of ['page', 'entry_page', 'exit_page']) {
      expect(rows.filter((r) => r[0] === dim).map((r) => r[1])).toEqual(first1000);
    }
    expect(rows.filter((r) => r[0] === 'channel')).toEqual([
      ['channel', 'Direct', String(BULK_PAGES), String(BULK_PAGES), String(BULK_PAGES), '100', '', ''],
    ]);
    const report = await run.stack.json<JsonReport>(
      `/sites/${run.stack.sites.bulk.id}/report?from=${addDays(today, -1)}&to=${today}&limit=1000`,
    );
    expect(report.breakdowns.pages?.length).toBe(1000);
    expect(report.breakdowns.entry_page?.length).toBe(1000);
  });
});
