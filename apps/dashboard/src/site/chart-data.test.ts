import { describe, expect, it } from 'vitest';
import { AXIS_STEPS, axisLabel, bucketLabel, chartSeries, noteMarks, type Point } from './chart-data.ts';

const point = (bucket: string, start: string, visitors: number): Point => ({
  bucket,
  start,
  visitors,
  visits: visitors,
  pageviews: visitors * 2,
  views_per_visit: 2,
  bounce_rate: 0.5,
  visit_duration: 30,
});

describe('chartSeries', () => {
  const hours = [0, 1, 2, 3].map((h) =>
    point(
      `2026-03-15T0${h}:00+01:00`,
      new Date(Date.parse('2026-03-14T23:00:00Z') + h * 3_600_000).toISOString(),
      h + 1,
    ),
  );

  it('marks the bucket in progress and leaves the ones to come empty', () => {
    const now = Date.parse('2026-03-15T00:30:00Z'); // 01:30 in the site's zone
    const s = chartSeries(hours, null, 'visitors', 'hour', now);
    expect(s.values).toEqual([1, 2, null, null]);
    expect(s.partial).toBe(1);
    expect(s.labels).toEqual(['00:00', '01:00', '02:00', '03:00']);
  });

  it('has no bucket in progress for a period in the past', () => {
    const s = chartSeries(hours, null, 'pageviews', 'hour', Date.parse('2026-03-20T00:00:00Z'));
    expect(s.partial).toBe(-1);
    expect(s.values).toEqual([2, 4, 6, 8]);
  });

  it('lines the comparison up bucket by bucket', () => {
    const previous = [point('2026-03-08', '2026-03-08T00:00:00Z', 7)];
    const days = [
      point('2026-03-15', '2026-03-15T00:00:00Z', 3),
      point('2026-03-16', '2026-03-16T00:00:00Z', 4),
    ];
    const s = chartSeries(days, previous, 'visitors', 'day', Date.parse('2026-03-16T12:00:00Z'));
    expect(s.compare).toEqual([7, null]);
    expect(s.compareLabels).toEqual(['8 Mar', '']);
    expect(s.partial).toBe(1);
  });
});

describe('bucketLabel', () => {
  it('reads each kind of bucket', () => {
    expect(bucketLabel('2026-03-05T14:00+01:00', 'hour', true)).toBe('5 Mar 14:00');
    expect(bucketLabel('2026-03-01', 'month')).toBe('Mar 2026');
    expect(bucketLabel('2026-03-02', 'week')).toBe('2 Mar');
  });
});

describe('noteMarks', () => {
  const note = (date: string, text: string, end_date: string | null = null) => ({ date, end_date, text });
  it('flags a note on its day, a week or month on the bucket that holds it, a span on its first day in the period', () => {
    const days = ['2026-11-01', '2026-11-02', '2026-11-03'].map((d) => point(d, `${d}T00:00:00.000Z`, 1));
    expect(
      noteMarks(days, 'day', [
        note('2026-11-02', 'launch'),
        note('2026-11-02', 'newsletter'),
        note('2026-10-20', 'sale', '2026-11-05'),
      ]),
    ).toEqual(
      new Map([
        [1, ['launch', 'newsletter']],
        [0, ['sale']],
      ]),
    );
    const weeks = ['2026-11-02', '2026-11-09'].map((d) => point(d, `${d}T00:00:00.000Z`, 1));
    expect(noteMarks(weeks, 'week', [note('2026-11-12', 'talk')])).toEqual(new Map([[1, ['talk']]]));
    const hours = [22, 23].map((h) => point(`2026-11-02T${h}:00+00:00`, `2026-11-02T${h}:00:00.000Z`, 1));
    const nextDay = point('2026-11-03T00:00+00:00', '2026-11-03T00:00:00.000Z', 1);
    expect(noteMarks([...hours, nextDay], 'hour', [note('2026-11-03', 'outage')])).toEqual(
      new Map([[2, ['outage']]]),
    );
    expect(noteMarks([], 'day', [note('2026-11-03', 'x')])).toEqual(new Map());
  });
});

describe('the x axis', () => {
  it('labels whole buckets only: a week never shows a day twice', () => {
    const week = ['22 Nov', '23 Nov', '24 Nov', '25 Nov', '26 Nov', '27 Nov', '28 Nov'];
    // splits a wide chart would choose with half steps
    const labels = [0, 0.5, 1, 1.5, 2, 2.5, 3].map((s) => axisLabel(week, s)).filter(Boolean);
    expect(labels).toEqual(['22 Nov', '23 Nov', '24 Nov', '25 Nov']);
    expect(new Set(labels).size).toBe(labels.length);
    expect(AXIS_STEPS.every(Number.isInteger)).toBe(true);
  });
});
