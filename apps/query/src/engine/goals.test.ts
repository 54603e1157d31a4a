import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { likePattern } from './filters.ts';
import { ev, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

describe('goals', () => {
  it('reads a path pattern as LIKE: * is anything, % _ and \\ are themselves', () => {
    expect(likePattern('/blog/*')).toBe('/blog/%');
    expect(likePattern('/100%_off\\')).toBe('/100\\%\\_off\\\\');
  });

  it("counts each goal's visitors, visits and conversions among the period's filtered visits", async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-02T10:00:00Z', { visitor: 'visitor-a', path: '/pricing' }),
        ev('2026-03-02T10:01:00Z', { visitor: 'visitor-a', path: '/thanks' }),
        ev('2026-03-02T10:02:00Z', {
          visitor: 'visitor-a',
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'pro' },
        }),
        ev('2026-03-02T10:03:00Z', {
          visitor: 'visitor-a',
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'free' },
        }),
        ev('2026-03-02T12:00:00Z', { visitor: 'visitor-b', path: '/blog/one', device: 'mobile' }),
        ev('2026-03-02T12:01:00Z', { visitor: 'visitor-b', path: '/blog/two', device: 'mobile' }),
        ev('2026-03-02T12:02:00Z', { visitor: 'visitor-b', path: '/blog', device: 'mobile' }),
        // a second visit of visitor-a, a day later
        ev('2026-03-03T09:00:00Z', { visitor: 'visitor-a', path: '/thanks' }),
        // outside the period
        ev('2026-03-10T09:00:00Z', { visitor: 'visitor-c', path: '/thanks' }),
      ]),
    });
    const goals = [
      { kind: 'page' as const, match: '/thanks', prop: null },
      { kind: 'page' as const, match: '/blog/*', prop: null },
      { kind: 'event' as const, match: 'Signup', prop: null },
      { kind: 'event' as const, match: 'Signup', prop: { key: 'plan', value: 'pro' } },
      { kind: 'event' as const, match: 'Never', prop: null },
    ];
    const q = { site: 'site1', timeZone: 'UTC', period: { from: '2026-03-01', to: '2026-03-05' } };
    expect(await engine.goals({ ...q, filters: [], goals })).toEqual([
      { visitors: 1, visits: 2, conversions: 2 },
      { visitors: 1, visits: 1, conversions: 2 },
      { visitors: 1, visits: 1, conversions: 2 },
      { visitors: 1, visits: 1, conversions: 1 },
      { visitors: 0, visits: 0, conversions: 0 },
    ]);
    // filters select the visits first
    const mobile = await engine.goals({ ...q, filters: [{ dim: 'device', value: 'mobile' }], goals });
    expect(mobile.map((g) => g.conversions)).toEqual([0, 2, 0, 0, 0]);
    expect(await engine.goals({ ...q, filters: [], goals: [] })).toEqual([]);
  });

  it("breaks an event goal down by its properties' values, and filters visits by a property or a goal", async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-02T10:00:00Z', { visitor: 'visitor-a', path: '/' }),
        ev('2026-03-02T10:01:00Z', {
          visitor: 'visitor-a',
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'pro', seats: 3 },
        }),
        ev('2026-03-02T11:00:00Z', { visitor: 'visitor-b', path: '/pricing' }),
        ev('2026-03-02T11:01:00Z', {
          visitor: 'visitor-b',
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'free' },
        }),
        ev('2026-03-02T12:00:00Z', { visitor: 'visitor-c', path: '/pricing' }),
        ev('2026-03-02T12:01:00Z', {
          visitor: 'visitor-c',
          kind: 'ev',
          name: 'Signup',
          props: { plan: 'pro', 'odd "key"': 'x' },
        }),
      ]),
    });
    const q = { site: 'site1', timeZone: 'UTC', period: { from: '2026-03-01', to: '2026-03-05' } };
    const signup = { kind: 'event' as const, match: 'Signup', prop: null };
    expect(await engine.goalProperties({ ...q, filters: [], goal: signup })).toEqual([
      { key: 'odd "key"', values: [{ value: 'x', visitors: 1, conversions: 1 }] },
      {
        key: 'plan',
        values: [
          { value: 'pro', visitors: 2, conversions: 2 },
          { value: 'free', visitors: 1, conversions: 1 },
        ],
      },
      { key: 'seats', values: [{ value: '3', visitors: 1, conversions: 1 }] },
    ]);
    expect(
      await engine.goalProperties({ ...q, filters: [], goal: { kind: 'page', match: '/*', prop: null } }),
    ).toEqual([]);
    // the whole report narrows to the visits with that property, or that reached that goal
    const pro = await engine.report({
      ...q,
      params: {
        period: q.period,
        compare: null,
        bucket: 'day',
        filters: [{ dim: 'prop', value: 'plan:pro' }],
        daily: false,
        deep: false,
        limit: 10,
      },
    });
    expect(pro.kpis.visitors).toBe(2);
    const reached = await engine.report({
      ...q,
      params: {
        period: q.period,
        compare: null,
        bucket: 'day',
        filters: [{ dim: 'goal', value: 'Pricing', goal: { kind: 'page', match: '/pricing', prop: null } }],
        daily: false,
        deep: false,
        limit: 10,
      },
    });
    expect(reached.kpis.visitors).toBe(2);
    expect(reached.breakdowns.pages.map((r) => r.value).sort()).toEqual(['/pricing']);
  });
});
