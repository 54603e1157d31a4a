import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

describe('the chart cards', () => {
  it('counts channels over time, first and returning visits, pages per visit and engaged time exactly', async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    const channels = [
      'Direct',
      'Organic Search',
      'Referral',
      'Email',
      'Paid Search',
      'Organic Social',
      'AI Assistant',
    ] as const;
    await engine.applyBatch({
      records: onStream('a', [
        // r: first seen in February (before the period), back on 2 March: a returning visit
        ev('2026-02-20T09:00:00Z', { visitor: 'r' }),
        ev('2026-03-02T09:00:00Z', { visitor: 'r', channel: 'Referral' }),
        // n: first visit on 2 March with 3 pages and 45 s engaged, back on 3 March (returning), 1 page
        ev('2026-03-02T10:00:00Z', { visitor: 'n', channel: 'Organic Search' }),
        ev('2026-03-02T10:01:00Z', { visitor: 'n', path: '/a', channel: 'Organic Search' }),
        ev('2026-03-02T10:01:30Z', {
          visitor: 'n',
          kind: 'en',
          path: '/a',
          engagedMs: 30_000,
          channel: 'Organic Search',
        }),
        ev('2026-03-02T10:02:00Z', { visitor: 'n', path: '/b', channel: 'Organic Search' }),
        ev('2026-03-02T10:02:30Z', {
          visitor: 'n',
          kind: 'en',
          path: '/b',
          engagedMs: 15_000,
          channel: 'Organic Search',
        }),
        ev('2026-03-03T10:00:00Z', { visitor: 'n', channel: 'Organic Search' }),
        // seven visitors, one per channel, on 3 March; the signup on the email one
        ...channels.map((channel, i) => ev('2026-03-03T12:00:00Z', { visitor: `c${i}`, channel })),
        ev('2026-03-03T12:00:05Z', { visitor: 'c3', channel: 'Email', kind: 'ev', name: 'Signup' }),
        // 12 pageviews in one visit, engaged 11 minutes
        ...Array.from({ length: 12 }, (_, i) =>
          ev(`2026-03-03T14:${String(i).padStart(2, '0')}:00Z`, { visitor: 'long', path: `/p${i}` }),
        ),
        ev('2026-03-03T14:12:00Z', { visitor: 'long', kind: 'en', path: '/p11', engagedMs: 660_000 }),
      ]),
    });
    const q = {
      site: 'site1',
      timeZone: 'UTC',
      period: { from: '2026-03-02', to: '2026-03-03' },
      filters: [],
      bucket: 'day' as const,
    };
    const charts = await engine.charts({ ...q, goals: [{ kind: 'event', match: 'Signup', prop: null }] });
    expect(charts.buckets.map((b) => b.bucket)).toEqual(['2026-03-02', '2026-03-03']);
    // Organic Search: n twice and c1; Direct: c0 and long; Referral: r and c2; then by name, five at most
    expect(charts.channels.map((c) => [c.channel, c.visits])).toEqual([
      ['Organic Search', [1, 2]],
      ['Direct', [0, 2]],
      ['Referral', [1, 1]],
      ['AI Assistant', [0, 1]],
      ['Email', [0, 1]],
      ['Other', [0, 2]],
    ]);
    expect(charts.new_vs_returning).toEqual({ first: [1, 8], returning: [1, 1] });
    expect(charts.pages_per_visit).toEqual([
      { pages: '1', visits: 9 },
      { pages: '2', visits: 0 },
      { pages: '3', visits: 1 },
      { pages: '4–5', visits: 0 },
      { pages: '6–10', visits: 0 },
      { pages: '11+', visits: 1 },
    ]);
    expect(charts.engaged_time.map((b) => b.visits)).toEqual([9, 0, 1, 0, 0, 1]);
    expect(charts.conversions).toEqual({ visits: [0, 1] });
    // filters narrow every card; without goals there is no conversions card
    const email = await engine.charts({
      ...q,
      filters: [{ dim: 'channel', value: 'Email' }],
      goals: null,
    });
    expect(email.channels).toEqual([{ channel: 'Email', visits: [0, 1], total: 1 }]);
    expect(email.pages_per_visit[0]?.visits).toBe(1);
    expect(email.conversions).toBeNull();
  });
});
