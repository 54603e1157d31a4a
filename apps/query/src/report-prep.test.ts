import { createLogger } from '@footfall/http';
import { describe, expect, it } from 'vitest';
import { type PrepSite, ReportPrep } from './report-prep.ts';

const logger = createLogger({ level: 'silent', name: 'test' });

/** A prep over an engine that records what it is told, on a clock the test moves. */
function setup(sites: PrepSite[]) {
  const told: PrepSite[][] = [];
  let finish: (() => void) | undefined;
  const clock = { now: 0 };
  const prep = new ReportPrep({
    engine: {
      prepare: (list) => {
        told.push([...list]);
        return new Promise((resolve) => {
          finish = () => resolve(1);
        });
      },
    },
    sites: () => sites,
    logger,
    now: () => clock.now,
    checkMs: 5_000,
    everyMs: 600_000,
  });
  const settle = async () => {
    finish?.();
    finish = undefined;
    await new Promise((r) => setImmediate(r));
  };
  return { prep, told, clock, settle };
}

describe('ReportPrep', () => {
  it('tells the engine the sites and their zones the first time the tailer catches up', async () => {
    const { prep, told, settle } = setup([{ site: 's1', timeZone: 'Europe/Berlin' }]);
    prep.caughtUp();
    expect(told).toEqual([[{ site: 's1', timeZone: 'Europe/Berlin' }]]);
    await settle();
  });

  it('tells it again at once when a site is added or its zone changes, else every everyMs', async () => {
    const sites: PrepSite[] = [{ site: 's1', timeZone: 'UTC' }];
    const { prep, told, clock, settle } = setup(sites);
    prep.caughtUp();
    await settle();
    clock.now = 6_000;
    prep.caughtUp(); // nothing changed
    expect(told).toHaveLength(1);
    sites[0] = { site: 's1', timeZone: 'Asia/Tokyo' };
    clock.now = 8_000;
    prep.caughtUp(); // read the sites less than checkMs ago
    expect(told).toHaveLength(1);
    clock.now = 12_000;
    prep.caughtUp();
    expect(told.at(-1)).toEqual([{ site: 's1', timeZone: 'Asia/Tokyo' }]);
    await settle();
    sites.push({ site: 's2', timeZone: 'UTC' });
    clock.now = 20_000;
    prep.caughtUp();
    expect(told).toHaveLength(3);
    await settle();
    clock.now = 20_000 + 600_000;
    prep.caughtUp(); // the days that ended meanwhile
    expect(told).toHaveLength(4);
    await settle();
  });

  it('asks nothing while the engine is still queuing, and nothing after stop', async () => {
    const { prep, told, clock, settle } = setup([{ site: 's1', timeZone: 'UTC' }]);
    prep.caughtUp();
    clock.now = 700_000;
    prep.caughtUp(); // the first prepare has not resolved
    expect(told).toHaveLength(1);
    const stopped = prep.stop();
    await settle();
    await stopped;
    clock.now = 2_000_000;
    prep.caughtUp();
    expect(told).toHaveLength(1);
  });

  it('goes on after the sites or the engine failed', async () => {
    let fail = true;
    const told: number[] = [];
    const clock = { now: 0 };
    const prep = new ReportPrep({
      engine: {
        prepare: async () => {
          told.push(clock.now);
          throw new Error('engine closed');
        },
      },
      sites: () => {
        if (fail) throw new Error('app.db busy');
        return [{ site: 's1', timeZone: 'UTC' }];
      },
      logger,
      now: () => clock.now,
    });
    prep.caughtUp();
    fail = false;
    clock.now = 5_000;
    prep.caughtUp();
    await new Promise((r) => setImmediate(r));
    clock.now = 5_000 + 600_000;
    prep.caughtUp();
    expect(told).toEqual([5_000, 605_000]);
    await prep.stop();
  });
});
