import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, ms, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());
const open = async (now = ms('2026-03-09T12:00:00Z')) => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB', now: () => now });
};
const period = (from: string, to: string, timeZone = 'UTC') => ({
  site: 'site1',
  timeZone,
  period: { from, to },
  filters: [],
});

describe('heatmap', () => {
  it('puts visits in [weekday][hour] of the site zone with Monday first', async () => {
    await open();
    await engine.applyBatch({
      records: onStream('a', [
        // Monday 2026-03-02 09:15 in New York (14:15Z), two pageviews in one visit
        ev('2026-03-02T14:15:00Z'),
        ev('2026-03-02T14:20:00Z'),
        // Sunday 2026-03-08 23:30 in New York = Monday 03:30Z
        ev('2026-03-09T03:30:00Z', { visitor: 'v2' }),
      ]),
    });
    const h = await engine.heatmap(period('2026-03-01', '2026-03-08', 'America/New_York'));
    expect(h.weekdays[0]).toBe('Mon');
    expect(h.visits[0]?.[9]).toBe(1);
    expect(h.pageviews[0]?.[9]).toBe(2);
    expect(h.visitors[6]?.[23]).toBe(1);
    expect(h.visits.flat().reduce((a, b) => a + b, 0)).toBe(2);
  });
});

describe('retention', () => {
  it('answers a grid of empty cohorts, not null, for a period with no visits', async () => {
    await open();
    const r = await engine.retention(period('2026-03-02', '2026-03-22'));
    expect(r.cohorts).toEqual([
      { week: '2026-03-02', visitors: 0, weeks: [0, 0, 0] },
      { week: '2026-03-09', visitors: 0, weeks: [0, 0] },
      { week: '2026-03-16', visitors: 0, weeks: [0] },
    ]);
  });

  it('counts each visitor in the week of their first visit and in every later week they came back', async () => {
    await open();
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-02T10:00:00Z', { visitor: 'a' }),
        ev('2026-03-16T10:00:00Z', { visitor: 'a' }),
        ev('2026-03-03T10:00:00Z', { visitor: 'b' }),
        ev('2026-03-10T10:00:00Z', { visitor: 'b' }),
        ev('2026-03-11T10:00:00Z', { visitor: 'c' }),
      ]),
    });
    const r = await engine.retention(period('2026-03-02', '2026-03-22'));
    expect(r.cohorts).toEqual([
      { week: '2026-03-02', visitors: 2, weeks: [2, 1, 1] },
      { week: '2026-03-09', visitors: 1, weeks: [1, 0] },
      { week: '2026-03-16', visitors: 0, weeks: [0] },
    ]);
  });
});

describe('live numbers', () => {
  it('counts visitors in the last 5 and 30 minutes and lists people newest first with "more"', async () => {
    await open(ms('2026-03-09T12:00:00Z'));
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-09T11:58:00Z', { visitor: 'now1', path: '/x', country: 'FR' }),
        ev('2026-03-09T11:59:00Z', { visitor: 'now1', path: '/y' }),
        ev('2026-03-09T11:40:00Z', { visitor: 'recent1', channel: 'Email' }),
        ev('2026-03-09T11:35:00Z', { visitor: 'recent2' }),
        ev('2026-03-09T11:00:00Z', { visitor: 'old' }),
      ]),
    });
    const now = await engine.now({ site: 'site1', limit: 2 });
    expect(now).toMatchObject({ visitors_5m: 1, visitors_30m: 3, pageviews_30m: 4, more: 1 });
    expect(now.recent.map((p) => [p.visitor, p.kind, p.path, p.pageviews])).toEqual([
      ['now1', 'active', '/y', 2],
      ['recent1', 'recent', '/', 1],
    ]);
    expect(now.recent[0]).toMatchObject({
      country: 'FR',
      entry_page: '/x',
      visit_start: '2026-03-09T11:58:00.000Z',
    });
    expect('more' in (await engine.now({ site: 'site1' }))).toBe(false);
  });

  it("gives a person's pageviews of their whole current visit, also those more than 30 minutes ago", async () => {
    await open(ms('2026-03-09T12:00:00Z'));
    await engine.applyBatch({
      records: onStream('a', [
        // a visit that began 45 minutes ago: 4 pageviews, one of them before the 30-minute window
        ev('2026-03-09T11:15:00Z', { visitor: 'long', path: '/1' }),
        ev('2026-03-09T11:40:00Z', { visitor: 'long', path: '/2' }),
        ev('2026-03-09T11:50:00Z', { visitor: 'long', path: '/3' }),
        ev('2026-03-09T11:58:00Z', { visitor: 'long', path: '/4' }),
        // an earlier visit of the same person does not count
        ev('2026-03-09T09:00:00Z', { visitor: 'long', path: '/before' }),
      ]),
    });
    const now = await engine.now({ site: 'site1' });
    expect(now.recent.map((p) => [p.visitor, p.pageviews, p.entry_page, p.visit_start])).toEqual([
      ['long', 4, '/1', '2026-03-09T11:15:00.000Z'],
    ]);
    expect(now.pageviews_30m).toBe(3);
  });

  it('lists recent events newest first with their properties, keys spelt as the sender sent them', async () => {
    await open();
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-09T11:00:00Z', { path: '/a' }),
        ev('2026-03-09T11:01:00Z', {
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'pro', seats: 3, trialDays: 14 },
        }),
        ev('2026-03-09T11:02:00Z', { kind: 'en', engagedMs: 1000 }),
      ]),
    });
    const events = await engine.recentEvents({ site: 'site1', limit: 5 });
    expect(events.map((e) => [e.kind, e.name, e.props])).toEqual([
      ['ev', 'Signup', { plan: 'pro', seats: 3, trialDays: 14 }],
      ['pv', null, null],
    ]);
    expect(events[0]?.at).toBe('2026-03-09T11:01:00.000Z');
    // events keep only the visitor's key: the id comes from their visit, in the feed and a journey
    expect(events.map((e) => e.visitor)).toEqual(['v1', 'v1']);
    const journey = await engine.journey({ site: 'site1', visitor: 'v1' });
    expect(journey.visits.flatMap((v) => v.events.map((e) => [e.kind, e.visitor]))).toEqual([
      ['pv', 'v1'],
      ['ev', 'v1'],
      ['en', 'v1'],
    ]);
    expect((await engine.journey({ site: 'site1', visitor: 'v2' })).visits).toEqual([]);
  });
});
