/**
 * Currency codes and exact conversion of amounts in minor units (cents). A conversion rounds as
 * if computed with the decimals the ECB publishes: floating point decides whenever it cannot be
 * wrong, and a quotient close to a half is computed again exactly with BigInt.
 */

const CODE = /^[A-Z]{3}$/;
const digitsCache = new Map<string, number>();

/**
 * The upper-case ISO 4217 form of `input` ('usd' → 'USD'). Throws a RangeError for anything that
 * is not three Latin letters; whether the code is one anyone publishes a rate for is not checked.
 *
 * @example currencyCode(' eur ') // 'EUR'
 */
export function currencyCode(input: string): string {
  const code = input.trim().toUpperCase();
  if (!CODE.test(code)) throw new RangeError(`not a currency code: ${JSON.stringify(input)}`);
  return code;
}

/**
 * How many digits the currency's minor unit has, as the runtime's ICU data says: JPY 0, USD 2,
 * KWD 3. An unknown but well-formed code gets ICU's default of 2.
 *
 * @example minorDigits('JPY') // 0
 */
export function minorDigits(code: string): number {
  let digits = digitsCache.get(code);
  if (digits === undefined) {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(code, digits);
  }
  return digits;
}

/** Throws a RangeError unless `amountMinor` is a safe integer, as an amount in minor units must be. */
export function checkAmountMinor(amountMinor: number): void {
  if (!Number.isSafeInteger(amountMinor)) {
    throw new RangeError(`an amount in minor units must be a safe integer, not ${amountMinor}`);
  }
}

/** A positive decimal as an integer and a power of ten: 1.0956 → { units: 10956n, exponent: -4 }. */
interface Decimal {
  units: bigint;
  exponent: number;
}

/**
 * The decimal a finite positive number stands for, read from its shortest round-trip string, so
 * the rate parsed from "1.0956" is exactly 1.0956 here.
 */
function decimalOf(value: number): Decimal {
  const [mantissa = '', power = '0'] = String(value).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  return { units: BigInt(whole + fraction), exponent: Number(power) - fraction.length };
}

/** `amount` divided by `divisor`, rounded half away from zero. `divisor` is positive. */
function divideRounded(amount: bigint, divisor: bigint): bigint {
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  let quotient = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) quotient += 1n;
  return negative ? -quotient : quotient;
}

/** One side of a conversion: units of the currency per 1 EUR, and its minor-unit digits. */
export interface ConversionSide {
  rate: number;
  digits: number;
}

/**
 * The exact conversion, in BigInt: amount × 10^-fromDigits ÷ (f.units × 10^f.exponent)
 * × (t.units × 10^t.exponent) × 10^toDigits, rounded half away from zero.
 */
function convertExactly(amountMinor: number, from: ConversionSide, to: ConversionSide): bigint {
  const f = decimalOf(from.rate);
  const t = decimalOf(to.rate);
  const power = to.digits - from.digits + t.exponent - f.exponent;
  const numerator = BigInt(amountMinor) * t.units * 10n ** BigInt(Math.max(0, power));
  const denominator = f.units * 10n ** BigInt(Math.max(0, -power));
  return divideRounded(numerator, denominator);
}

/**
 * Converts `amountMinor` minor units of a currency worth `from.rate` units per EUR into minor units
 * of one worth `to.rate` per EUR: amount / from.rate × to.rate, with each side's minor-unit digits,
 * rounded half away from zero as if computed with the published decimals. Throws a RangeError when
 * the amount is not a safe integer, a rate is not a finite positive number, or the result is too
 * large to be a safe integer.
 *
 * @example convertMinorAtRates(1000, { rate: 1.1, digits: 2 }, { rate: 150, digits: 0 }) // 1364 (¥)
 */
export function convertMinorAtRates(amountMinor: number, from: ConversionSide, to: ConversionSide): number {
  checkAmountMinor(amountMinor);
  for (const { rate } of [from, to]) {
    if (!(Number.isFinite(rate) && rate > 0)) throw new RangeError(`not an exchange rate: ${rate}`);
  }
  // Floating point is within about 1e-15 of the exact quotient, so its rounding is the exact one
  // unless the quotient is within that of a half; those few go through BigInt.
  const approx = (amountMinor / from.rate) * to.rate * 10 ** (to.digits - from.digits);
  const magnitude = Math.abs(approx);
  const fraction = magnitude - Math.floor(magnitude);
  if (magnitude < 2 ** 50 && Math.abs(fraction - 0.5) > magnitude * 1e-12 + 1e-9) {
    const rounded = fraction > 0.5 ? Math.ceil(magnitude) : Math.floor(magnitude);
    return approx < 0 && rounded !== 0 ? -rounded : rounded;
  }
  const result = convertExactly(amountMinor, from, to);
  if (result > BigInt(Number.MAX_SAFE_INTEGER) || result < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${amountMinor} minor units convert to more than a safe integer`);
  }
  return Number(result);
}
