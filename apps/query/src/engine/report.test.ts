import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams, type RawReportQuery } from './report-params.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * A small site with known true numbers (UTC zone), 2026-03-02 .. 2026-03-04:
 *   alice: Mar 2 visit A (Google, /a -> /b -> /a, Signup event), Mar 3 visit B (Direct, /a, bounce)
 *   bob:   Mar 2 visit C (Email, campaign spring, /pricing, bounce, DE)
 *   carol: Mar 4 visit D (Google, /b -> /c, duration 10 min, DE mobile)
 *   dave:  Feb 25 visit E (Direct, /a) - only in the compared period
 * Engagement (`en`, inside the visits' times): alice in A on /a twice (30 s to 40 %, 10 s to 80 %)
 * and on /b (20 s, 100 %); carol in D on /b (60 s, 50 %).
 */
const DATA: WalEvent[] = [
  ev('2026-03-02T09:00:00Z', {
    visitor: 'alice',
    path: '/a',
    channel: 'Organic Search',
    referrerHost: 'google.com',
    country: 'US',
  }),
  ev('2026-03-02T09:05:00Z', { visitor: 'alice', path: '/b' }),
  ev('2026-03-02T09:06:00Z', { visitor: 'alice', kind: 'ev', name: 'Signup', path: '/b' }),
  ev('2026-03-02T09:10:00Z', { visitor: 'alice', path: '/a' }),
  ev('2026-03-02T09:04:00Z', { visitor: 'alice', path: '/a', kind: 'en', engagedMs: 30_000, scroll: 40 }),
  ev('2026-03-02T09:06:30Z', { visitor: 'alice', path: '/b', kind: 'en', engagedMs: 20_000, scroll: 100 }),
  ev('2026-03-02T09:09:00Z', { visitor: 'alice', path: '/a', kind: 'en', engagedMs: 10_000, scroll: 80 }),
  ev('2026-03-04T07:05:00Z', { visitor: 'carol', path: '/b', kind: 'en', engagedMs: 60_000, scroll: 50 }),
  ev('2026-03-03T15:00:00Z', { visitor: 'alice', path: '/a', country: 'US' }),
  ev('2026-03-02T20:00:00Z', {
    visitor: 'bob',
    path: '/pricing',
    channel: 'Email',
    utmCampaign: 'spring',
    utmSource: 'newsletter',
    utmMedium: 'email',
    country: 'DE',
  }),
  ev('2026-03-04T07:00:00Z', {
    visitor: 'carol',
    path: '/b',
    channel: 'Organic Search',
    referrerHost: 'google.com',
    country: 'DE',
    device: 'mobile',
  }),
  ev('2026-03-04T07:10:00Z', { visitor: 'carol', path: '/c', device: 'mobile' }),
  ev('2026-02-25T12:00:00Z', { visitor: 'dave', path: '/a' }),
];

let engine: Engine;
beforeAll(async () => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
  await engine.applyBatch({ records: onStream('a', DATA) });
});
afterAll(async () => engine.close());

const report = (query: RawReportQuery) =>
  engine.report({
    site: 'site1',
    timeZone: 'UTC',
    params: parseReportParams(
      { from: '2026-03-02', to: '2026-03-04', ...query },
      'UTC',
      Date.parse('2026-03-04T12:00:00Z'),
    ),
  });

describe('report', () => {
  it('computes the period KPIs exactly', async () => {
    const r = await report({});
    expect(r.kpis).toEqual({
      visitors: 3,
      visits: 4,
      pageviews: 7,
      views_per_visit: 7 / 4,
      bounce_rate: 2 / 4,
      visit_duration: (600 + 0 + 0 + 600) / 4,
    });
  });

  it('charts every day with zeros where nothing happened', async () => {
    const r = await report({ from: '2026-03-01', bucket: 'day' });
    expect(r.chart.map((p) => [p.bucket, p.visitors, p.visits, p.pageviews])).toEqual([
      ['2026-03-01', 0, 0, 0],
      ['2026-03-02', 2, 2, 4],
      ['2026-03-03', 1, 1, 1],
      ['2026-03-04', 1, 1, 2],
    ]);
    expect(r.chart[1]?.start).toBe('2026-03-02T00:00:00.000Z');
  });

  it('breaks visits down by dimension, ordered by visitors then value, with null for no referrer', async () => {
    const r = await report({});
    expect(
      r.breakdowns.channel?.map((x) => [x.value, x.visitors, x.visits, x.pageviews, x.bounce_rate]),
    ).toEqual([
      ['Organic Search', 2, 2, 5, 0],
      ['Direct', 1, 1, 1, 1],
      ['Email', 1, 1, 1, 1],
    ]);
    expect(r.breakdowns.referrer?.map((x) => [x.value, x.visitors])).toEqual([
      ['google.com', 2],
      [null, 2],
    ]);
    expect(r.breakdowns.entry_page?.map((x) => [x.value, x.visitors, x.visits])).toEqual([
      ['/a', 1, 2],
      ['/b', 1, 1],
      ['/pricing', 1, 1],
    ]);
    expect(r.breakdowns.country?.map((x) => [x.value, x.visitors])).toEqual([
      ['DE', 2],
      ['US', 1],
    ]);
    expect(r.breakdowns.exit_page).toBeUndefined();
    expect(r.daily).toBeNull();
  });

  it('counts pages by pageviews, visits and distinct visitors, and custom events by name', async () => {
    const r = await report({});
    expect(r.breakdowns.pages).toEqual([
      { value: '/b', visitors: 2, visits: 2, pageviews: 2, scroll_depth: 75, time_on_page: 40 },
      { value: '/a', visitors: 1, visits: 2, pageviews: 3, scroll_depth: 80, time_on_page: 40 },
      { value: '/c', visitors: 1, visits: 1, pageviews: 1, scroll_depth: null, time_on_page: null },
      { value: '/pricing', visitors: 1, visits: 1, pageviews: 1, scroll_depth: null, time_on_page: null },
    ]);
    expect(r.breakdowns.events).toEqual([{ value: 'Signup', visitors: 1, visits: 1, events: 1 }]);
  });

  it('gives each page the mean deepest scroll and engaged seconds of the visits that reported them', async () => {
    const carol = await report({ f: 'device:mobile' });
    expect(carol.breakdowns.pages.map((p) => [p.value, p.scroll_depth, p.time_on_page])).toEqual([
      ['/b', 50, 60],
      ['/c', null, null],
    ]);
    const daily = await report({ daily: '1' });
    expect(daily.daily?.[0]?.breakdowns.pages.find((p) => p.value === '/b')).toMatchObject({
      scroll_depth: 100,
      time_on_page: 20,
    });
    const single = await engine.breakdown({
      site: 'site1',
      timeZone: 'UTC',
      name: 'pages',
      search: 'a',
      params: parseReportParams(
        { from: '2026-03-02', to: '2026-03-04' },
        'UTC',
        Date.parse('2026-03-04T12:00:00Z'),
      ),
    });
    expect(single.rows).toEqual([
      { value: '/a', visitors: 1, visits: 2, pageviews: 3, scroll_depth: 80, time_on_page: 40 },
    ]);
  });

  it('applies the row limit to every breakdown', async () => {
    const r = await report({ limit: '1' });
    expect(r.breakdowns.pages.map((p) => p.value)).toEqual(['/b']);
    expect(r.breakdowns.channel?.map((p) => p.value)).toEqual(['Organic Search']);
  });

  it('adds exit pages, regions and cities with deep=1', async () => {
    const r = await report({ deep: '1' });
    expect(r.breakdowns.exit_page?.map((x) => [x.value, x.visits])).toEqual([
      ['/a', 2],
      ['/c', 1],
      ['/pricing', 1],
    ]);
    expect(r.breakdowns.city).toEqual([
      { value: null, visitors: 3, visits: 4, pageviews: 7, bounce_rate: 0.5, visit_duration: 300 },
    ]);
  });

  it('stacks filters with AND over visits, and a page filter keeps visits that viewed the page', async () => {
    const google = await report({ f: 'channel:Organic Search' });
    expect(google.kpis).toMatchObject({ visitors: 2, visits: 2, pageviews: 5 });
    expect(google.breakdowns.pages.map((p) => [p.value, p.pageviews])).toEqual([
      ['/b', 2],
      ['/a', 2],
      ['/c', 1],
    ]);
    const both = await report({ f: ['channel:Organic Search', 'country:DE'] });
    expect(both.kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 2 });
    const page = await report({ f: 'page:/a' });
    expect(page.kpis).toMatchObject({ visitors: 1, visits: 2, pageviews: 4 });
    const noReferrer = await report({ f: 'referrer:' });
    expect(noReferrer.kpis).toMatchObject({ visits: 2 });
    const event = await report({ f: 'event:Signup' });
    expect(event.kpis).toMatchObject({ visits: 1, pageviews: 3 });
  });

  it('compares with the previous period of the same length', async () => {
    const r = await report({ compare: 'previous' });
    expect(r.compare).toEqual({ from: '2026-02-27', to: '2026-03-01' });
    expect(r.compare_kpis).toMatchObject({ visitors: 0, visits: 0 });
    const custom = await report({ compare: 'custom', cfrom: '2026-02-25', cto: '2026-02-27', bucket: 'day' });
    expect(custom.compare_kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 1, bounce_rate: 1 });
    expect(custom.compare_chart?.map((p) => [p.bucket, p.visits])).toEqual([
      ['2026-02-25', 1],
      ['2026-02-26', 0],
      ['2026-02-27', 0],
    ]);
  });

  it('gives per-day breakdowns for every day with daily=1', async () => {
    const r = await report({ daily: '1' });
    expect(r.daily?.map((d) => d.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04']);
    expect(r.daily?.[0]?.breakdowns.channel?.map((x) => [x.value, x.visits])).toEqual([
      ['Email', 1],
      ['Organic Search', 1],
    ]);
    expect(r.daily?.[1]?.breakdowns.pages).toEqual([
      { value: '/a', visitors: 1, visits: 1, pageviews: 1, scroll_depth: null, time_on_page: null },
    ]);
    expect(r.daily?.[2]?.breakdowns.events).toEqual([]);
  });

  it('breaks pageviews down by host, and a hostname filter keeps visits with a pageview there', async () => {
    await engine.applyBatch({
      records: onStream('hosts', [
        ev('2026-03-03T10:00:00Z', { site: 'site2', visitor: 'x', host: 'example.com', path: '/' }),
        ev('2026-03-03T10:01:00Z', { site: 'site2', visitor: 'x', host: 'blog.example.com', path: '/post' }),
        ev('2026-03-03T10:02:00Z', { site: 'site2', visitor: 'x', host: 'blog.example.com', path: '/other' }),
        ev('2026-03-03T11:00:00Z', { site: 'site2', visitor: 'y', host: 'docs.example.com', path: '/' }),
        ev('2026-03-04T11:00:00Z', { site: 'site2', visitor: 'y', host: 'docs.example.com', path: '/' }),
      ]),
    });
    const params = (query: RawReportQuery = {}) =>
      parseReportParams(
        { from: '2026-03-02', to: '2026-03-04', ...query },
        'UTC',
        Date.parse('2026-03-04T12:00:00Z'),
      );
    const hosts = await engine.breakdown({
      site: 'site2',
      timeZone: 'UTC',
      name: 'hostname',
      params: params(),
    });
    expect(hosts.kpis).toMatchObject({ visitors: 2, visits: 3, pageviews: 5 });
    expect(hosts.rows).toEqual([
      { value: 'blog.example.com', visitors: 1, visits: 1, pageviews: 2 },
      { value: 'docs.example.com', visitors: 1, visits: 2, pageviews: 2 },
      { value: 'example.com', visitors: 1, visits: 1, pageviews: 1 },
    ]);
    const blog = await engine.report({
      site: 'site2',
      timeZone: 'UTC',
      params: params({ f: 'hostname:blog.example.com' }),
    });
    // the whole visit that had a pageview there
    expect(blog.kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 3 });
    const searched = await engine.breakdown({
      site: 'site2',
      timeZone: 'UTC',
      name: 'hostname',
      search: 'DOCS',
      params: params({ f: 'country:' }),
    });
    expect(searched.rows.map((r) => r.value)).toEqual(['docs.example.com']);
  });

  it('answers zeros, not nulls, for a period without visits', async () => {
    const r = await report({ from: '2025-01-01', to: '2025-01-02' });
    expect(r.kpis).toEqual({
      visitors: 0,
      visits: 0,
      pageviews: 0,
      views_per_visit: 0,
      bounce_rate: 0,
      visit_duration: 0,
    });
    expect(r.chart).toHaveLength(48);
    expect(r.breakdowns.pages).toEqual([]);
  });
});

describe('bounces', () => {
  it('counts a visit of one pageview and no custom event; engagement and vitals do not count', async () => {
    const own = await createDuckDbEngine({ path: ':memory:', threads: 1, memoryLimit: '128MB' });
    try {
      await own.applyBatch({
        records: onStream('b', [
          // one pageview with engagement and vitals: a bounce
          ev('2026-03-02T09:00:00Z', { visitor: 'reader', path: '/a' }),
          ev('2026-03-02T09:01:00Z', { visitor: 'reader', kind: 'en', path: '/a', engagedMs: 40_000 }),
          ev('2026-03-02T09:01:00Z', { visitor: 'reader', kind: 'vt', path: '/a', lcp: 1200 }),
          // one pageview and a Signup: not a bounce
          ev('2026-03-02T10:00:00Z', { visitor: 'signup', path: '/join' }),
          ev('2026-03-02T10:02:00Z', { visitor: 'signup', kind: 'ev', name: 'Signup', path: '/join' }),
          // custom events only: not a bounce
          ev('2026-03-02T11:00:00Z', { visitor: 'player', kind: 'ev', name: 'Play', path: '/v' }),
          // two pageviews: not a bounce
          ev('2026-03-02T12:00:00Z', { visitor: 'browser', path: '/a' }),
          ev('2026-03-02T12:01:00Z', { visitor: 'browser', path: '/b' }),
        ]),
      });
      for (const query of [{}, { f: ['channel:Direct'] }, { from: '2026-01-01', to: '2026-03-04' }]) {
        const r = await own.report({
          site: 'site1',
          timeZone: 'UTC',
          params: parseReportParams(
            { from: '2026-03-02', to: '2026-03-04', ...query },
            'UTC',
            Date.parse('2026-03-05T00:00:00Z'),
          ),
        });
        expect(r.kpis.visits, JSON.stringify(query)).toBe(4);
        expect(r.kpis.bounce_rate, JSON.stringify(query)).toBe(1 / 4);
      }
    } finally {
      await own.close();
    }
  });
});
