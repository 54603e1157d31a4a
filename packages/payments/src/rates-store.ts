import { existsSync, mkdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { replaceDurably } from '@footfall/control';
import { createRateTable, type RateTable } from './rates-table.ts';
import { type EcbRates, isDay } from './rates-xml.ts';

/**
 * The ECB reference rates kept in the data directory, in one file, `ecb-rates.csv`, laid out as
 * the ECB lays out its own eurofxref-hist.csv:
 *
 *   day,AUD,BGN,...,USD,ZAR
 *   1999-01-04,1.91,,...,1.1789,6.9358
 *
 * a header of `day` and the currency codes in alphabetical order, then one line per day in
 * ascending order, each rate the decimal the ECB published (units per 1 EUR), an empty cell where
 * the currency had no rate that day. Lines end with '\n'.
 *
 * Invariants: the file is only ever replaced whole (temp file, fsync, rename, fsync the directory),
 * so a crash leaves the old or the new rates, never a mix; a merge never drops a day already held;
 * one process writes it (whichever runs the refresh), and a store opened elsewhere sees a refresh
 * only when opened again.
 */
export const RATES_FILE = 'ecb-rates.csv';

/** A RateTable backed by the rates file in a data directory. */
export interface RateStore extends RateTable {
  /** the rates file */
  readonly path: string;
  /**
   * Adds the days of `rates` to the store and writes the file. A day already held is replaced by
   * the newer file's version of it; days the newer file does not list are kept. When the file
   * cannot be written this throws and the store is unchanged. Answers how many days were new.
   */
  merge(rates: EcbRates): { added: number };
}

const HEADER_FIRST = 'day';
const CURRENCY = /^[A-Z]{3}$/;
/** a decimal as String(number) writes it, which for a very small or large rate has an exponent */
const RATE = /^\d+(\.\d+)?(e[+-]\d+)?$/;

/** The rates file's text for `rates`. */
export function formatRatesCsv(rates: EcbRates): string {
  const currencies = new Set<string>();
  for (const day of rates.values()) for (const currency of day.keys()) currencies.add(currency);
  const columns = [...currencies].sort();
  const lines = [[HEADER_FIRST, ...columns].join(',')];
  for (const day of [...rates.keys()].sort()) {
    const row = rates.get(day);
    lines.push([day, ...columns.map((currency) => String(row?.get(currency) ?? ''))].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Reads the rates file's text; throws an Error naming the line at fault when it is damaged. */
export function parseRatesCsv(text: string): Map<string, Map<string, number>> {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const [header = '', ...rows] = lines;
  const [first, ...columns] = header.split(',');
  if (
    first !== HEADER_FIRST ||
    columns.some((c) => !CURRENCY.test(c)) ||
    new Set(columns).size < columns.length
  ) {
    throw new Error('line 1 is not a header of "day" and currency codes');
  }
  const rates = new Map<string, Map<string, number>>();
  let previous = '';
  rows.forEach((line, index) => {
    const fail = (problem: string) => new Error(`line ${index + 2}: ${problem}`);
    const [day = '', ...cells] = line.split(',');
    if (!isDay(day)) throw fail(`"${day}" is not a day`);
    if (day <= previous) throw fail(`${day} is not after ${previous}`);
    if (cells.length !== columns.length) throw fail(`${cells.length} rates for ${columns.length} currencies`);
    const row = new Map<string, number>();
    cells.forEach((cell, column) => {
      if (cell === '') return;
      const rate = RATE.test(cell) ? Number(cell) : Number.NaN;
      if (!(rate > 0 && Number.isFinite(rate))) throw fail(`"${cell}" is not a rate`);
      row.set(columns[column] as string, rate);
    });
    rates.set(day, row);
    previous = day;
  });
  return rates;
}

/** Refuses a day of rates the file could not hold: the caller built it by hand, wrongly. */
function checkDayRates(day: string, row: ReadonlyMap<string, number>): void {
  if (!isDay(day)) throw new RangeError(`not a day (YYYY-MM-DD): ${JSON.stringify(day)}`);
  for (const [currency, rate] of row) {
    if (!CURRENCY.test(currency)) throw new RangeError(`not a currency code: ${JSON.stringify(currency)}`);
    if (!(rate > 0 && Number.isFinite(rate))) throw new RangeError(`${day} ${currency}: not a rate: ${rate}`);
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

function readRatesFile(path: string): Map<string, Map<string, number>> {
  if (!existsSync(path)) return new Map();
  try {
    return parseRatesCsv(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${path} is damaged (${reason}); delete it and refresh the rates`, { cause: error });
  }
}

/**
 * Opens the rates kept in `dir` (an empty store when there is no rates file yet). Throws when the
 * file exists but is damaged, naming the file: it can be deleted and downloaded again.
 *
 * @example
 * const store = openRateStore(config.dataDir);
 * store.convertMinor(1999, 'USD', site.currency, '2024-03-31');
 */
export function openRateStore(dir: string): RateStore {
  const path = join(dir, RATES_FILE);
  let rates = readRatesFile(path);
  let table = createRateTable(rates);
  return {
    path,
    get days() {
      return table.days;
    },
    get oldest() {
      return table.oldest;
    },
    get newest() {
      return table.newest;
    },
    rateOn: (currency, day) => table.rateOn(currency, day),
    convertMinor: (amountMinor, from, to, day) => table.convertMinor(amountMinor, from, to, day),
    merge(incoming) {
      const merged = new Map(rates);
      let added = 0;
      for (const [day, row] of incoming) {
        checkDayRates(day, row);
        if (row.size === 0) continue;
        if (!merged.has(day)) added++;
        merged.set(day, new Map(row));
      }
      const text = formatRatesCsv(merged);
      mkdirSync(dir, { recursive: true });
      replaceDurably(path, (fd) => writeAll(fd, Buffer.from(text)));
      rates = merged;
      table = createRateTable(merged);
      return { added };
    },
  };
}
