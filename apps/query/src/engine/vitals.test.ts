import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, ms, onStream } from './test-fixtures.ts';
import { VITAL_THRESHOLDS } from './vitals.ts';

let engine: Engine;
afterEach(async () => engine?.close());

/** The nearest-rank percentile, computed here on its own: the ⌈q·n⌉-th smallest sample. */
const rank = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.ceil(q * values.length) - 1]!;

describe('vitals', () => {
  it('answers exact nearest-rank percentiles, the shares by Google thresholds, and p75 per page, device and day', async () => {
    engine = await createDuckDbEngine({
      path: ':memory:',
      threads: 2,
      memoryLimit: '256MB',
      now: () => ms('2026-03-09T12:00:00Z'),
    });
    // LCP samples: desktop on / and mobile on /pricing, over two days; INP on some only
    const home = [1200, 1800, 2500, 2600, 3900, 4100];
    const pricing = [900, 5200, 2400];
    const records = [
      ev('2026-03-02T10:00:00Z', { visitor: 'v1', path: '/' }),
      ...home.map((lcp, i) =>
        ev(`2026-03-02T10:0${i}:30Z`, {
          kind: 'vt',
          visitor: 'v1',
          path: '/',
          lcp,
          ...(i < 3 ? { inp: 100 + i * 150 } : {}),
        }),
      ),
      ev('2026-03-03T09:00:00Z', {
        visitor: 'v2',
        path: '/pricing',
        device: 'mobile',
        channel: 'Organic Search',
      }),
      ...pricing.map((lcp, i) =>
        ev(`2026-03-03T09:0${i}:30Z`, {
          kind: 'vt',
          visitor: 'v2',
          path: '/pricing',
          device: 'mobile',
          lcp,
          cls: [0.05, 0.12, 0.3][i],
        }),
      ),
    ];
    await engine.applyBatch({ records: onStream('a', records) });
    const q = {
      site: 'site1',
      timeZone: 'UTC',
      period: { from: '2026-03-01', to: '2026-03-08' },
      filters: [],
    };
    const v = await engine.vitals(q);
    const all = [...home, ...pricing];
    expect(v.samples).toBe(9);
    expect(v.metrics.lcp).toEqual({
      unit: 'ms',
      samples: 9,
      p50: rank(all, 0.5),
      p75: rank(all, 0.75),
      p90: rank(all, 0.9),
      good: all.filter((x) => x <= 2500).length / 9,
      needs_improvement: all.filter((x) => x > 2500 && x <= 4000).length / 9,
      poor: all.filter((x) => x > 4000).length / 9,
      thresholds: VITAL_THRESHOLDS.lcp,
    });
    expect(v.metrics.lcp.p75).toBe(3900);
    // INP: 100, 250, 400 → good, needs improvement, needs improvement
    expect(v.metrics.inp).toMatchObject({
      samples: 3,
      p75: 400,
      good: 1 / 3,
      needs_improvement: 2 / 3,
      poor: 0,
    });
    expect(v.metrics.cls).toMatchObject({
      unit: 'score',
      samples: 3,
      p75: 0.3,
      good: 1 / 3,
      needs_improvement: 1 / 3,
      poor: 1 / 3,
    });
    expect(v.metrics.ttfb).toMatchObject({ samples: 0, p75: null, good: 0, poor: 0 });
    expect(v.pages).toEqual([
      { value: '/', samples: 6, lcp: rank(home, 0.75), inp: 400, cls: null, fcp: null, ttfb: null },
      {
        value: '/pricing',
        samples: 3,
        lcp: rank(pricing, 0.75),
        inp: null,
        cls: 0.3,
        fcp: null,
        ttfb: null,
      },
    ]);
    expect(v.devices.map((d) => [d.value, d.samples, d.lcp])).toEqual([
      ['desktop', 6, rank(home, 0.75)],
      ['mobile', 3, rank(pricing, 0.75)],
    ]);
    expect(v.chart.map((d) => [d.day, d.samples, d.lcp])).toEqual([
      ['2026-03-02', 6, rank(home, 0.75)],
      ['2026-03-03', 3, rank(pricing, 0.75)],
    ]);
    // a visit filter keeps the samples of the visits it matches
    const search = await engine.vitals({
      ...q,
      filters: [{ dim: 'channel', value: 'Organic Search' }],
    });
    expect(search.samples).toBe(3);
    expect(search.metrics.lcp.p75).toBe(rank(pricing, 0.75));
    // another period has none
    expect((await engine.vitals({ ...q, period: { from: '2026-02-01', to: '2026-02-28' } })).samples).toBe(0);
  });
});
