import type { EmailReportKind } from '@footfall/control';
import { zoneOffset } from '../engine/clickhouse/time-plan.ts';
import type { Period } from '../engine/report-params.ts';

/**
 * When each e-mail report is due (docs/email-reports.md): the weekly one on Monday for the week
 * before (Monday to Sunday), the monthly one on the 1st for the month before, both in the site's
 * time zone, from 06:00 there (the night's late events are in by then). A service stopped over
 * that day sends it the day after; later than that, the period's report is skipped.
 */
const DAY_MS = 86_400_000;
/** The local hour from which a report is due on its day. */
export const SEND_FROM_HOUR = 6;

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The local day (YYYY-MM-DD) and hour at `ms` in a zone. */
export function localNow(timeZone: string, ms: number): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) };
}

/** The first day of the period running on `day` (a Monday, or the 1st). */
function periodStart(kind: EmailReportKind, day: string): number {
  const n = dayNumber(day);
  if (kind === 'weekly') return n - ((new Date(n * DAY_MS).getUTCDay() + 6) % 7);
  return dayNumber(`${day.slice(0, 8)}01`);
}

/** The last finished week (Monday to Sunday) or month before the one running on `day`. */
export function lastFinished(kind: EmailReportKind, day: string): Period {
  const start = periodStart(kind, day);
  if (kind === 'weekly') return { from: dayString(start - 7), to: dayString(start - 1) };
  const last = dayString(start - 1);
  return { from: `${last.slice(0, 8)}01`, to: last };
}

/** The period whose report is due at `ms` in a zone, or null when none is. */
export function duePeriod(kind: EmailReportKind, timeZone: string, ms: number): Period | null {
  const { day, hour } = localNow(timeZone, ms);
  const late = dayNumber(day) - periodStart(kind, day);
  if (late === 0 && hour < SEND_FROM_HOUR) return null;
  return late <= 1 ? lastFinished(kind, day) : null;
}

/**
 * Of several zones, the one whose local time is the earliest at `ms` (the furthest behind, its
 * UTC offset the least): a period over there is over in every other zone too.
 */
export function behindmost(zones: readonly string[], ms: number): string {
  let best = zones[0]!;
  for (const zone of zones) if (zoneOffset(zone, ms) < zoneOffset(best, ms)) best = zone;
  return best;
}
