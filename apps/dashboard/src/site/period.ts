import { t } from '../i18n/common.ts';
import { dateFormat } from '../i18n/format.ts';

/** Days as `YYYY-MM-DD` strings, computed in UTC so no local clock shift can move them. */
const DAY_MS = 86_400_000;

export type PeriodKey =
  | 'today'
  | 'yesterday'
  | '7d'
  | '28d'
  | '30d'
  | '91d'
  | 'month'
  | 'lastmonth'
  | 'year'
  | '12mo'
  | 'all'
  | 'custom';

/** The picker's choices, in its order, with the keyboard shortcut of each (named as the shortcuts list names them). */
export const PERIODS: readonly { key: PeriodKey; label: string; shortcut: string }[] = [
  { key: 'today', label: t('shortcutToday'), shortcut: 'd' },
  { key: 'yesterday', label: t('shortcutYesterday'), shortcut: 'e' },
  { key: '7d', label: t('shortcutLast7'), shortcut: 'w' },
  { key: '28d', label: t('shortcutLast28'), shortcut: 'f' },
  { key: '30d', label: t('shortcutLast30'), shortcut: 't' },
  { key: '91d', label: t('shortcutLast91'), shortcut: 'n' },
  { key: 'month', label: t('shortcutMonthToDate'), shortcut: 'm' },
  { key: 'lastmonth', label: t('shortcutLastMonth'), shortcut: 'p' },
  { key: 'year', label: t('shortcutYearToDate'), shortcut: 'y' },
  { key: '12mo', label: t('shortcutLast12Months'), shortcut: 'l' },
  { key: 'all', label: t('shortcutAllTime'), shortcut: 'a' },
  { key: 'custom', label: t('shortcutCustom'), shortcut: 'c' },
];

export const DEFAULT_PERIOD: PeriodKey = '30d';

export interface Range {
  from: string;
  to: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day in the API's range (1970 to 9999). */
export function isDay(text: string | null | undefined): text is string {
  const m = text ? DAY.exec(text) : null;
  if (!m) return false;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === text && Number(m[1]) >= 1970;
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both included. */
export function daysIn(range: Range): number {
  return (
    Math.round((Date.parse(`${range.to}T00:00:00Z`) - Date.parse(`${range.from}T00:00:00Z`)) / DAY_MS) + 1
  );
}

/** The day it is now in a time zone. */
export function todayIn(timeZone: string, now = Date.now()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

function monthStart(day: string, monthsBack = 0): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) - monthsBack;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

/**
 * The days a period covers, given today in the site's zone and the site's first day (for All
 * time). A custom range comes from `custom`; a wrong one falls back to the default period.
 */
export function resolvePeriod(
  key: PeriodKey,
  today: string,
  firstDay: string | null,
  custom?: Partial<Range>,
): Range {
  switch (key) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '28d':
      return { from: addDays(today, -27), to: today };
    case '91d':
      return { from: addDays(today, -90), to: today };
    case 'month':
      return { from: monthStart(today), to: today };
    case 'lastmonth':
      return { from: monthStart(today, 1), to: addDays(monthStart(today), -1) };
    case 'year':
      return { from: `${today.slice(0, 4)}-01-01`, to: today };
    case '12mo':
      return { from: monthStart(today, 11), to: today };
    case 'all':
      return { from: firstDay && firstDay <= today ? firstDay : today, to: today };
    case 'custom':
      if (isDay(custom?.from) && isDay(custom?.to) && custom.from <= custom.to)
        return { from: custom.from, to: custom.to };
      return resolvePeriod(DEFAULT_PERIOD, today, firstDay);
    default:
      return { from: addDays(today, -29), to: today };
  }
}

const short = dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' });
const long = dateFormat({
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const at = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** `5 Mar 2026`, or `1 Mar – 15 Mar 2026` (the year once when both share it). */
export function rangeLabel(range: Range): string {
  if (range.from === range.to) return long.format(at(range.from));
  const sameYear = range.from.slice(0, 4) === range.to.slice(0, 4);
  return `${(sameYear ? short : long).format(at(range.from))} – ${long.format(at(range.to))}`;
}

/** The periods' buckets the API accepts for a range (hours up to 31 days, as docs/api.md says). */
export function bucketsFor(range: Range): ('hour' | 'day' | 'week' | 'month')[] {
  const days = daysIn(range);
  const all: ('hour' | 'day' | 'week' | 'month')[] = [];
  if (days <= 31) all.push('hour');
  all.push('day');
  if (days >= 14) all.push('week');
  if (days >= 60) all.push('month');
  return all;
}
