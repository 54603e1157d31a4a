import { createSite } from '@footfall/control';
import { tempControlDb, testClock } from '@footfall/control/testing';
import { createLogger } from '@footfall/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine, type Engine } from './engine/index.ts';
import { parseReportParams } from './engine/report-params.ts';
import { ev, ms, onStream } from './engine/test-fixtures.ts';
import { ReportCache } from './report-cache.ts';
import { Retention } from './retention.ts';

/**
 * The daily retention job with a real control database and DuckDB engine: each site is cut at its
 * own zone's midnight, by its own setting or the instance's, once per new cutoff.
 */
const clock = testClock(ms('2026-04-01T12:00:00Z'));
let control: ReturnType<typeof tempControlDb>;
let engine: Engine;
let expires: { site: string; before: number }[];

beforeEach(async () => {
  clock.set(ms('2026-04-01T12:00:00Z'));
  control = tempControlDb({ clock });
  const real = await createDuckDbEngine({
    path: `${control.dir}/analytics.duckdb`,
    threads: 1,
    memoryLimit: '256MB',
  });
  expires = [];
  engine = Object.assign(Object.create(real) as Engine, {
    expire: (q: { site: string; before: number }) => {
      expires.push(q);
      return real.expire(q);
    },
    close: () => real.close(),
  });
});
afterEach(async () => {
  await engine.close();
  await control.cleanup();
});

const retention = (defaultDays: number | undefined) =>
  new Retention({
    analytics: { engine, cache: new ReportCache(), engineState: { ready: true, waiting: null, since: null } },
    control: control.ctl,
    defaultDays,
    logger: createLogger({ level: 'silent', name: 'test' }),
    now: clock.now,
  });

const visitsOf = async (site: string, timeZone: string) =>
  (
    await engine.report({
      site,
      timeZone,
      params: parseReportParams({ from: '2026-01-01', to: '2026-04-01' }, timeZone, clock.now()),
    })
  ).kpis.visits;

describe('the retention job', () => {
  it("cuts each site at its own zone's midnight, by its own days or the instance's, once a day", async () => {
    const own = await createSite(control.ctl, { domain: 'own.example', retentionDays: 60 });
    const zoned = await createSite(control.ctl, { domain: 'zoned.example', timezone: 'America/New_York' });
    await engine.applyBatch({
      records: onStream('a', [
        // 60 days before 1 April (UTC): 31 January, so 30 January goes and 1 February stays
        ev('2026-01-30T12:00:00Z', { site: own.id, visitor: 'a1' }),
        ev('2026-02-01T12:00:00Z', { site: own.id, visitor: 'a2' }),
        // 30 days in New York: midnight of 2 March is 05:00 UTC
        ev('2026-03-02T04:30:00Z', { site: zoned.id, visitor: 'b1' }),
        ev('2026-03-02T05:30:00Z', { site: zoned.id, visitor: 'b2' }),
      ]),
    });
    const job = retention(30);
    await job.pass();
    expect(expires).toEqual([
      { site: own.id, before: ms('2026-01-31T00:00:00Z') },
      { site: zoned.id, before: ms('2026-03-02T05:00:00Z') },
    ]);
    expect(job.counts).toMatchObject({ visits: 2, events: 2, failures: 0 });
    expect(await visitsOf(own.id, 'UTC')).toBe(1);
    expect(await visitsOf(zoned.id, 'America/New_York')).toBe(1);
    // the same day: nothing to do; after each zone's next midnight, that site only
    clock.set(ms('2026-04-01T23:00:00Z'));
    await job.pass();
    expect(expires).toHaveLength(2);
    clock.set(ms('2026-04-02T03:00:00Z'));
    await job.pass();
    expect(expires.slice(2)).toEqual([{ site: own.id, before: ms('2026-02-01T00:00:00Z') }]);
    clock.set(ms('2026-04-02T05:30:00Z'));
    await job.pass();
    expect(expires.slice(3)).toEqual([{ site: zoned.id, before: ms('2026-03-03T05:00:00Z') }]);
  });

  it('deletes nothing of a site without a setting while the instance has none', async () => {
    const kept = await createSite(control.ctl, { domain: 'kept.example' });
    await engine.applyBatch({
      records: onStream('a', [ev('2025-01-01T12:00:00Z', { site: kept.id, visitor: 'k' })]),
    });
    await retention(undefined).pass();
    expect(expires).toEqual([]);
  });
});
