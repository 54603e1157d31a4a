import { describe, expect, it } from 'vitest';
import { convertMinorAtRates, currencyCode, minorDigits } from './currency.ts';

const eur = { rate: 1, digits: 2 };

describe('currencyCode', () => {
  it('upper-cases and trims a three-letter code', () => {
    expect(currencyCode('usd')).toBe('USD');
    expect(currencyCode(' Jpy ')).toBe('JPY');
  });

  it('refuses anything that is not three letters', () => {
    for (const bad of ['', 'US', 'USDT', 'US$', '€', 'U S', '123', 'ÜSD']) {
      expect(() => currencyCode(bad)).toThrow(RangeError);
    }
  });
});

describe('minorDigits', () => {
  it('knows currencies without, with two and with three minor digits', () => {
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('USD')).toBe(2);
    expect(minorDigits('EUR')).toBe(2);
    expect(minorDigits('KWD')).toBe(3);
  });
});

describe('convertMinorAtRates', () => {
  it('crosses through EUR: amount / from rate × to rate', () => {
    // 100.00 USD at 1.0956 USD/EUR is 91.2742... EUR, at 0.86518 GBP/EUR 78.9686... GBP
    expect(convertMinorAtRates(10000, { rate: 1.0956, digits: 2 }, { rate: 0.86518, digits: 2 })).toBe(7897);
  });

  it('honours minor-unit digits on each side', () => {
    // 10.00 EUR → 1555.2 JPY → 1555 yen; 1555 yen → 10.00 EUR
    expect(convertMinorAtRates(1000, eur, { rate: 155.52, digits: 0 })).toBe(1555);
    expect(convertMinorAtRates(1555, { rate: 155.52, digits: 0 }, eur)).toBe(1000);
    // 10.00 EUR → 3.359 KWD = 3359 fils
    expect(convertMinorAtRates(1000, eur, { rate: 0.3359, digits: 3 })).toBe(3359);
    // 1.000 KWD → 1 / 0.3359 × 1.0956 = 3.2617... USD
    expect(convertMinorAtRates(1000, { rate: 0.3359, digits: 3 }, { rate: 1.0956, digits: 2 })).toBe(326);
  });

  it('rounds half away from zero, exactly, refunds included', () => {
    expect(convertMinorAtRates(1, eur, { rate: 1.5, digits: 2 })).toBe(2);
    expect(convertMinorAtRates(-1, eur, { rate: 1.5, digits: 2 })).toBe(-2);
    expect(convertMinorAtRates(1, eur, { rate: 1.49999, digits: 2 })).toBe(1);
    expect(convertMinorAtRates(-1, eur, { rate: 1.49999, digits: 2 })).toBe(-1);
    // In binary floating point 1.005 × 1000 is 1004.9999999999999: exact decimals round it up.
    expect(convertMinorAtRates(1000, eur, { rate: 1.005, digits: 1 })).toBe(101);
    expect(convertMinorAtRates(15, eur, { rate: 0.1, digits: 2 })).toBe(2);
    expect(convertMinorAtRates(0, eur, { rate: 7.4, digits: 2 })).toBe(0);
  });

  it('rounds as exact decimal arithmetic does, for many amounts and rates', () => {
    /** The conversion done by hand on decimal strings: a reference independent of the code. */
    const reference = (amount: bigint, from: string, fromDigits: number, to: string, toDigits: number) => {
      const [fw = '', ff = ''] = from.split('.');
      const [tw = '', tf = ''] = to.split('.');
      // amount / 10^fd / (F / 10^ff) * (T / 10^tf) * 10^td  =  amount * T * 10^(ff + td) / (F * 10^(fd + tf))
      const n = amount * BigInt(tw + tf) * 10n ** BigInt(ff.length + toDigits);
      const d = BigInt(fw + ff) * 10n ** BigInt(fromDigits + tf.length);
      const [m, sign] = n < 0n ? [-n, -1n] : [n, 1n];
      return sign * (m / d + ((m % d) * 2n >= d ? 1n : 0n));
    };
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const rateText = () =>
      `${random(2000)}.${String(random(100_000)).padStart(5, '0')}`.replace(/^0\.0+$/, '0.5');
    for (let i = 0; i < 20_000; i++) {
      const from = rateText();
      const to = rateText();
      const fromDigits = random(4);
      const toDigits = random(4);
      const amount = random(2_000_000) - 1_000_000;
      expect(
        convertMinorAtRates(
          amount,
          { rate: Number(from), digits: fromDigits },
          { rate: Number(to), digits: toDigits },
        ),
      ).toBe(Number(reference(BigInt(amount), from, fromDigits, to, toDigits)));
    }
    // ties, which floating point alone would get wrong half the time
    for (let amount = -500; amount <= 500; amount++) {
      expect(convertMinorAtRates(amount, { rate: 2, digits: 2 }, { rate: 1, digits: 2 })).toBe(
        Number(reference(BigInt(amount), '2', 2, '1', 2)),
      );
      expect(convertMinorAtRates(amount, eur, { rate: 0.125, digits: 1 })).toBe(
        Number(reference(BigInt(amount), '1', 2, '0.125', 1)),
      );
    }
  });

  it('refuses an amount that is not a safe integer, a bad rate and an overflowing result', () => {
    expect(() => convertMinorAtRates(1.5, eur, eur)).toThrow(/safe integer/);
    expect(() => convertMinorAtRates(Number.NaN, eur, eur)).toThrow(/safe integer/);
    expect(() => convertMinorAtRates(1, { rate: 0, digits: 2 }, eur)).toThrow(/not an exchange rate/);
    expect(() => convertMinorAtRates(1, eur, { rate: Number.POSITIVE_INFINITY, digits: 2 })).toThrow(
      /not an exchange rate/,
    );
    expect(() => convertMinorAtRates(Number.MAX_SAFE_INTEGER, eur, { rate: 17000, digits: 2 })).toThrow(
      /more than a safe integer/,
    );
  });
});
