import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, hourLabel, localDate } from '../support/zones.ts';
import { expectedReport, type ModelQuery, queryString, settle } from './expected.ts';
import { expectedFunnels, expectedGoals } from './expected-goals.ts';
import { expectedCrawlers, expectedVitals, sendCrawlHits } from './expected-robots-vitals.ts';
import type { ModelFilter } from './model.ts';
import { SCRIPTED, type ScriptedRun, type ScriptedSite, scriptedRun } from './run.ts';
import { type AccuracyEngine, waitForTailer } from './stack.ts';

/**
 * The accuracy suite's report checks, against `footfall start` on one engine: reports.test.ts
 * runs them on DuckDB, reports-clickhouse.test.ts on ClickHouse (the same numbers, exactly).
 */
export function accuracyReports(engine: AccuracyEngine): void {
  let run: ScriptedRun;
  beforeAll(async () => {
    run = await scriptedRun({ engine });
  }, 120_000);
  afterAll(async () => run?.stack.stop());

  /** The API's report for `q` must equal the model's: counts exactly, durations within their bounds. */
  async function expectReport(name: ScriptedSite, q: Omit<ModelQuery, 'timeZone'>) {
    const site = run.stack.sites[name];
    const query: ModelQuery = { ...q, timeZone: site.timezone };
    const actual = await run.stack.json(`/sites/${site.id}/report?${queryString(query)}`);
    const expected = expectedReport(run.visits[name], query);
    // goal ids are the server's
    const ids = new Map(
      (actual as { goals: { name: string; id: string }[] }).goals.map((g) => [g.name, g.id]),
    );
    for (const g of expected.goals) g.id = ids.get(g.name) ?? '';
    expect(actual).toEqual(settle(expected, actual));
    return expected;
  }

  describe.each(SCRIPTED)('scripted visitors on the %s site', (name) => {
    const day = () => run.day[name];

    it('counts the report day exactly against the day before (KPIs, hourly chart, every breakdown)', async () => {
      const expected = await expectReport(name, {
        from: day(),
        to: day(),
        bucket: 'hour',
        compare: true,
        limit: 1000,
      });
      // the script places visits on both local days, so neither side of the comparison is empty
      expect(expected.kpis.visits).toBeGreaterThan(0);
      if (run.dayBeforeInReach[name]) expect(expected.compare_kpis?.visits).toBeGreaterThan(0);
    });

    it("counts each goal's visitors, visits and conversions, and each funnel's steps, exactly", async () => {
      const site = run.stack.sites[name];
      const from = addDays(day(), -1);
      const report = await run.stack.json<{
        goals: { name: string; visitors: number; visits: number; conversions: number }[];
      }>(`/sites/${site.id}/report?from=${from}&to=${day()}`);
      const goals = expectedGoals(run.visits[name], from, day(), site.timezone);
      expect(
        report.goals.map(({ name: n, visitors, visits, conversions }) => ({
          name: n,
          visitors,
          visits,
          conversions,
        })),
      ).toEqual(goals);
      // the script reaches every goal on this site, so none of the numbers is a trivial zero
      expect(goals.every((g) => g.conversions > 0)).toBe(true);
      const funnels = await run.stack.json<{ funnels: { name: string; steps: { visitors: number }[] }[] }>(
        `/sites/${site.id}/report/funnels?from=${from}&to=${day()}`,
      );
      expect(funnels.funnels.map((f) => ({ name: f.name, steps: f.steps.map((s) => s.visitors) }))).toEqual(
        expectedFunnels(run.visits[name], from, day(), site.timezone),
      );
    });

    it("answers each Web Vital's samples and p50, p75 and p90 exactly, as the test ranks them", async () => {
      const site = run.stack.sites[name];
      const from = addDays(day(), -1);
      const vitals = await run.stack.json<{
        samples: number;
        metrics: Record<
          string,
          { samples: number; p50: number | null; p75: number | null; p90: number | null }
        >;
      }>(`/sites/${site.id}/report/vitals?from=${from}&to=${day()}`);
      const expected = expectedVitals(run.sent[name], from, day(), site.timezone);
      expect(vitals.samples).toBe(expected.samples);
      const answered = Object.fromEntries(
        Object.entries(vitals.metrics).map(([k, m]) => [
          k,
          { samples: m.samples, p50: m.p50, p75: m.p75, p90: m.p90 },
        ]),
      );
      expect(answered).toEqual(expected.metrics);
      expect(expected.metrics.lcp?.samples).toBeGreaterThan(3);
    });

    it('counts the robot requests its server reports, by class, robot, page and status, exactly', async () => {
      const site = run.stack.sites[name];
      const days = await sendCrawlHits(run.stack.url, site);
      await waitForTailer(run.stack);
      const to = [...days].sort().at(-1)!;
      const report = await run.stack.json<{
        totals: unknown;
        robots: { robot: string }[];
        pages: { path: string }[];
        statuses: { status: number }[];
      }>(`/sites/${site.id}/report/crawlers?from=${addDays(day(), -1)}&to=${to}`);
      const expected = expectedCrawlers();
      expect(report.totals).toEqual(expected.totals);
      const byName = <T extends Record<string, unknown>>(rows: T[], key: keyof T) =>
        [...rows].sort((a, b) => String(a[key]).localeCompare(String(b[key])));
      expect(byName(report.robots, 'robot')).toEqual(byName(expected.robots, 'robot'));
      expect(byName(report.pages, 'path')).toEqual(byName(expected.pages, 'path'));
      expect(byName(report.statuses, 'status')).toEqual(byName(expected.statuses, 'status'));
    });

    it('counts both days by day, with exit pages, regions and cities (deep=1)', async () => {
      await expectReport(name, {
        from: addDays(day(), -1),
        to: day(),
        bucket: 'day',
        deep: true,
        limit: 1000,
      });
    });

    it('gives each day its own breakdowns with daily=1, beside a 48-hour chart', async () => {
      await expectReport(name, {
        from: addDays(day(), -1),
        to: day(),
        bucket: 'hour',
        daily: true,
        limit: 1000,
      });
    });

    it('cuts every breakdown to the limit, most visitors first, then by value', async () => {
      await expectReport(name, { from: addDays(day(), -1), to: day(), bucket: 'day', limit: 3 });
    });

    const filterSets: ModelFilter[][] = [
      [['channel', 'Organic Search']],
      [
        ['channel', 'Organic Search'],
        ['device', 'desktop'],
      ],
      [['page', '/pricing']],
      [
        ['page', '/pricing'],
        ['browser', 'Chrome'],
      ],
      [['event', 'Signup']],
      [['event', 'Outbound Link']],
      [['referrer', null]],
      [['campaign', '=SUM(A1)']],
      [['campaign', 'spring,sale']],
      [
        ['language', 'de-DE'],
        ['os', 'iOS'],
      ],
      [['entry_page', '/blog/post-2']],
      [['exit_page', '/pricing']],
      [['source', 'chatgpt.com']],
      [['medium', 'cpc']],
      [['country', null]],
      [['language', null]],
    ];
    it.each(filterSets.map((f) => [f.map(([d, v]) => `${d}:${v ?? ''}`).join(' & '), f] as const))(
      'selects visits with f=%s',
      async (_label, filters) => {
        await expectReport(name, {
          from: addDays(day(), -1),
          to: day(),
          bucket: 'day',
          filters,
          limit: 1000,
        });
      },
    );
  });

  describe('the same instants in three time zones', () => {
    it('puts one visit on each site’s own local day and hour', async () => {
      const probes = SCRIPTED.map((name) => {
        const probe = run.sent[name].find((e) => e.persona.name === 'probe');
        if (!probe) throw new Error(`no probe on ${name}`);
        return { name, probe, site: run.stack.sites[name] };
      });
      // one instant for all three sites (placement shifts every site alike)
      expect(new Set(probes.map((p) => p.probe.at)).size).toBe(1);
      const labels = new Set<string>();
      for (const { name, probe, site } of probes) {
        const from = addDays(run.day[name], -1);
        const to = run.day[name];
        const base = `/sites/${site.id}/report?from=${from}&to=${to}&f=entry_page:/probe`;
        const hourly = await run.stack.json<{ chart: { bucket: string; visits: number }[] }>(
          `${base}&bucket=hour`,
        );
        const label = hourLabel(probe.lo, site.timezone);
        labels.add(label);
        expect(hourly.chart.filter((p) => p.visits > 0)).toEqual([
          expect.objectContaining({ bucket: label, visits: 1 }),
        ]);
        const daily = await run.stack.json<{ chart: { bucket: string; visits: number }[] }>(
          `${base}&bucket=day`,
        );
        expect(daily.chart.filter((p) => p.visits > 0).map((p) => p.bucket)).toEqual([
          localDate(probe.lo, site.timezone),
        ]);
      }
      // UTC+14, UTC-8 (or -7) and UTC: three different local hours for one instant
      expect(labels.size).toBe(3);
    });

    it('keeps a visit across midnight one visit, with a cookie and without (the cookieless one keeps its first day)', async () => {
      // 'night' is the only macOS visitor speaking en-GB: /blog 6 minutes before midnight, /pricing 5 after
      for (const name of SCRIPTED) {
        // (late on a 25-hour day the whole 25-hour window is one local day: nothing crosses midnight)
        if (!run.dayBeforeInReach[name]) continue;
        const site = run.stack.sites[name];
        const d = run.day[name];
        const r = await run.stack.json<{
          kpis: { visitors: number; visits: number; pageviews: number };
          chart: { bucket: string; visits: number }[];
          breakdowns: { entry_page: { value: string }[]; channel: { value: string }[] };
        }>(`/sites/${site.id}/report?from=${addDays(d, -1)}&to=${d}&bucket=day&f=os:macOS&f=language:en-GB`);
        expect(r.kpis, name).toMatchObject({ visitors: 1, visits: 1, pageviews: 4 });
        expect(r.chart.map((p) => [p.bucket, p.visits])).toEqual([
          [addDays(d, -1), 1],
          [d, 0],
        ]);
        // no second, "Direct" visit entering on a middle page
        expect(r.breakdowns.entry_page.map((row) => row.value)).toEqual(['/blog']);
        expect(r.breakdowns.channel.map((row) => row.value)).toEqual(['Referral']);
      }
    });

    it('gives each page the mean deepest scroll and engaged time of the visits that reported them', async () => {
      for (const name of SCRIPTED) {
        const d = run.day[name];
        const expected = await expectReport(name, { from: addDays(d, -1), to: d, bucket: 'day', limit: 100 });
        // the model's pages carry engagement (two reports of one visit add up; one 50 minutes late counts nowhere)
        const pages = expected.breakdowns.pages as { value: string; time_on_page: number | null }[];
        expect(pages.filter((p) => p.time_on_page !== null).length, name).toBeGreaterThan(0);
        const about = pages.find((p) => p.value === '/about');
        if (about) expect(about).toMatchObject({ scroll_depth: null, time_on_page: null });
        if (!run.dayBeforeInReach[name]) continue;
        // 'night' reports engagement with /blog/post-2 after midnight: it counts on its visit's day
        const site = run.stack.sites[name];
        const r = await run.stack.json<{
          daily: { day: string; breakdowns: { pages: { value: string; scroll_depth: number | null }[] } }[];
        }>(`/sites/${site.id}/report?from=${addDays(d, -1)}&to=${d}&daily=1&f=os:macOS&f=language:en-GB`);
        expect(r.daily.map((x) => x.breakdowns.pages.find((p) => p.value === '/blog/post-2'))).toEqual([
          { value: '/blog/post-2', visitors: 1, visits: 1, pageviews: 1, scroll_depth: 55, time_on_page: 30 },
          undefined,
        ]);
      }
    });

    it('does not count a visit of one pageview and a custom event as a bounce', async () => {
      // 'rosa' is the only visitor speaking fr-FR: /signup, then a Signup event
      for (const name of SCRIPTED) {
        const site = run.stack.sites[name];
        const d = run.day[name];
        const r = await run.stack.json<{ kpis: { visits: number; pageviews: number; bounce_rate: number } }>(
          `/sites/${site.id}/report?from=${addDays(d, -2)}&to=${d}&f=language:fr-FR`,
        );
        expect(r.kpis, name).toEqual(expect.objectContaining({ visits: 1, pageviews: 1, bounce_rate: 0 }));
      }
    });

    it('does not count a visitor who sends Global Privacy Control, nor bots and Do Not Track', async () => {
      for (const name of SCRIPTED) {
        const site = run.stack.sites[name];
        const d = run.day[name];
        const base = `/sites/${site.id}/report?from=${addDays(d, -2)}&to=${d}&bucket=day`;
        // the Global Privacy Control visitor is the only one whose language is plain 'de'
        const gpc = await run.stack.json<{ kpis: { visits: number } }>(`${base}&f=language:de`);
        expect(gpc.kpis.visits).toBe(0);
        // every visit of the window, and not one more: the bot and the DNT visitor are left out
        await expectReport(name, { from: addDays(d, -2), to: d, bucket: 'day', limit: 1000 });
      }
    });
  });
}
