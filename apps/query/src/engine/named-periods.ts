/**
 * Periods named as the dashboard's period picker names them, resolved in the site's zone on the
 * server (`period=7d`): a URL that says which period, not which days, is the same all day long,
 * so the page's `Link` header can name the report the dashboard will ask for (dashboard.ts).
 */
export const NAMED_PERIODS = [
  'today',
  'yesterday',
  '7d',
  '28d',
  '30d',
  '91d',
  'month',
  'lastmonth',
  'year',
  '12mo',
] as const;
export type NamedPeriod = (typeof NAMED_PERIODS)[number];

const DAY_MS = 86_400_000;
const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayString(dayNumber(day) + n);

/** The first day of `day`'s month, `monthsBack` months earlier. */
function monthStart(day: string, monthsBack = 0): string {
  const [y, m] = day.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) - monthsBack;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

/** The days `period` covers when it is `today` (`YYYY-MM-DD`) in the site's zone. */
export function resolveNamedPeriod(period: NamedPeriod, today: string): { from: string; to: string } {
  switch (period) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '28d':
      return { from: addDays(today, -27), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
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
  }
}
