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

  it('stays bounded in memory, forgetting keys not seen for a while', () => {
    const rl = new RateLimiter({ burst: 1, perSecond: 1, maxKeys: 100 });
    for (let i = 0; i < 1000; i++) rl.take(`k${i}`, 0);
    expect(rl.size).toBeLessThanOrEqual(100);
    expect(rl.take('k999', 0)).toBeGreaterThan(0); // recent key remembered
  });
});
