import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('allows a burst, then refuses with the seconds until the next token', () => {
    const rl = new RateLimiter({ burst: 3, perSecond: 0.5 });
    expect([rl.take('a', 0), rl.take('a', 0), rl.take('a', 0)]).toEqual([0, 0, 0]);
    expect(rl.take('a', 0)).toBe(2);
    expect(rl.take('b', 0)).toBe(0);
  });

  it('refills over time up to the burst', () => {
    const rl = new RateLimiter({ burst: 2, perSecond: 1 });
    rl.take('a', 0);
    rl.take('a', 0);
    expect(rl.take('a', 500)).toBe(1);
    expect(rl.take('a', 1600)).toBe(0);
    expect(rl.take('a', 100_000)).toBe(0);
    expect(rl.take('a', 100_000)).toBe(0);
    expect(rl.take('a', 100_000)).toBeGreaterThan(0);
  });

  it('drops the keys whose bucket is full again, and keeps those still limited', () => {
    const rl = new RateLimiter({ burst: 2, perSecond: 1 });
    for (let i = 0; i < 100; i++) rl.take(`once${i}`, 0); // each full again at 1 s
    rl.take('busy', 0);
    rl.take('busy', 0); // full again at 2 s
    expect(rl.size).toBe(101);
    // the sweep at 1.2 s keeps only 'busy', whose bucket still holds less than its burst
    expect(rl.take('busy', 1200)).toBe(0);
    expect(rl.size).toBe(1);
    expect(rl.take('busy', 1200)).toBe(1);
    expect(rl.take('once0', 1200)).toBe(0); // a dropped key answers as it would have
  });

  it('stays bounded in memory, forgetting the oldest keys when too many are limited at once', () => {
    const rl = new RateLimiter({ burst: 1, perSecond: 1, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) rl.take(`k${i}`, 0);
    expect(rl.size).toBeLessThanOrEqual(100);
    expect(rl.take('k999', 0)).toBeGreaterThan(0); // recent key remembered
    // each time the bound is reached a tenth of the room is freed, not one key
    const full = new RateLimiter({ burst: 1, perSecond: 1, maxKeys: 100 });
    for (let i = 0; i < 100; i++) full.take(`a${i}`, 0);
    full.take('one more', 0);
    expect(full.size).toBe(91);
  });

  it('refuses a limit that could never pass a request or never refill', () => {
    expect(() => new RateLimiter({ burst: 0, perSecond: 1 })).toThrow(RangeError);
    expect(() => new RateLimiter({ burst: 1, perSecond: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter({ burst: 1, perSecond: Number.POSITIVE_INFINITY })).toThrow(RangeError);
  });
});
