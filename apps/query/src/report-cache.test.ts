import { describe, expect, it } from 'vitest';
import { dateRangeSpan, ReportCache } from './report-cache.ts';

/** What a batch of one event of `site` at `iso` tells the cache. */
const ev = (site: string, iso: string) => new Map([[site, { from: Date.parse(iso), to: Date.parse(iso) }]]);

describe('ReportCache', () => {
  it('serves an entry until a batch touches its site within its range', () => {
    const cache = new ReportCache();
    const nov = [dateRangeSpan('2026-11-01', '2026-11-30')];
    cache.set('k', 'a', nov, { n: 1 }, cache.generation);
    expect(cache.get('k')).toEqual({ n: 1 });
    cache.noteBatch(ev('b', '2026-11-10T10:00:00Z')); // another site
    expect(cache.get('k')).toEqual({ n: 1 });
    cache.noteBatch(ev('a', '2025-01-10T10:00:00Z')); // long before
    expect(cache.get('k')).toEqual({ n: 1 });
    cache.noteBatch(ev('a', '2026-11-10T10:00:00Z'));
    expect(cache.get('k')).toBeUndefined();
  });

  it('treats an event just outside the range as touching it (late events change earlier visits)', () => {
    const cache = new ReportCache();
    cache.set('k', 'a', [dateRangeSpan('2026-11-01', '2026-11-01')], 1, cache.generation);
    cache.noteBatch(ev('a', '2026-11-03T12:00:00Z'));
    expect(cache.get('k')).toBeUndefined();
  });

  it('drops entries older than the touches it still remembers', () => {
    const cache = new ReportCache({ maxTouches: 2 });
    cache.set('k', 'a', [dateRangeSpan('2026-11-01', '2026-11-01')], 1, cache.generation);
    for (let i = 0; i < 3; i++) cache.noteBatch(ev('b', '2020-01-01T00:00:00Z'));
    expect(cache.get('k')).toBeUndefined();
  });

  it('stores an answer as old as the generation its query started at, not the one it ended at', () => {
    const cache = new ReportCache();
    const started = cache.generation; // the query starts here...
    cache.noteBatch(ev('a', '2026-11-01T10:00:00Z')); // ...a batch commits while it runs...
    cache.set('k', 'a', [dateRangeSpan('2026-11-01', '2026-11-01')], 'maybe stale', started);
    expect(cache.get('k')).toBeUndefined(); // ...so its answer is never served
  });

  it('forgets a deleted site', () => {
    const cache = new ReportCache();
    cache.set('k', 'a', [dateRangeSpan('2026-11-01', '2026-11-01')], 1, cache.generation);
    cache.forgetSite('a');
    expect(cache.get('k')).toBeUndefined();
  });
});
