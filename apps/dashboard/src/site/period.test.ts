import { describe, expect, it } from 'vitest';
import { addDays, bucketsFor, isDay, rangeLabel, resolvePeriod, todayIn } from './period.ts';

describe('resolvePeriod', () => {
  const today = '2026-03-15';
  it.each([
    ['today', '2026-03-15', '2026-03-15'],
    ['yesterday', '2026-03-14', '2026-03-14'],
    ['7d', '2026-03-09', '2026-03-15'],
    ['28d', '2026-02-16', '2026-03-15'],
    ['30d', '2026-02-14', '2026-03-15'],
    ['91d', '2025-12-15', '2026-03-15'],
    ['month', '2026-03-01', '2026-03-15'],
    ['lastmonth', '2026-02-01', '2026-02-28'],
    ['year', '2026-01-01', '2026-03-15'],
    ['12mo', '2025-04-01', '2026-03-15'],
    ['all', '2025-11-02', '2026-03-15'],
  ] as const)('%s is %s to %s', (key, from, to) => {
    expect(resolvePeriod(key, today, '2025-11-02')).toEqual({ from, to });
  });

  it('crosses year ends for last month', () => {
    expect(resolvePeriod('lastmonth', '2026-01-10', null)).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(resolvePeriod('12mo', '2026-01-10', null).from).toBe('2025-02-01');
  });

  it('is today for All time before any visit', () => {
    expect(resolvePeriod('all', today, null)).toEqual({ from: today, to: today });
  });

  it('takes a valid custom range and falls back from a wrong one', () => {
    expect(resolvePeriod('custom', today, null, { from: '2026-01-02', to: '2026-01-05' })).toEqual({
      from: '2026-01-02',
      to: '2026-01-05',
    });
    expect(resolvePeriod('custom', today, null, { from: '2026-01-05', to: '2026-01-02' }).to).toBe(today);
    expect(resolvePeriod('custom', today, null, { from: '2026-02-30', to: '2026-03-01' }).to).toBe(today);
  });
});

describe('days', () => {
  it('checks real days', () => {
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('1969-12-31')).toBe(false);
    expect(isDay('2026-3-1')).toBe(false);
  });

  it('adds days across months and a leap day', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('knows today in a zone', () => {
    const t = Date.parse('2026-03-15T23:30:00Z');
    expect(todayIn('UTC', t)).toBe('2026-03-15');
    expect(todayIn('Asia/Tokyo', t)).toBe('2026-03-16');
    expect(todayIn('America/Los_Angeles', t)).toBe('2026-03-15');
  });

  it('labels ranges', () => {
    expect(rangeLabel({ from: '2026-03-01', to: '2026-03-15' })).toBe('1 Mar – 15 Mar 2026');
    expect(rangeLabel({ from: '2025-12-20', to: '2026-01-03' })).toBe('20 Dec 2025 – 3 Jan 2026');
    expect(rangeLabel({ from: '2026-03-05', to: '2026-03-05' })).toBe('5 Mar 2026');
  });

  it('offers hours only up to 31 days', () => {
    expect(bucketsFor({ from: '2026-03-15', to: '2026-03-15' })).toEqual(['hour', 'day']);
    expect(bucketsFor({ from: '2026-01-01', to: '2026-03-15' })).toEqual(['day', 'week', 'month']);
  });
});
