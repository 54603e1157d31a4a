import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { likePattern } from './goals-sql.ts';
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
});
