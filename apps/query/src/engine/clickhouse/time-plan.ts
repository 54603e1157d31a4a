import { dayNumber } from '../buckets.ts';
import type { Period } from '../report-params.ts';
import type { TimePlan } from '../time-plan.ts';

/**
 * A period's time plan (time-plan.ts) computed in JavaScript from the zone rules Node carries
 * (ICU, like DuckDB's), so a ClickHouse report asks the server one statement, not two. The same
 * plan as DuckDB's query gives: the period's first and end instants, and each offset change from
 * two days before to two days after, at the quarter hour it happens.
 */

const QUARTER = 900_000;
const STEP = 24 * QUARTER;
const MARGIN = 2 * 86_400_000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at an instant, in ms. */
export function zoneOffset(timeZone: string, ms: number): number {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  const parts: Record<string, number> = {};
  for (const { type, value } of f.formatToParts(ms)) if (type !== 'literal') parts[type] = Number(value);
  const local = Date.UTC(
    parts['year']!,
    parts['month']! - 1,
    parts['day']!,
    parts['hour']!,
    parts['minute']!,
    parts['second']!,
  );
  return local - Math.floor(ms / 1000) * 1000;
}

/** The instant a local midnight happens (days since 1970-01-01 local). */
export function midnight(timeZone: string, day: number): number {
  const local = day * DAY;
  const guess = local - zoneOffset(timeZone, local);
  return local - zoneOffset(timeZone, guess);
}

export function timePlanOf(timeZone: string, period: Period): TimePlan {
  const startMs = midnight(timeZone, dayNumber(period.from));
  const endMs = midnight(timeZone, dayNumber(period.to) + 1);
  const from = startMs - MARGIN;
  const to = endMs + MARGIN;
  let offset = zoneOffset(timeZone, from);
  const segments = [{ fromMs: Number.NEGATIVE_INFINITY, offsetMs: offset }];
  for (let t = from; t < to; t += STEP) {
    const next = Math.min(t + STEP, to);
    if (zoneOffset(timeZone, next) === offset) continue;
    // the first quarter hour after t at which the offset differs (at most one change a step)
    let lo = 0;
    let hi = Math.round((next - t) / QUARTER);
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (zoneOffset(timeZone, t + mid * QUARTER) === offset) lo = mid;
      else hi = mid;
    }
    const at = t + hi * QUARTER;
    offset = zoneOffset(timeZone, at);
    segments.push({ fromMs: at, offsetMs: offset });
  }
  return { timeZone, startMs, endMs, segments };
}
