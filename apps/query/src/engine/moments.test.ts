import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

const visit = (at: string, visitor: string, fields = {}) => ev(at, { visitor, ...fields });

describe('moments', () => {
  it('replays a period: totals and busiest values per bucket, the peak, spikes and first visits ever', async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    await engine.applyBatch({
      records: onStream('a', [
        // news.example.com sent someone in February: not a first in March
        visit('2026-02-10T10:00:00Z', 'old', {
          channel: 'Referral',
          referrerHost: 'news.example.com',
          country: 'DE',
        }),
        // 1–3 March: 2 visitors a day from Germany
        ...['01', '02', '03'].flatMap((d) => [
          visit(`2026-03-${d}T09:00:00Z`, `a${d}`, { country: 'DE' }),
          visit(`2026-03-${d}T10:00:00Z`, `b${d}`, { country: 'DE' }),
        ]),
        // 4 March: 20 visitors from a new referrer (blog.example.org), one of them from France
        ...Array.from({ length: 20 }, (_, i) =>
          visit(`2026-03-04T12:${String(i).padStart(2, '0')}:00Z`, `s${i}`, {
            channel: 'Referral',
            referrerHost: 'blog.example.org',
            country: i === 0 ? 'FR' : 'DE',
            path: '/launch',
          }),
        ),
        // 5 March: two from news.example.com again (not a first), one new campaign
        visit('2026-03-05T09:00:00Z', 'n1', {
          channel: 'Referral',
          referrerHost: 'news.example.com',
          country: 'DE',
        }),
        visit('2026-03-05T09:10:00Z', 'n2', { country: 'DE', utmCampaign: 'spring', channel: 'Email' }),
      ]),
    });
    const m = await engine.moments({
      site: 'site1',
      timeZone: 'UTC',
      period: { from: '2026-03-01', to: '2026-03-05' },
      filters: [],
      bucket: 'day',
    });
    expect(m.buckets.map((b) => [b.bucket, b.visitors, b.visits])).toEqual([
      ['2026-03-01', 2, 2],
      ['2026-03-02', 2, 2],
      ['2026-03-03', 2, 2],
      ['2026-03-04', 20, 20],
      ['2026-03-05', 2, 2],
    ]);
    expect(m.buckets[3]!.top).toEqual({
      channel: { value: 'Referral', visits: 20 },
      referrer: { value: 'blog.example.org', visits: 20 },
      page: { value: '/launch', visits: 20 },
      country: { value: 'DE', visits: 19 },
    });
    expect(m.moments.map((x) => `${x.bucket} ${x.kind} ${x.value ?? '-'} ${x.count}`)).toEqual([
      '2026-03-04 peak - 20',
      '2026-03-04 first_referrer blog.example.org 20',
      '2026-03-04 first_country FR 1',
      '2026-03-05 first_campaign spring 1',
    ]);
    // a filter narrows what is replayed
    const fr = await engine.moments({
      site: 'site1',
      timeZone: 'UTC',
      period: { from: '2026-03-01', to: '2026-03-05' },
      filters: [{ dim: 'country', value: 'FR' }],
      bucket: 'hour',
    });
    expect(fr.buckets).toHaveLength(5 * 24);
    // one visit from blog.example.org among them: too few for a first referrer (3)
    expect(fr.moments.map((x) => x.kind)).toEqual(['peak', 'first_country']);
  });
});
