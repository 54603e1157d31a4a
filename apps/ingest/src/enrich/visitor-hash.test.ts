import { describe, expect, it } from 'vitest';
import { MemorySaltStore, siteDay, VISITOR_HASH_CHARS, visitorHash } from './visitor-hash.ts';

const ua =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36';

describe('visitorHash', () => {
  const store = new MemorySaltStore();
  const salt = store.saltFor('2025-03-01');
  const base = { salt, site: 'blog', address: '203.0.113.9', userAgent: ua };

  it('is the same for the same visitor, site and day', () => {
    expect(visitorHash(base)).toBe(visitorHash({ ...base }));
  });

  it('fits the WAL visitor field: url-safe, 8 to 64 characters', () => {
    const id = visitorHash(base);
    expect(id).toHaveLength(VISITOR_HASH_CHARS);
    expect(id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(visitorHash(base, 8)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(() => visitorHash(base, 7)).toThrow(RangeError);
  });

  it('changes with the address, the user agent, the site and the day', () => {
    const id = visitorHash(base);
    expect(visitorHash({ ...base, address: '203.0.113.10' })).not.toBe(id);
    expect(visitorHash({ ...base, userAgent: `${ua} Edg/122` })).not.toBe(id);
    expect(visitorHash({ ...base, site: 'shop' })).not.toBe(id);
    expect(visitorHash({ ...base, salt: store.saltFor('2025-03-02') })).not.toBe(id);
  });

  it('keeps field boundaries apart', () => {
    expect(visitorHash({ ...base, site: 'ab', address: 'c' })).not.toBe(
      visitorHash({ ...base, site: 'a', address: 'bc' }),
    );
  });

  it('does not contain the address in any form', () => {
    const id = visitorHash(base);
    expect(id).not.toContain('203');
    expect(Buffer.from(id, 'base64url').toString('latin1')).not.toContain('203.0.113.9');
  });
});

describe('MemorySaltStore', () => {
  it('gives 32 random bytes per day and the same salt for the same day', () => {
    const store = new MemorySaltStore();
    const a = store.saltFor('2025-03-01');
    expect(a).toHaveLength(32);
    expect(store.saltFor('2025-03-01')).toBe(a);
    expect(store.saltFor('2025-03-02').equals(a)).toBe(false);
  });

  it('forgets old days once newer ones are asked for', () => {
    const store = new MemorySaltStore(2);
    const first = store.saltFor('2025-03-01');
    store.saltFor('2025-03-02');
    store.saltFor('2025-03-03');
    expect(store.days()).toEqual(['2025-03-02', '2025-03-03']);
    expect(store.saltFor('2025-03-01').equals(first)).toBe(false);
  });
});

describe('siteDay', () => {
  it.each([
    [Date.UTC(2025, 0, 1, 3, 0), 'UTC', '2025-01-01'],
    [Date.UTC(2025, 0, 1, 3, 0), 'America/New_York', '2024-12-31'],
    [Date.UTC(2025, 0, 1, 5, 0), 'America/New_York', '2025-01-01'],
    [Date.UTC(2024, 11, 31, 23, 30), 'Asia/Tokyo', '2025-01-01'],
    [Date.UTC(2024, 11, 31, 18, 14), 'Asia/Kathmandu', '2024-12-31'],
    [Date.UTC(2024, 11, 31, 18, 15), 'Asia/Kathmandu', '2025-01-01'],
    [Date.UTC(2024, 1, 29, 12), 'Europe/Berlin', '2024-02-29'],
    [Date.UTC(2025, 2, 30, 1, 30), 'Europe/London', '2025-03-30'],
    [Date.UTC(2025, 5, 30, 12, 0), 'Pacific/Chatham', '2025-07-01'],
  ])('puts %d in %s on %s', (at, zone, day) => {
    expect(siteDay(at, zone)).toBe(day);
  });

  it('answers correctly when called over and over across a local midnight', () => {
    const midnight = Date.UTC(2025, 0, 2, 5, 0); // 00:00 in New York (UTC-5)
    for (let t = midnight - 3_600_000; t < midnight + 3_600_000; t += 60_000) {
      expect(siteDay(t, 'America/New_York')).toBe(t < midnight ? '2025-01-01' : '2025-01-02');
    }
  });

  it('refuses an unknown time zone', () => {
    expect(() => siteDay(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
