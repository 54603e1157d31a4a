import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { DEEP_DIMENSIONS, rollupReads, useSlowReports } from './report.ts';
import { CASES, load, NOW, randomEvents, reports } from './report-cases.ts';
import { parseReportParams, VISIT_DIMENSIONS } from './report-params.ts';
import { ENGAGEMENT_SECTION, ROLLUP_SECTIONS } from './rollup-sql.ts';
import { ROLLUP_DAYS_PER_WRITE } from './rollups.ts';
import { ev, onStream, rollupsBuilt } from './test-fixtures.ts';

/**
 * Day rollups (rollup-sql.ts) must give the very reports raw visits give: visitors included,
 * for every period, bucket, zone, daily and compared period, and again after late events change
 * visits of days already rolled up (the loader drops those days; the report counts them raw until
 * they are built again).
 */
let dir: string;
let engine: Engine;
/** every rollup build that failed (none may) */
const rollupErrors: unknown[] = [];

/** Reports the slow way (repeat visitors, never rollups): the reference. */
const reference = () => reports(engine, true);

/** Reports the fast way twice: the first asks for missing days, which are built before the second. */
async function overRollups() {
  await reports(engine, false);
  await rollupsBuilt(engine);
  const before = { ...rollupReads };
  const out = await reports(engine, false);
  return {
    out,
    statements: rollupReads.statements - before.statements,
    days: rollupReads.days - before.days,
    engagement: rollupReads.engagement - before.engagement,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-rollups-'));
  engine = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => NOW,
    onRollupError: (error) => rollupErrors.push(error),
  });
  await load(engine, randomEvents());
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('day rollups', () => {
  it('hold the total, every visit dimension, pages and events, those every report shows first, then page engagement', () => {
    expect([...ROLLUP_SECTIONS].sort()).toEqual(
      ['total', ...VISIT_DIMENSIONS, 'pages', 'events', ENGAGEMENT_SECTION].sort(),
    );
    expect(ROLLUP_SECTIONS.at(-1)).toBe(ENGAGEMENT_SECTION);
    const sections = ROLLUP_SECTIONS.slice(0, -1);
    const deepFrom = sections.length - DEEP_DIMENSIONS.length;
    expect([...sections.slice(deepFrom)].sort()).toEqual([...DEEP_DIMENSIONS].sort());
  });

  it('give the same reports as raw visits, for every period, bucket and zone', async () => {
    const expected = await reference();
    const { out, statements, days, engagement } = await overRollups();
    // every case but the hourly ones reads rollups, compared periods too
    const hourly = CASES.filter((c) => c.q['bucket'] === 'hour').length;
    expect(statements).toBeGreaterThanOrEqual(CASES.length - hourly);
    expect(days).toBeGreaterThan(1000);
    // scroll depth and time on page too, hourly reports' included (engagement is per day)
    expect(engagement).toBe(CASES.length);
    expect(JSON.stringify(out)).toMatch(/"scroll_depth":\d/);
    expect(out).toEqual(expected);
    expect(rollupErrors).toEqual([]);
  }, 120_000); // every case the slow way, then 2 or 3 times fast: 10 s alone, past 30 s once in CI

  it('stay exact when late events change visits of days already rolled up', async () => {
    // visitors seen in March come back, late, between their stored visits: visits merge,
    // split and gain new previous visits from 20 March on
    const late = [];
    for (let v = 0; v < 60; v += 3) {
      late.push(
        ev(`2026-03-${String(10 + (v % 17)).padStart(2, '0')}T21:${String(v % 60).padStart(2, '0')}:00Z`, {
          visitor: `visitor-${v}`,
          path: '/late',
          channel: 'Email',
          country: 'FR',
        }),
      );
    }
    late.push(ev('2026-04-02T10:00:00Z', { visitor: 'newcomer', path: '/late', kind: 'ev', name: 'Signup' }));
    await engine.applyBatch({ records: onStream('late', late) });
    const expected = await reference();
    // before the changed days are built again: the rest of the days from rollups, those raw
    const before = { ...rollupReads };
    const mixed = await reports(engine, false);
    expect(rollupReads.statements - before.statements).toBeGreaterThan(0);
    expect(mixed).toEqual(expected);
    const { out, statements } = await overRollups();
    expect(statements).toBeGreaterThan(0);
    expect(out).toEqual(expected);
    expect(JSON.stringify(out)).toContain('/late');
    expect(rollupErrors).toEqual([]);
  }, 120_000); // every case the slow way, then 2 or 3 times fast: 10 s alone, past 30 s once in CI

  it("keep a page's engagement exact: visits that sent only time or only a scroll, and a late one for a visit that ended later", async () => {
    const site = 'site5';
    const at = (t: string, fields: Partial<WalEvent>) => ev(t, { site, ...fields });
    // a visit of 10 May that goes on past midnight; its engagement sends time but no scroll
    await engine.applyBatch({
      records: onStream('engage', [
        at('2026-05-10T23:50:00Z', { visitor: 'night', path: '/a' }),
        at('2026-05-10T23:52:00Z', { visitor: 'night', path: '/a', kind: 'en', engagedMs: 40_000 }),
        at('2026-05-11T00:10:00Z', { visitor: 'night', path: '/b' }),
        // no visit sent a scroll for /b
        at('2026-05-11T00:12:00Z', { visitor: 'night', path: '/b', kind: 'en', engagedMs: 5_000 }),
        // another visit of the day sends a scroll and no time
        at('2026-05-10T10:00:00Z', { visitor: 'day', path: '/a' }),
        at('2026-05-10T10:01:00Z', { visitor: 'day', path: '/a', kind: 'en', scroll: 60 }),
      ]),
    });
    const params = parseReportParams(
      { from: '2026-05-10', to: '2026-05-11', daily: '1', bucket: 'day' },
      'UTC',
      NOW,
    );
    const ask = async (slow: boolean) => {
      useSlowReports(slow);
      try {
        return await engine.report({ site, timeZone: 'UTC', params });
      } finally {
        useSlowReports(false);
      }
    };
    await ask(false);
    await rollupsBuilt(engine);
    const before = rollupReads.engagement;
    const built = await ask(false);
    expect(rollupReads.engagement).toBeGreaterThan(before);
    expect(built).toEqual(await ask(true));
    expect(built.breakdowns.pages.find((r) => r.value === '/a')).toMatchObject({
      scroll_depth: 60,
      time_on_page: 40,
    });
    // later, engagement of the night visit sent after midnight but before its last pageview:
    // 10 May, the visit's day, changes
    await engine.applyBatch({
      records: onStream('engage-late', [
        at('2026-05-11T00:05:00Z', {
          visitor: 'night',
          path: '/a',
          kind: 'en',
          engagedMs: 20_000,
          scroll: 100,
        }),
      ]),
    });
    const late = await ask(true);
    expect(late.breakdowns.pages.find((r) => r.value === '/a')).toMatchObject({
      scroll_depth: 80, // (100 + 60) / 2
      time_on_page: 60, // the night visit's 40 + 20 s; the day visit sent no time
    });
    expect(await ask(false)).toEqual(late);
    await rollupsBuilt(engine);
    expect(await ask(false)).toEqual(late);
    expect(rollupErrors).toEqual([]);
  });

  it('place a previous visit from before a change of offset on its own local day', async () => {
    // 23:30 in Berlin on 20 March (UTC+1); the next visit is in summer time (UTC+2), in a run
    // of days built with summer offsets: with those, the previous visit would fall on 21 March
    const events = [
      ev('2026-03-20T22:30:00Z', { site: 'site2', visitor: 'night-owl', path: '/x' }),
      ev('2026-04-25T10:00:00Z', { site: 'site2', visitor: 'night-owl', path: '/x' }),
    ];
    await engine.applyBatch({ records: onStream('owl', events) });
    const params = parseReportParams(
      { from: '2026-03-21', to: '2026-04-30', daily: '1' },
      'Europe/Berlin',
      NOW,
    );
    const ask = () => engine.report({ site: 'site2', timeZone: 'Europe/Berlin', params });
    await ask();
    await rollupsBuilt(engine);
    const before = rollupReads.statements;
    const report = await ask();
    expect(rollupReads.statements).toBeGreaterThan(before);
    expect(report.kpis).toMatchObject({ visits: 1, visitors: 1 });
    expect(report.breakdowns.pages).toEqual([
      { value: '/x', visitors: 1, visits: 1, pageviews: 1, scroll_depth: null, time_on_page: null },
    ]);
    expect(report.breakdowns.country).toEqual([expect.objectContaining({ visits: 1, visitors: 1 })]);
    expect(rollupErrors).toEqual([]);
  });

  it('are built ahead for every past day of a site that prepare names, so its first report reads them', async () => {
    // NOW is 2026-08-20 12:00 UTC, 08:00 in New York: 1 to 19 August are over there, the 20th is not
    const events = [
      ev('2026-08-01T03:30:00Z', { site: 'site3', visitor: 'a', path: '/one' }), // 31 July, 23:30 local
      ev('2026-08-05T15:00:00Z', { site: 'site3', visitor: 'a', path: '/two' }),
      ev('2026-08-19T20:00:00Z', { site: 'site3', visitor: 'b', path: '/one' }),
      ev('2026-08-20T11:00:00Z', { site: 'site3', visitor: 'a', path: '/one' }),
    ];
    await engine.applyBatch({ records: onStream('ahead', events) });
    const zone = 'America/New_York';
    const sites = [
      { site: 'site3', timeZone: zone },
      { site: 'no-visits', timeZone: zone },
    ];
    expect(await engine.prepare(sites)).toBe(20); // 31 July to 19 August
    expect(engine.rollupWork.queuedDays).toBe(21); // and 20 August so far (to 07:00: a's visit of 07:00 is open)
    await rollupsBuilt(engine);
    expect(engine.rollupWork.queuedDays).toBe(0);
    expect(await engine.prepare(sites)).toBe(0);

    const params = parseReportParams({ from: '2026-07-31', to: '2026-08-20', daily: '1' }, zone, NOW);
    const ask = () => engine.report({ site: 'site3', timeZone: zone, params });
    const before = { ...rollupReads };
    const report = await ask();
    expect(rollupReads.statements - before.statements).toBe(1);
    expect(rollupReads.days - before.days).toBe(21); // 20 whole days and the 20th so far
    expect(engine.rollupWork.queuedDays).toBe(0); // the report found nothing to ask for
    useSlowReports(true);
    try {
      expect(report).toEqual(await ask());
    } finally {
      useSlowReports(false);
    }
    expect(report.kpis).toMatchObject({ visits: 4, visitors: 2, pageviews: 4 });
    expect(rollupErrors).toEqual([]);
  });

  it('are kept when a returning visitor starts a new visit (only the days a batch changes go)', async () => {
    const site = { site: 'site7' };
    await engine.applyBatch({
      records: onStream('returning', [
        ev('2026-08-05T10:00:00Z', { ...site, visitor: 'back', path: '/a' }),
        ev('2026-08-05T10:05:00Z', { ...site, visitor: 'back', path: '/b' }),
        ev('2026-08-12T10:00:00Z', { ...site, visitor: 'other', path: '/a' }),
      ]),
    });
    await engine.prepare([{ site: 'site7', timeZone: 'UTC' }]);
    await rollupsBuilt(engine);
    const params = parseReportParams({ from: '2026-08-05', to: '2026-08-19', daily: '1' }, 'UTC', NOW);
    const rolledDays = async () => {
      const before = rollupReads.days;
      await engine.report({ site: 'site7', timeZone: 'UTC', params });
      return rollupReads.days - before;
    };
    expect(await rolledDays()).toBe(15);
    // back's visit of 5 August is written again as their new one starts: unchanged, so none of
    // the 15 days is dropped
    await engine.applyBatch({
      records: onStream('returning-2', [
        ev('2026-08-20T11:00:00Z', { ...site, visitor: 'back', path: '/a' }),
      ]),
    });
    expect(await rolledDays()).toBe(15);
    expect(rollupErrors).toEqual([]);
  });

  it('are dropped for a zone the site no longer has once prepare names the new one', async () => {
    const zone = 'America/New_York';
    const rolled = async (tz: string) => {
      const params = parseReportParams({ from: '2026-08-01', to: '2026-08-19' }, tz, NOW);
      const before = { ...rollupReads };
      await engine.report({ site: 'site6', timeZone: tz, params });
      return rollupReads.days - before.days;
    };
    // 31 July 23:30 in New York, 1 August 12:30 in Tokyo
    const events = [
      ev('2026-08-01T03:30:00Z', { site: 'site6' }),
      ev('2026-08-19T20:00:00Z', { site: 'site6' }),
    ];
    await engine.applyBatch({ records: onStream('zones', events) });
    expect(await engine.prepare([{ site: 'site6', timeZone: zone }])).toBe(20);
    await rollupsBuilt(engine);
    expect(await rolled(zone)).toBe(19);
    // the site moves to Tokyo: its days there are built (1 to 19 August, the 20th is not over
    // there either), New York's dropped
    expect(await engine.prepare([{ site: 'site6', timeZone: 'Asia/Tokyo' }])).toBe(19);
    await rollupsBuilt(engine);
    expect(await rolled('Asia/Tokyo')).toBe(19);
    expect(await rolled(zone)).toBe(0); // read raw, and asked for again
    await rollupsBuilt(engine);
    expect(await rolled(zone)).toBe(19);
    // naming the site in New York again drops Tokyo's and queues only 31 July (the first
    // visit's day there, which no report asked for since Tokyo's preparation dropped it)
    expect(await engine.prepare([{ site: 'site6', timeZone: zone }])).toBe(1);
    expect(await rolled('Asia/Tokyo')).toBe(0);
    await rollupsBuilt(engine);
    expect(rollupErrors).toEqual([]);
  });

  it('let a batch, and the days a report asks for, go before all but the run being built', async () => {
    // a year of history: 55 runs of 7 days, far more than build while the test runs its steps
    const history = Array.from({ length: 60 }, (_, i) =>
      ev(new Date(Date.parse('2025-08-01T12:00:00Z') + i * 6 * 86_400_000).toISOString(), {
        site: 'site4',
        visitor: `v${i % 7}`,
      }),
    );
    await engine.applyBatch({ records: onStream('site4', history) });
    const queued = await engine.prepare([{ site: 'site4', timeZone: 'UTC' }]);
    expect(queued).toBe(384); // 1 August 2025 to 19 August 2026
    await engine.applyBatch({
      records: onStream('site4-live', [ev('2026-08-20T11:59:00Z', { site: 'site4' })]),
    });
    // at most the run the writer had when the batch came was built before it
    expect(engine.rollupWork.queuedDays).toBeGreaterThanOrEqual(queued - ROLLUP_DAYS_PER_WRITE);
    // a report of another site asks for its 3 days: they are built next
    await engine.applyBatch({
      records: onStream('site5', [
        ev('2026-08-15T10:00:00Z', { site: 'site5' }),
        ev('2026-08-17T10:00:00Z', { site: 'site5' }),
      ]),
    });
    const params = parseReportParams({ from: '2026-08-15', to: '2026-08-17' }, 'UTC', NOW);
    const ask = () => engine.report({ site: 'site5', timeZone: 'UTC', params });
    await ask();
    await engine.positions(); // the run in progress is done, the report's is handed over
    await engine.positions(); // and done
    const before = { ...rollupReads };
    expect((await ask()).kpis).toMatchObject({ visits: 2 });
    expect(rollupReads.days - before.days).toBe(3);
    expect(engine.rollupWork.queuedDays).toBeGreaterThan(0); // the preparation's runs still wait
    await rollupsBuilt(engine);
    expect(engine.rollupWork.queuedDays).toBe(0);
    expect(rollupErrors).toEqual([]);
  }, 120_000);
});
