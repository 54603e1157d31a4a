import { describe, expect, it } from 'vitest';
import { parseReportParams, ReportParamError } from './report-params.ts';

const NOW = Date.parse('2026-03-31T23:30:00Z');
const parse = (q: Record<string, string | string[]>, tz = 'UTC') => parseReportParams(q, tz, NOW);
const failsOn = (q: Record<string, string | string[]>) => {
  try {
    parse(q);
  } catch (error) {
    if (error instanceof ReportParamError) return error.param;
    throw error;
  }
  return 'no error';
};

describe('parseReportParams', () => {
  it('defaults to the last 30 days ending today in the site zone, with day buckets', () => {
    expect(parse({})).toMatchObject({
      period: { from: '2026-03-02', to: '2026-03-31' },
      bucket: 'day',
      compare: null,
      limit: 10,
    });
    // 23:30 UTC on March 31 is already April 1 in Berlin.
    expect(parse({}, 'Europe/Berlin').period).toEqual({ from: '2026-03-03', to: '2026-04-01' });
  });

  it('takes a named period, resolved in the site zone, but not with from or to', () => {
    expect(parse({ period: 'month' }).period).toEqual({ from: '2026-03-01', to: '2026-03-31' });
    expect(parse({ period: 'month' }, 'Europe/Berlin').period).toEqual({
      from: '2026-04-01',
      to: '2026-04-01',
    });
    expect(parse({ period: 'lastmonth', compare: 'previous' })).toMatchObject({
      period: { from: '2026-02-01', to: '2026-02-28' },
      compare: { from: '2026-01-04', to: '2026-01-31' },
    });
    expect(parse({ period: 'today' }).bucket).toBe('hour');
    expect(failsOn({ period: '7d', from: '2026-03-01' })).toBe('period');
    expect(failsOn({ period: 'all' })).toBe('period');
  });

  it('refuses dates before 1970-01-01 or after 9999-12-31, and comparisons that would start before 1970', () => {
    expect(failsOn({ to: '0000-01-01' })).toBe('to');
    expect(failsOn({ from: '1969-12-31', to: '1970-01-05' })).toBe('from');
    expect(failsOn({ from: '0000-01-01', to: '0000-01-02', compare: 'year' })).toBe('from');
    expect(failsOn({ cfrom: '1969-01-01', cto: '1969-01-02', compare: 'custom' })).toBe('cfrom');
    expect(failsOn({ from: '1970-01-01', to: '1970-01-10', compare: 'year' })).toBe('compare');
    expect(failsOn({ from: '1970-01-01', to: '1970-01-10', compare: 'previous' })).toBe('compare');
    expect(parse({ from: '1970-01-01', to: '1970-01-01' }).period).toEqual({
      from: '1970-01-01',
      to: '1970-01-01',
    });
    // open ends stay in range
    expect(parse({ to: '1970-01-05' }).period).toEqual({ from: '1970-01-01', to: '1970-01-05' });
    expect(parse({ from: '9999-12-20', to: '9999-12-31' }).period).toEqual({
      from: '9999-12-20',
      to: '9999-12-31',
    });
  });

  it('takes at most 20 filters, and daily breakdowns of at most 40,000 rows', () => {
    const filters = (n: number) => Array.from({ length: n }, (_, i) => `page:/p${i}`);
    expect(parse({ f: filters(20) }).filters).toHaveLength(20);
    expect(failsOn({ f: filters(21) })).toBe('f');
    expect(failsOn({ f: filters(300) })).toBe('f');
    expect(parse({ from: '2026-01-01', to: '2026-01-31', daily: '1', limit: '1000' }).daily).toBe(true);
    expect(failsOn({ from: '2025-01-01', to: '2026-01-31', daily: '1', limit: '1000' })).toBe('daily');
  });

  it('picks hour buckets for a day, weeks for half a year and months beyond a year', () => {
    expect(parse({ from: '2026-03-01', to: '2026-03-01' }).bucket).toBe('hour');
    expect(parse({ from: '2025-10-01', to: '2026-03-01' }).bucket).toBe('week');
    expect(parse({ from: '2024-01-01', to: '2026-03-01' }).bucket).toBe('month');
  });

  it('derives previous and year comparisons, clamping February 29', () => {
    expect(parse({ from: '2026-03-01', to: '2026-03-10', compare: 'previous' }).compare).toEqual({
      from: '2026-02-19',
      to: '2026-02-28',
    });
    expect(
      parseReportParams({ from: '2028-02-29', to: '2028-02-29', compare: 'year' }, 'UTC', NOW).compare,
    ).toEqual({
      from: '2027-02-28',
      to: '2027-02-28',
    });
  });

  it('parses repeated filters, an empty value as "none", and the daily and deep flags', () => {
    expect(parse({ f: ['channel:Email', 'referrer:', 'page:/a:b'], daily: '1', deep: '1' })).toMatchObject({
      filters: [
        { dim: 'channel', value: 'Email' },
        { dim: 'referrer', value: null },
        { dim: 'page', value: '/a:b' },
      ],
      daily: true,
      deep: true,
    });
  });

  it('names the parameter that is wrong', () => {
    expect(failsOn({ from: '2026-02-30' })).toBe('from');
    expect(failsOn({ from: '2026-03-10', to: '2026-03-01' })).toBe('to');
    expect(failsOn({ compare: 'last' })).toBe('compare');
    expect(failsOn({ compare: 'custom', cto: '2026-01-01' })).toBe('cfrom');
    expect(failsOn({ cfrom: '2026-01-01' })).toBe('cfrom');
    expect(failsOn({ bucket: 'minute' })).toBe('bucket');
    expect(failsOn({ bucket: 'hour', from: '2026-01-01', to: '2026-03-01' })).toBe('bucket');
    expect(failsOn({ f: 'colour:red' })).toBe('f');
    expect(failsOn({ daily: 'yes' })).toBe('daily');
    expect(failsOn({ limit: '0' })).toBe('limit');
    expect(failsOn({ from: ['2026-03-01', '2026-03-02'] })).toBe('from');
    expect(() => parse({}, 'Mars/Olympus')).toThrow(ReportParamError);
  });
});
