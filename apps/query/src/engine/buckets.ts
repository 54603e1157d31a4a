import type { Bucket, Period } from './report-params.ts';
import { offsetAt, type TimePlan } from './time-plan.ts';

/** One chart bucket: `key` matches report-sql.ts's bucket key. */
export interface BucketSlot {
  key: number;
  /** local label: `YYYY-MM-DD` (day, the Monday of a week, the 1st of a month) or `YYYY-MM-DDTHH:mm±hh:mm` */
  label: string;
  /** the instant the bucket begins, unix ms */
  startMs: number;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const QUARTER = 900_000;

/**
 * The key of the local hour an instant falls in, as report-sql.ts's `bucketKeySql('hour')`
 * computes it: the instant minus the time since the local hour began.
 */
const hourKey = (ms: number, offsetMs: number): number => ms - ((ms + offsetMs) % HOUR);

export const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY;
export const dayString = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

/** The instant at which a local wall-clock time (ms since 1970-01-01 local) happens. */
export function localToInstant(plan: TimePlan, localMs: number): number {
  const guess = localMs - offsetAt(plan, localMs);
  return localMs - offsetAt(plan, guess);
}

function offsetLabel(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMs) / 60_000;
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * Every bucket of a period in order, so a chart has empty buckets too. Hours are local hours
 * as they happen: a spring-forward day has 23 of them, a fall-back day 25 (its repeated local
 * hour carries a different offset in its label); where the clock moves by 30 minutes (Lord
 * Howe) the hour of the change lasts 30 or 90 minutes, split in two slots when it is repeated.
 */
export function bucketSlots(bucket: Bucket, period: Period, plan: TimePlan): BucketSlot[] {
  const first = dayNumber(period.from);
  const last = dayNumber(period.to);
  const slots: BucketSlot[] = [];
  if (bucket === 'hour') {
    // Walk real time in quarter hours (every offset and every change of one is a multiple of
    // 15 minutes) and open a slot whenever the local hour changes. Stepping whole hours would
    // miss the hours after a 30-minute change (Lord Howe): their events would leave the chart.
    let last = Number.NaN;
    for (let t = plan.startMs; t < plan.endMs; t += QUARTER) {
      const offset = offsetAt(plan, t);
      const key = hourKey(t, offset);
      if (key === last) continue;
      last = key;
      const local = new Date(t + offset - ((t + offset) % HOUR)).toISOString().slice(0, 16);
      slots.push({ key, label: `${local}${offsetLabel(offset)}`, startMs: t });
    }
  } else if (bucket === 'day') {
    for (let d = first; d <= last; d++) {
      slots.push({ key: d, label: dayString(d), startMs: localToInstant(plan, d * DAY) });
    }
  } else if (bucket === 'week') {
    for (let w = Math.floor((first + 3) / 7); w <= Math.floor((last + 3) / 7); w++) {
      const monday = w * 7 - 3;
      slots.push({ key: w, label: dayString(monday), startMs: localToInstant(plan, monday * DAY) });
    }
  } else {
    const monthOf = (day: number) => {
      const d = new Date(day * DAY);
      return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
    };
    for (let m = monthOf(first); m <= monthOf(last); m++) {
      const day = Date.UTC(1970 + Math.floor(m / 12), m % 12, 1) / DAY;
      slots.push({ key: m, label: dayString(day), startMs: localToInstant(plan, day * DAY) });
    }
  }
  return slots;
}
