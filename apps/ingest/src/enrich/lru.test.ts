import { describe, expect, it } from 'vitest';
import { Lru } from './lru.ts';

describe('Lru', () => {
  it('returns what was stored', () => {
    const cache = new Lru<string, number>(3);
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('b')).toBeUndefined();
  });

  it('never holds more than its bound, evicting the least recently used entry', () => {
    const cache = new Lru<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a'); // a is now younger than b
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('overwrites an existing key without growing', () => {
    const cache = new Lru<string, number>(2);
    cache.set('a', 1);
    cache.set('a', 5);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBe(5);
  });

  it('keeps what is used while new keys keep coming, and stays within its bound', () => {
    const cache = new Lru<string, number>(100);
    cache.set('hot', 1);
    for (let i = 0; i < 10_000; i++) {
      cache.set(`k${i}`, i);
      expect(cache.get('hot')).toBe(1);
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k9999')).toBe(9999);
  });

  it('refuses a bound that is not an integer of at least 2', () => {
    expect(() => new Lru(0)).toThrow(RangeError);
    expect(() => new Lru(1)).toThrow(RangeError);
    expect(() => new Lru(2.5)).toThrow(RangeError);
  });
});
