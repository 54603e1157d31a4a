import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { rollupReads, useSlowReports } from './report.ts';
import { parseReportParams } from './report-params.ts';
import type { Report } from './report-types.ts';
import { ev, ms, onStream, rollupsBuilt } from './test-fixtures.ts';

/**
 * The day in progress rolled up so far (rollups.ts, requestSoFar): a busy site's report of the
 * last days reads today's earlier visits from rollup rows and only the latest raw, and every
 * report stays what raw visits give, as visits go on, new ones come, a late event changes a
 * rolled visit, and the day ends.
 */
const SITE = 'busy';
const ZONE = 'Europe/Berlin'; // UTC+2 in August: 20 August local runs from 19 August 22:00 UTC
let dir: string;
let engine: Engine;
let clock = ms('2026-08-20T10:00:00Z');
let stream = 0;
const rollupErrors: unknown[] = [];

const load = (...events: ReturnType<typeof ev>[]) =>
  engine.applyBatch({ records: onStream(`so-far-${++stream}`, events) });

/** The report of the site's days so far with day rows, deep, the fast way and the slow way. */
async function bothWays(
  q: Record<string, string> = { from: '2026-08-15', to: '2026-08-20', daily: '1', deep: '1' },
) {
  const params = parseReportParams(q, ZONE, clock);
  const ask = () => engine.report({ site: SITE, timeZone: ZONE, params });
  const before = { ...rollupReads };
  const fast = await ask();
  const read = {
    statements: rollupReads.statements - before.statements,
    days: rollupReads.days - before.days,
  };
  useSlowReports(true);
  let slow: Report;
  try {
    slow = await ask();
  } finally {
    useSlowReports(false);
  }
  return { fast, slow, read };
}

/** Tells the engine about the site as the query service does, and waits for what it queued. */
async function prepare() {
  await engine.prepare([{ site: SITE, timeZone: ZONE }]);
  await rollupsBuilt(engine);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-so-far-'));
  engine = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => clock,
    onRollupError: (error) => rollupErrors.push(error),
  });
  const site = { site: SITE };
  // the days before: visitors a to c come back today (their previous visits are on earlier days)
  await load(
    ev('2026-08-15T09:00:00Z', { ...site, visitor: 'a', path: '/pricing', channel: 'Organic Search' }),
    ev('2026-08-17T15:00:00Z', { ...site, visitor: 'b', path: '/' }),
    ev('2026-08-19T21:30:00Z', { ...site, visitor: 'c', path: '/docs' }), // 23:30 local, the 19th
    // today, local: a at 02:00 and again at 05:00 (two visits), b at 04:00 with a custom event
    ev('2026-08-20T00:00:00Z', { ...site, visitor: 'a', path: '/pricing', channel: 'Organic Search' }),
    ev('2026-08-20T03:00:00Z', { ...site, visitor: 'a', path: '/', country: 'DE' }),
    ev('2026-08-20T02:00:00Z', { ...site, visitor: 'b', path: '/docs' }),
    ev('2026-08-20T02:05:00Z', { ...site, visitor: 'b', kind: 'ev', name: 'Signup', path: '/docs' }),
    // c reads for 45 minutes from 07:00 local; d's visit of 11:00 is still open at 12:00
    ev('2026-08-20T05:00:00Z', { ...site, visitor: 'c', path: '/docs' }),
    ev('2026-08-20T05:20:00Z', { ...site, visitor: 'c', path: '/docs/install' }),
    ev('2026-08-20T05:45:00Z', { ...site, visitor: 'c', path: '/pricing' }),
    ev('2026-08-20T09:00:00Z', {
      ...site,
      visitor: 'd',
      path: '/',
      channel: 'Referral',
      referrerHost: 'news.example',
    }),
    ev('2026-08-20T09:30:00Z', { ...site, visitor: 'd', path: '/pricing' }),
  );
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the day in progress, rolled up so far', () => {
  it('is rolled up to its oldest open visit, and reports read it with the rest raw', async () => {
    await prepare();
    const { fast, slow, read } = await bothWays();
    expect(read).toEqual({ statements: 1, days: 6 }); // 15 to 19 August whole, and today so far
    expect(fast).toEqual(slow);
    expect(fast.kpis).toMatchObject({ visits: 8, visitors: 4 });
    expect(rollupErrors).toEqual([]);
  });

  it('stays exact while the open visit goes on and new visits come (no rebuild)', async () => {
    clock = ms('2026-08-20T10:20:00Z');
    await load(
      ev('2026-08-20T09:55:00Z', { site: SITE, visitor: 'd', path: '/signup' }), // the open visit
      ev('2026-08-20T10:15:00Z', { site: SITE, visitor: 'e', path: '/', country: 'FR' }),
      ev('2026-08-20T10:16:00Z', { site: SITE, visitor: 'a', path: '/pricing', channel: 'Organic Search' }),
    );
    const { fast, slow, read } = await bothWays();
    expect(read.days).toBe(6);
    expect(fast).toEqual(slow);
    expect(fast.kpis).toMatchObject({ visits: 10, visitors: 5, pageviews: 14 });
  });

  it('is read raw once a late event changes a visit it holds, and rolled up again later', async () => {
    // c's visit of 07:00 local gains a view, 45 minutes after it seemed over: a retry come late
    await load(ev('2026-08-20T05:50:00Z', { site: SITE, visitor: 'c', path: '/blog' }));
    const raw = await bothWays();
    expect(raw.read.days).toBe(5);
    expect(raw.fast).toEqual(raw.slow);
    expect(raw.fast.breakdowns.pages.map((r) => r.value)).toContain('/blog');
    clock = ms('2026-08-20T11:30:00Z');
    await prepare();
    const again = await bothWays();
    expect(again.read.days).toBe(6);
    expect(again.fast).toEqual(again.slow);
  });

  it('is extended as the day goes on, with the rows it already has kept', async () => {
    clock = ms('2026-08-20T12:00:00Z');
    await load(ev('2026-08-20T11:55:00Z', { site: SITE, visitor: 'f', path: '/', channel: 'Email' }));
    await prepare(); // too soon after the last: nothing to do
    clock = ms('2026-08-20T13:00:00Z');
    await load(
      ev('2026-08-20T12:40:00Z', { site: SITE, visitor: 'b', path: '/docs' }),
      ev('2026-08-20T12:58:00Z', { site: SITE, visitor: 'g', path: '/' }),
    );
    await prepare();
    const queries: Record<string, string>[] = [
      { from: '2026-08-15', to: '2026-08-20', daily: '1', deep: '1' },
      { period: '30d', compare: 'previous' },
      { period: 'today', bucket: 'day' },
      { period: 'month', bucket: 'week' },
    ];
    for (const q of queries) {
      const { fast, slow, read } = await bothWays(q);
      expect(read.statements).toBe(1);
      expect(fast).toEqual(slow);
    }
  });

  it('is built whole once the day is over', async () => {
    clock = ms('2026-08-21T01:00:00Z'); // 03:00 on the 21st, local
    await load(ev('2026-08-20T21:50:00Z', { site: SITE, visitor: 'h', path: '/late-night' }));
    await prepare();
    const { fast, slow, read } = await bothWays({ from: '2026-08-15', to: '2026-08-20', daily: '1' });
    expect(read.days).toBe(6);
    expect(fast).toEqual(slow);
    expect(fast.kpis).toMatchObject({ visits: 14 });
    expect(rollupErrors).toEqual([]);
  });
});
