import { describe, expect, it } from 'vitest';
import { addCharts, addMetrics, addRows, mergeReports, type SiteReport } from './all-sites.ts';
import type { Metrics } from './engine/report-types.ts';

const m = (
  visitors: number,
  visits: number,
  pageviews: number,
  bounce: number,
  duration: number,
): Metrics => ({
  visitors,
  visits,
  pageviews,
  views_per_visit: visits ? pageviews / visits : 0,
  bounce_rate: bounce,
  visit_duration: duration,
});

const row = (value: string | null, visitors: number, visits: number, bounce = 0.5, duration = 10) => ({
  value,
  visitors,
  visits,
  pageviews: visits * 2,
  bounce_rate: bounce,
  visit_duration: duration,
});

describe('the report of several sites', () => {
  it('adds counts and weighs rates and durations by visits', () => {
    expect(addMetrics([m(10, 20, 60, 0.5, 30), m(5, 10, 10, 0.8, 60)])).toEqual({
      visitors: 15,
      visits: 30,
      pageviews: 70,
      views_per_visit: 70 / 30,
      bounce_rate: (0.5 * 20 + 0.8 * 10) / 30,
      visit_duration: (30 * 20 + 60 * 10) / 30,
    });
    expect(addMetrics([m(0, 0, 0, 0, 0)])).toEqual(m(0, 0, 0, 0, 0));
  });

  it('adds charts bucket by bucket, an hour without its offset', () => {
    const at = (bucket: string, visitors: number) => ({
      bucket,
      start: '2026-11-28T00:00:00.000Z',
      ...m(visitors, visitors, visitors, 0, 0),
    });
    const chart = addCharts([
      [at('2026-11-28T00:00+01:00', 1), at('2026-11-28T01:00+01:00', 2)],
      [at('2026-11-28T00:00-05:00', 10)],
    ]);
    expect(chart.map((p) => [p.bucket, p.visitors])).toEqual([
      ['2026-11-28T00:00', 11],
      ['2026-11-28T01:00', 2],
    ]);
  });

  it('adds a breakdown by value, saying what each site gave it, and keeps the largest', () => {
    const rows = addRows(
      [
        { site: 'a', rows: [row('Google', 10, 12, 0.25, 20), row('Direct', 4, 4)] },
        { site: 'b', rows: [row('Google', 6, 8, 0.5, 40), row(null, 5, 5)] },
      ],
      2,
    );
    expect(rows).toEqual([
      {
        value: 'Google',
        visitors: 16,
        visits: 20,
        pageviews: 40,
        bounce_rate: (0.25 * 12 + 0.5 * 8) / 20,
        visit_duration: (20 * 12 + 40 * 8) / 20,
        sites: { a: 10, b: 6 },
      },
      { ...row(null, 5, 5), sites: { b: 5 } },
    ]);
  });

  it('keeps pages one row per site and lists each site with its share', () => {
    const site = (id: string, visitors: number, pages: string[]): SiteReport => ({
      id,
      domain: `${id}.example`,
      report: {
        time_zone: id === 'a' ? 'Europe/Berlin' : 'America/New_York',
        period: { from: '2026-11-01', to: '2026-11-28' },
        compare: null,
        bucket: 'day',
        kpis: m(visitors, visitors, visitors, 0, 0),
        compare_kpis: null,
        chart: [],
        compare_chart: null,
        breakdowns: {
          pages: pages.map((value, i) => ({
            value,
            visitors: visitors - i,
            visits: visitors - i,
            pageviews: visitors - i,
            scroll_depth: null,
            time_on_page: null,
          })),
          events: [],
          channel: [row('Direct', visitors, visitors)],
        },
      },
    });
    const merged = mergeReports([site('a', 3, ['/', '/x']), site('b', 9, ['/'])], 10);
    expect(merged.breakdowns.pages?.map((p) => [(p as { site: string }).site, p.value, p.visitors])).toEqual([
      ['b', '/', 9],
      ['a', '/', 3],
      ['a', '/x', 2],
    ]);
    expect(merged.breakdowns.channel).toEqual([{ ...row('Direct', 12, 12), sites: { a: 3, b: 9 } }]);
    expect(merged.sites.map((s) => [s.id, s.share])).toEqual([
      ['b', 0.75],
      ['a', 0.25],
    ]);
    expect(merged.time_zones).toEqual(['America/New_York', 'Europe/Berlin']);
    expect(merged.compare_kpis).toBeNull();
  });
});
