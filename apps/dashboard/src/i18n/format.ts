import { locale } from './language.ts';

/**
 * Numbers, dates and money written in the page's locale (see language.ts). Every screen formats
 * through these, never with a locale of its own.
 */
const whole = new Intl.NumberFormat(locale);
const compactOne = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
const compactNone = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 0 });

/** A number with the locale's grouping: 1,234 · 1.234 · 1 234. */
export const formatNumber = (n: number, digits?: number): string =>
  digits === undefined
    ? whole.format(n)
    : new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
        n,
      );

/** A whole number for people: 1,234 · 12.3k · 4.5m (in German 12.345 · 4,5 Mio.). */
export function compact(n: number): string {
  if (Math.abs(n) < 10_000) return whole.format(n);
  return (Math.abs(n) < 100_000 ? compactOne : compactNone).format(n);
}

/** A share in percent, whole: 42 % in French, 42% in English. */
export const formatPercent = (ratio: number): string =>
  new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(ratio);

/** A date-time format in the page's locale (`options` as Intl.DateTimeFormat takes them). */
export const dateFormat = (options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat(locale, options);

/** A moment as people read it here: 28 Nov 2026, 10:42. */
export const formatDateTime = (iso: string | number | Date, timeZone?: string): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(
    new Date(iso),
  );

/** A day as people read it here: 28 Nov 2026. */
export const formatDate = (iso: string | number | Date, timeZone?: string): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone }).format(new Date(iso));

/** Region and language names in the page's language ("DE" is Deutschland to a German reader). */
export const regionNames =
  typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames([locale], { type: 'region' }) : null;
export const languageNames =
  typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames([locale], { type: 'language' }) : null;

/** A list joined as the language joins it: a, b and c · a, b et c. */
export const formatList = (items: string[]): string =>
  new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(items);
