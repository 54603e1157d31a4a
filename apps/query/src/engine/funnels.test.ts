import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

const page = (match: string) => ({ kind: 'page' as const, match, prop: null });
const event = (match: string, prop: { key: string; value: string } | null = null) => ({
  kind: 'event' as const,
  match,
  prop,
});
const signup = (at: string, visitor: string, fields = {}) =>
  ev(at, { visitor, kind: 'ev', name: 'Signup', props: { plan: 'pro' }, ...fields });

describe('funnels', () => {
  it('counts the visitors who went through the steps in order, within a visit or within days, exactly', async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    await engine.applyBatch({
      records: onStream('a', [
        // a: every step in one visit
        ev('2026-03-02T10:00:00Z', { visitor: 'a', path: '/' }),
        ev('2026-03-02T10:01:00Z', { visitor: 'a', path: '/pricing' }),
        signup('2026-03-02T10:02:00Z', 'a'),
        // b: pricing before home: only step one, in the order asked
        ev('2026-03-02T10:00:00Z', { visitor: 'b', path: '/pricing' }),
        ev('2026-03-02T10:01:00Z', { visitor: 'b', path: '/' }),
        // c: home and pricing in one visit, the signup in a later visit the same day
        ev('2026-03-02T09:00:00Z', { visitor: 'c', path: '/' }),
        ev('2026-03-02T09:01:00Z', { visitor: 'c', path: '/pricing' }),
        signup('2026-03-02T15:00:00Z', 'c'),
        // d: signs up without the pages
        signup('2026-03-02T11:00:00Z', 'd'),
        // e: the signup in the same millisecond as the pricing page, on mobile
        ev('2026-03-02T11:00:00Z', { visitor: 'e', path: '/', device: 'mobile' }),
        ev('2026-03-02T11:00:10Z', { visitor: 'e', path: '/pricing', device: 'mobile' }),
        signup('2026-03-02T11:00:10Z', 'e', { device: 'mobile' }),
        // f: home twice and pricing once: counted once per step
        ev('2026-03-02T12:00:00Z', { visitor: 'f', path: '/' }),
        ev('2026-03-02T12:01:00Z', { visitor: 'f', path: '/' }),
        ev('2026-03-02T12:02:00Z', { visitor: 'f', path: '/pricing/annual' }),
        // g: the signup three days after the pages: outside a one-day window, inside a seven-day one
        ev('2026-03-02T13:00:00Z', { visitor: 'g', path: '/' }),
        ev('2026-03-02T13:01:00Z', { visitor: 'g', path: '/pricing' }),
        signup('2026-03-04T13:00:00Z', 'g'),
      ]),
    });
    const q = {
      site: 'site1',
      timeZone: 'UTC',
      period: { from: '2026-03-01', to: '2026-03-05' },
      filters: [],
    };
    const steps = [page('/'), page('/pricing*'), event('Signup')];
    expect(await engine.funnel({ ...q, steps, withinDays: null })).toEqual([6, 5, 2]);
    expect(await engine.funnel({ ...q, steps, withinDays: 1 })).toEqual([6, 5, 3]);
    expect(await engine.funnel({ ...q, steps, withinDays: 7 })).toEqual([6, 5, 4]);
    // a property narrows a step; the filters narrow the visits
    expect(
      await engine.funnel({
        ...q,
        steps: [page('/'), event('Signup', { key: 'plan', value: 'free' })],
        withinDays: null,
      }),
    ).toEqual([6, 0]);
    expect(
      await engine.funnel({ ...q, filters: [{ dim: 'device', value: 'mobile' }], steps, withinDays: null }),
    ).toEqual([1, 1, 1]);
    // a period without the visits
    expect(
      await engine.funnel({ ...q, period: { from: '2026-04-01', to: '2026-04-02' }, steps, withinDays: 1 }),
    ).toEqual([0, 0, 0]);
  });
});
