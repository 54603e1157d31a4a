/**
 * Local dates, hours and offsets of instants in IANA time zones, from the JavaScript runtime's own
 * time zone data (Intl). Tests use them to work out the true local day and hour of an event
 * independently of the product, which asks DuckDB's ICU.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;
const QUARTER = 900_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, timeZone: string): Record<string, string> {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, f);
  }
  return Object.fromEntries(f.formatToParts(ms).map((p) => [p.type, p.value]));
}

/** The UTC offset in force at an instant, in ms (local = UTC + offset). */
export function offsetMs(ms: number, timeZone: string): number {
  const name = parts(ms, timeZone).timeZoneName ?? 'GMT';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!m) throw new Error(`unexpected offset ${name} in ${timeZone}`);
  if (m[1] === undefined) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

/** `YYYY-MM-DD` of an instant in a zone. */
export function localDate(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `YYYY-MM-DD` plus `days` days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

/** The first instant of a local date (its midnight, or the first minute after a DST gap at midnight). */
export function startOfDay(date: string, timeZone: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  // Offsets are within a day of UTC: look at every quarter hour around the wall time.
  for (let t = wall - DAY; t <= wall + DAY; t += QUARTER) {
    if (localDate(t, timeZone) === date) return t;
  }
  throw new Error(`no ${date} in ${timeZone}`);
}

/** `+hh:mm` / `-hh:mm` (UTC is `+00:00`). */
export function offsetLabel(offset: number): string {
  const minutes = Math.abs(offset) / 60_000;
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** The local hour an instant falls in, labelled with its offset: `2026-11-21T17:00-08:00`. */
export function hourLabel(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:00${offsetLabel(offsetMs(ms, timeZone))}`;
}

/** One local hour of a period: its label and the instants it covers, [startMs, endMs). */
export interface HourSlot {
  label: string;
  startMs: number;
  endMs: number;
}

/**
 * Every local hour from the start of `from` to the end of `to`, as they happen: 23 on a
 * spring-forward day, 25 on a fall-back day (the repeated hour has its own offset).
 */
export function hourSlots(from: string, to: string, timeZone: string): HourSlot[] {
  const end = startOfDay(addDays(to, 1), timeZone);
  const slots: HourSlot[] = [];
  for (let t = startOfDay(from, timeZone); t < end; t += QUARTER) {
    const label = hourLabel(t, timeZone);
    const last = slots.at(-1);
    if (last?.label === label) last.endMs = t + QUARTER;
    else slots.push({ label, startMs: t, endMs: t + QUARTER });
  }
  return slots;
}

/** True when an instant is within `guardMs` of the start of a local hour in the zone. */
export function nearHourStart(ms: number, timeZone: string, guardMs: number): boolean {
  const local = ms + offsetMs(ms, timeZone);
  const into = ((local % HOUR) + HOUR) % HOUR;
  return into < guardMs || HOUR - into < guardMs;
}
