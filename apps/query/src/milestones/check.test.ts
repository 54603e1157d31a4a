import { loadConfig } from '@footfall/config';
import {
  createGoal,
  createSite,
  listMilestones,
  type Site,
  setMilestoneKinds,
  stepReached,
  updateSite,
} from '@footfall/control';
import { type TestClock, tempControlDb, testClock } from '@footfall/control/testing';
import { createLogger } from '@footfall/http';
import { createConnection } from '@footfall/payments';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryDeps } from '../deps.ts';
import { createDuckDbEngine, type Engine } from '../engine/index.ts';
import { ev, onStream } from '../engine/test-fixtures.ts';
import { CHECK_MAX_LAG, checkMilestones, latestRecord, RECORD_MIN_DAYS } from './check.ts';

/**
 * The daily milestone check on real data: a real control database and a DuckDB engine loaded as
 * the tailer loads it, the test's clock. Every number below is counted by the test from what it
 * loaded.
 */
const DAY = 86_400_000;
let clock: TestClock;
let control: ReturnType<typeof tempControlDb>;
let engine: Engine;
let site: Site;
let deps: QueryDeps;
let stream = 0;

beforeEach(async () => {
  // 2026-11-26 09:00 in Berlin (08:00 UTC): the last finished day there is 2026-11-25
  clock = testClock(Date.UTC(2026, 10, 26, 8, 0, 0));
  control = tempControlDb({ clock });
  engine = await createDuckDbEngine({ path: ':memory:', threads: 1, memoryLimit: '256MB' });
  site = await createSite(control.ctl, { domain: 'example.com', timezone: 'Europe/Berlin', currency: 'EUR' });
  deps = {
    config: loadConfig({ FOOTFALL_DATA_DIR: `${control.dir}/data` }),
    logger: createLogger({ level: 'silent', name: 'test' }),
    now: clock.now,
    control: control.ctl,
    analytics: { engine },
  } as unknown as QueryDeps;
});

afterEach(async () => {
  await engine.close();
  await control.cleanup();
});

/** One visit (one pageview) of each of `count` visitors at `at`, from `country`. */
async function visits(
  at: number,
  count: number,
  o: { prefix?: string; country?: string; path?: string } = {},
) {
  stream += 1;
  const records = Array.from({ length: count }, (_, i) =>
    ev(new Date(at + i * 1000).toISOString(), {
      site: site.id,
      visitor: `${o.prefix ?? 'v'}${at}-${i}`,
      country: o.country ?? 'DE',
      path: o.path ?? '/',
    }),
  );
  await engine.applyBatch({ records: onStream(`s${stream}`, records) });
}

const stored = () => listMilestones(control.ctl, site.id, null).map((m) => `${m.kind}:${m.step}@${m.day}`);

describe('round-number steps', () => {
  it('go 1, 2.5 and 5 times a power of ten; countries their own way', () => {
    expect(stepReached('visitors', 99)).toBeNull();
    expect(stepReached('visitors', 100)).toBe(100);
    expect(stepReached('visitors', 249)).toBe(100);
    expect(stepReached('visitors', 2_600)).toBe(2_500);
    expect(stepReached('visitors', 9_999)).toBe(5_000);
    expect(stepReached('pageviews', 1_000_000)).toBe(1_000_000);
    expect(stepReached('revenue', 7_400)).toBe(5_000);
    expect(stepReached('countries', 4)).toBeNull();
    expect(stepReached('countries', 12)).toBe(10);
    expect(stepReached('countries', 240)).toBe(200);
  });
});

describe('the daily milestone check', () => {
  it('stores the highest step reached by the end of the finished day, once', async () => {
    // 20 days of 12 visitors each (12:00 UTC), 6 countries; 265 visitors on the day before today
    const day25 = Date.UTC(2026, 10, 25, 12);
    for (let d = 20; d >= 1; d--)
      await visits(day25 - d * DAY, 12, { country: ['DE', 'FR', 'NL', 'PL', 'AT', 'IT'][d % 6] });
    await visits(day25, 25);
    // today's visits are not in it: the day has not finished
    await visits(clock.now() - 3_600_000, 300, { prefix: 'today' });
    const found = await checkMilestones(deps, site);
    expect(found.map((m) => `${m.kind}:${m.step}:${m.value}`).sort()).toEqual([
      'countries:5:6',
      'pageviews:250:265',
      'record_day:2026-11-25:25',
      'visitors:250:265',
    ]);
    expect(found.every((m) => m.day === '2026-11-25')).toBe(true);
    // again the same day: nothing new, nothing stored twice
    expect(await checkMilestones(deps, site)).toEqual([]);
    // the next day: the 300 of "today" make 565, the next step (500); no record below 300 before
    clock.advance(DAY);
    const next = await checkMilestones(deps, site);
    expect(next.map((m) => `${m.kind}:${m.step}:${m.value}`).sort()).toEqual([
      'pageviews:500:565',
      'record_day:2026-11-26:300',
      'visitors:500:565',
    ]);
    expect(stored()).toHaveLength(7);
  });

  it('needs history and visitors for a record day, and leaves out the kinds switched off', async () => {
    const day25 = Date.UTC(2026, 10, 25, 12);
    for (let d = RECORD_MIN_DAYS - 1; d >= 1; d--) await visits(day25 - d * DAY, 3);
    await visits(day25, 150);
    setMilestoneKinds(control.ctl, site.id, ['pageviews', 'record_day']);
    const found = await checkMilestones(deps, site);
    // 13 days before it are too few for a record; visitors and countries are off
    expect(found.map((m) => `${m.kind}:${m.step}`)).toEqual(['pageviews:100']);
  });

  it('tells the latest record of the days it missed while the service was down, with its date', async () => {
    const day21 = Date.UTC(2026, 10, 21, 12);
    for (let d = 19; d >= 0; d--) await visits(day21 - d * DAY, 12);
    await visits(day21 + 2 * DAY, 40); // 23 November
    await visits(day21 + 3 * DAY, 15);
    await visits(day21 + 4 * DAY, 20); // 25 November, the finished day: no record after 40
    setMilestoneKinds(control.ctl, site.id, ['record_day']);
    // the check ran on the 22nd (for the 21st: 12 is no record), then the service was down
    clock.set(Date.UTC(2026, 10, 22, 8));
    expect(await checkMilestones(deps, site)).toEqual([]);
    clock.set(Date.UTC(2026, 10, 26, 8));
    const found = await checkMilestones(deps, site);
    expect(found.map((m) => `${m.kind}:${m.step}:${m.value}@${m.day}`)).toEqual([
      'record_day:2026-11-23:40@2026-11-23',
    ]);
  });

  it('looks back from the finished day over the missed days only, at most a week', () => {
    const flat = Array.from({ length: 20 }, () => 12);
    // a record 3 days before the last: found looking back 3 days, not 2
    expect(latestRecord([...flat, 40, 15, 20, 30], 3)).toBe(20);
    expect(latestRecord([...flat, 40, 15, 20, 30], 2)).toBeNull();
    // of two records, the later; a record needs RECORD_MIN_DAYS days before it
    expect(latestRecord([...flat, 40, 50, 20], 2)).toBe(21);
    expect(latestRecord([1, 2, 3, 50], 3)).toBeNull();
  });

  it('waits while the tailer catches up on a backlog, and checks the day once it has', async () => {
    await visits(Date.UTC(2026, 10, 25, 12), 120);
    const analytics = deps.analytics as unknown as { tailer?: { lag: number } };
    analytics.tailer = { lag: CHECK_MAX_LAG + 1 };
    expect(await checkMilestones(deps, site)).toEqual([]);
    analytics.tailer = { lag: 0 };
    expect((await checkMilestones(deps, site)).map((m) => m.kind).sort()).toEqual(['pageviews', 'visitors']);
  });

  it('does nothing for a site whose milestones module is off', async () => {
    await visits(Date.UTC(2026, 10, 25, 12), 120);
    const off = await updateSite(control.ctl, site.id, { modules: { milestones: false } });
    expect(await checkMilestones(deps, off)).toEqual([]);
    expect(stored()).toEqual([]);
  });

  it('finds the first goal, the first sale and revenue in the site currency', async () => {
    await createGoal(control.ctl, site.id, { name: 'Signed up', kind: 'page', match: '/welcome' });
    await visits(Date.UTC(2026, 10, 20, 12), 3, { path: '/welcome' });
    const { connection } = createConnection(control.ctl, { siteId: site.id, provider: 'custom' });
    const pay = (id: string, at: number, amount: number, test = 0) =>
      control.ctl.raw
        .prepare(
          `INSERT INTO ledger_payments (connection_id, payment_id, site_id, at, amount, tax, currency, kind, test, inbox_seq)
           VALUES (?, ?, ?, ?, ?, 0, 'EUR', 'one_time', ?, 1)`,
        )
        .run(connection.id, id, site.id, at, amount, test);
    pay('p1', Date.UTC(2026, 10, 21, 9), 4_990);
    pay('p2', Date.UTC(2026, 10, 24, 9), 6_000);
    pay('sandbox', Date.UTC(2026, 10, 19, 9), 900_000, 1);
    // a payment today is not in the finished day
    pay('p3', clock.now() - 60_000, 50_000);
    const found = await checkMilestones(deps, site);
    expect(found.map((m) => `${m.kind}:${m.step}:${m.value}@${m.day}`).sort()).toEqual([
      'first_goal:1:3@2026-11-25',
      'first_sale:1:4990@2026-11-21',
      'revenue:100:10990@2026-11-25',
    ]);
    expect(found.find((m) => m.kind === 'first_goal')?.goal).toBe('Signed up');
    expect(found.find((m) => m.kind === 'revenue')?.currency).toBe('EUR');
  });
});
