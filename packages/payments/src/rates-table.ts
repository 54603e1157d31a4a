import { checkAmountMinor, convertMinorAtRates, currencyCode, minorDigits } from './currency.ts';
import type { EcbRates } from './rates-xml.ts';

/**
 * Lookups over ECB reference rates, for reports that convert thousands of payments: each currency
 * keeps its days sorted, and a lookup is one binary search.
 */
export interface RateTable {
  /** how many days hold rates */
  readonly days: number;
  /** the first day with rates ('YYYY-MM-DD'), if any */
  readonly oldest: string | undefined;
  /** the last day with rates ('YYYY-MM-DD'), if any */
  readonly newest: string | undefined;
  /**
   * Units of `currency` per 1 EUR on `day`: the rate of the latest day on or before `day` that has
   * one for the currency, so a weekend or holiday uses the last earlier rate. EUR is always 1.
   * undefined for a currency never published, or none published on or before the day. Throws a
   * RangeError for a code that is not three letters or a day not written 'YYYY-MM-DD'.
   */
  rateOn(currency: string, day: string): number | undefined;
  /**
   * `amountMinor` minor units of `from` in minor units of `to` at the rates of `day`, crossed
   * through EUR and rounded half away from zero (see convertMinorAtRates). The same currency gives
   * the same amount without a rate; undefined when either side has no rate on or before the day.
   */
  convertMinor(amountMinor: number, from: string, to: string, day: string): number | undefined;
}

/** One currency's days, ascending, and the rate of each. */
interface Series {
  days: string[];
  rates: number[];
}

const DAY_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

function checkDay(day: string): void {
  if (!DAY_FORMAT.test(day)) throw new RangeError(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
}

/** The index of the last element of sorted `days` that is ≤ `day`, or -1. */
function lastOnOrBefore(days: readonly string[], day: string): number {
  let low = 0;
  let high = days.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((days[middle] as string) <= day) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

function seriesOf(rates: EcbRates): Map<string, Series> {
  const series = new Map<string, Series>();
  for (const day of [...rates.keys()].sort()) {
    for (const [currency, rate] of rates.get(day) ?? []) {
      let one = series.get(currency);
      if (!one) {
        one = { days: [], rates: [] };
        series.set(currency, one);
      }
      one.days.push(day);
      one.rates.push(rate);
    }
  }
  return series;
}

/**
 * A RateTable over `rates`, which it indexes once and does not keep.
 *
 * @example
 * const table = createRateTable(parseEcbXml(xml));
 * table.rateOn('usd', '2024-01-06'); // Friday's rate on a Saturday
 * table.convertMinor(1000, 'USD', 'GBP', '2024-01-06'); // pence, or undefined if unpriced
 */
export function createRateTable(rates: EcbRates): RateTable {
  const series = seriesOf(rates);
  const allDays = [...rates.keys()].sort();
  /** The rate of an upper-case code on a well-formed day. */
  const lookup = (code: string, day: string): number | undefined => {
    if (code === 'EUR') return 1;
    const one = series.get(code);
    if (!one) return undefined;
    const index = lastOnOrBefore(one.days, day);
    return index < 0 ? undefined : one.rates[index];
  };
  return {
    days: allDays.length,
    oldest: allDays[0],
    newest: allDays.at(-1),
    rateOn(currency, day) {
      const code = currencyCode(currency);
      checkDay(day);
      return lookup(code, day);
    },
    convertMinor(amountMinor, from, to, day) {
      const fromCode = currencyCode(from);
      const toCode = currencyCode(to);
      checkDay(day);
      if (fromCode === toCode) {
        checkAmountMinor(amountMinor);
        return amountMinor;
      }
      const fromRate = lookup(fromCode, day);
      const toRate = lookup(toCode, day);
      if (fromRate === undefined || toRate === undefined) return undefined;
      return convertMinorAtRates(
        amountMinor,
        { rate: fromRate, digits: minorDigits(fromCode) },
        { rate: toRate, digits: minorDigits(toCode) },
      );
    },
  };
}
