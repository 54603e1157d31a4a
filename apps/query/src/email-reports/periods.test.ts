import { describe, expect, it } from 'vitest';
import { duePeriod, lastFinished, localNow } from './periods.ts';

describe('e-mail report periods', () => {
  it('are the week (Monday to Sunday) and the month before', () => {
    expect(lastFinished('weekly', '2026-11-30')).toEqual({ from: '2026-11-23', to: '2026-11-29' });
    expect(lastFinished('weekly', '2026-11-29')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(lastFinished('monthly', '2026-03-01')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(lastFinished('monthly', '2026-01-17')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });

  it('are due from 06:00 on Monday or the 1st in the site’s zone, and the day after', () => {
    // Monday 30 November 2026, 05:59 and 06:00 in Berlin (UTC+1)
    expect(duePeriod('weekly', 'Europe/Berlin', Date.parse('2026-11-30T04:59:00Z'))).toBeNull();
    expect(duePeriod('weekly', 'Europe/Berlin', Date.parse('2026-11-30T05:00:00Z'))).toEqual({
      from: '2026-11-23',
      to: '2026-11-29',
    });
    // Tuesday: still due (a stop over Monday); Wednesday: skipped
    expect(duePeriod('weekly', 'Europe/Berlin', Date.parse('2026-12-01T23:00:00Z'))).toBeNull();
    expect(duePeriod('weekly', 'Europe/Berlin', Date.parse('2026-12-01T22:59:00Z'))).not.toBeNull();
    // 1 December 06:00 in Auckland is still 30 November in UTC
    expect(duePeriod('monthly', 'Pacific/Auckland', Date.parse('2026-11-30T17:00:00Z'))).toEqual({
      from: '2026-11-01',
      to: '2026-11-30',
    });
    expect(duePeriod('monthly', 'UTC', Date.parse('2026-11-30T17:00:00Z'))).toBeNull();
  });

  it('read the local day and hour', () => {
    expect(localNow('America/New_York', Date.parse('2026-11-30T04:30:00Z'))).toEqual({
      day: '2026-11-29',
      hour: 23,
    });
  });
});
