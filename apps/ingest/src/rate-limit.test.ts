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

  it('forgets a key once its bucket is full again, which changes no answer', () => {
    const rl = new RateLimiter({ burst: 2, perSecond: 1 });
    for (let i = 0; i < 100; i++) rl.take(`once${i}`, 0); // each full again at 1 s
    rl.take('busy', 0);
    rl.take('busy', 0); // full again at 2 s
    expect(rl.limitedKeys(0)).toBe(101);
    expect(rl.limitedKeys(1200)).toBe(1);
    expect(rl.take('busy', 1200)).toBe(0);
    expect(rl.take('busy', 1200)).toBe(1);
    expect(rl.take('once0', 1200)).toBe(0); // a forgotten key answers as it would have
    expect(rl.take('once0', 1200)).toBe(0);
    expect(rl.take('once0', 1200)).toBe(1);
  });

  it('keeps many keys apart', () => {
    const rl = new RateLimiter({ burst: 1, perSecond: 1 });
    const key = (i: number) => `198.51.${i >> 8}.${i & 255}`;
    for (let i = 0; i < 50_000; i++) expect(rl.take(key(i), 0)).toBe(0);
    // half the default bound limited at once: a set of 8 slots rarely overflows (about 0.3 % of
    // keys are forgotten early); no key ever answers for another
    let limited = 0;
    for (let i = 0; i < 50_000; i++) if (rl.take(key(i), 10) > 0) limited++;
    expect(limited).toBeGreaterThan(49_500);
    // a tenth of the bound, as real traffic keeps it: none forgotten
    const small = new RateLimiter({ burst: 1, perSecond: 1 });
    for (let i = 0; i < 5_000; i++) small.take(key(i), 0);
    expect(small.limitedKeys(10)).toBe(5_000);
  });

  it('stays bounded in memory, forgetting the keys nearest to full when too many are limited at once', () => {
    const rl = new RateLimiter({ burst: 1, perSecond: 1, maxKeys: 100 });
    expect(rl.capacity).toBe(128);
    for (let i = 0; i < 1000; i++) rl.take(`k${i}`, i);
    expect(rl.limitedKeys(1000)).toBeLessThanOrEqual(128);
    expect(rl.take('k999', 1000)).toBeGreaterThan(0); // the newest key is remembered
    // the oldest were forgotten: their buckets were the nearest to full
    let forgotten = 0;
    for (let i = 0; i < 100; i++) if (rl.take(`k${i}`, 1000) === 0) forgotten++;
    expect(forgotten).toBe(100);
  });

  it('refuses a limit that could never pass a request or never refill', () => {
    expect(() => new RateLimiter({ burst: 0, perSecond: 1 })).toThrow(RangeError);
    expect(() => new RateLimiter({ burst: 1, perSecond: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter({ burst: 1, perSecond: Number.POSITIVE_INFINITY })).toThrow(RangeError);
  });
});
