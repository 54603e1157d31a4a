import { describe, expect, it } from 'vitest';
import { createRateTable } from './rates-table.ts';
import { histStyleXml } from './rates-test-support.ts';
import { parseEcbXml } from './rates-xml.ts';

/**
 * A week around New Year 2024: 2023-12-29 is a Friday, the 30th and 31st a weekend, 1 January a
 * TARGET holiday; KWD appears only from the 3rd, and CHF is missing on the 4th.
 */
const table = createRateTable(
  parseEcbXml(
    histStyleXml({
      '2023-12-29': { USD: '1.1050', JPY: '156.33', GBP: '0.86905', CHF: '0.9260' },
      '2024-01-02': { USD: '1.0956', JPY: '155.52', GBP: '0.86518', CHF: '0.9305' },
      '2024-01-03': { USD: '1.0919', JPY: '155.81', GBP: '0.86390', CHF: '0.9301', KWD: '0.3359' },
      '2024-01-04': { USD: '1.0953', JPY: '157.76', GBP: '0.86225', KWD: '0.3368' },
    }),
  ),
);

describe('rateOn', () => {
  it('gives the day’s own rate on a publishing day', () => {
    expect(table.rateOn('USD', '2024-01-02')).toBe(1.0956);
    expect(table.rateOn('USD', '2024-01-04')).toBe(1.0953);
  });

  it('uses the last earlier rate on a weekend and a holiday', () => {
    for (const day of ['2023-12-30', '2023-12-31', '2024-01-01']) {
      expect(table.rateOn('USD', day)).toBe(1.105);
    }
    expect(table.rateOn('USD', '2024-01-06')).toBe(1.0953);
    expect(table.rateOn('USD', '2031-07-01')).toBe(1.0953);
  });

  it('uses the currency’s own last rate when a day lacks it', () => {
    expect(table.rateOn('CHF', '2024-01-04')).toBe(0.9301);
  });

  it('has no rate before the first day, for the table or for the currency', () => {
    expect(table.rateOn('USD', '2023-12-28')).toBeUndefined();
    expect(table.rateOn('KWD', '2024-01-02')).toBeUndefined();
    expect(table.rateOn('KWD', '2024-01-03')).toBe(0.3359);
  });

  it('has no rate for a currency never published, and 1 for EUR on any day', () => {
    expect(table.rateOn('XYZ', '2024-01-03')).toBeUndefined();
    expect(table.rateOn('EUR', '1990-01-01')).toBe(1);
    expect(createRateTable(new Map()).rateOn('eur', '2024-01-03')).toBe(1);
  });

  it('normalises the code and refuses a malformed code or day', () => {
    expect(table.rateOn('usd', '2024-01-02')).toBe(1.0956);
    expect(() => table.rateOn('US$', '2024-01-02')).toThrow(RangeError);
    expect(() => table.rateOn('USD', '2/1/2024')).toThrow(/not a day/);
  });

  it('reports its days', () => {
    expect(table).toMatchObject({ days: 4, oldest: '2023-12-29', newest: '2024-01-04' });
  });
});

describe('convertMinor', () => {
  it('converts USD to GBP through EUR', () => {
    // 100.00 USD / 1.0956 × 0.86518 = 78.9686... GBP
    expect(table.convertMinor(10000, 'USD', 'GBP', '2024-01-02')).toBe(7897);
    // on the holiday, at the rates of 29 December: 100 / 1.105 × 0.86905 = 78.6470...
    expect(table.convertMinor(10000, 'usd', 'gbp', '2024-01-01')).toBe(7865);
  });

  it('honours JPY’s and KWD’s minor units', () => {
    expect(table.convertMinor(1000, 'EUR', 'JPY', '2024-01-02')).toBe(1555); // 10 € → ¥1555.2
    expect(table.convertMinor(1555, 'JPY', 'EUR', '2024-01-02')).toBe(1000); // ¥1555 → 9.9987 €
    expect(table.convertMinor(1000, 'EUR', 'KWD', '2024-01-03')).toBe(3359); // 10 € → 3.359 KWD
    expect(table.convertMinor(1000, 'KWD', 'JPY', '2024-01-03')).toBe(464); // 1 KWD → ¥463.86
  });

  it('rounds half away from zero', () => {
    const rounding = createRateTable(new Map([['2024-01-02', new Map([['USD', 1.5]])]]));
    expect(rounding.convertMinor(1, 'EUR', 'USD', '2024-01-02')).toBe(2);
    expect(rounding.convertMinor(-1, 'EUR', 'USD', '2024-01-02')).toBe(-2);
    expect(rounding.convertMinor(3, 'USD', 'EUR', '2024-01-02')).toBe(2);
    expect(rounding.convertMinor(-3, 'USD', 'EUR', '2024-01-02')).toBe(-2);
  });

  it('keeps the amount for the same currency, rate or not', () => {
    expect(table.convertMinor(1234, 'XYZ', 'xyz', '1990-01-01')).toBe(1234);
  });

  it('is undefined when either currency has no rate', () => {
    expect(table.convertMinor(1000, 'XYZ', 'EUR', '2024-01-03')).toBeUndefined();
    expect(table.convertMinor(1000, 'USD', 'XYZ', '2024-01-03')).toBeUndefined();
    expect(table.convertMinor(1000, 'USD', 'EUR', '2023-12-01')).toBeUndefined();
  });

  it('refuses a malformed code or amount', () => {
    expect(() => table.convertMinor(1000, 'dollars', 'EUR', '2024-01-03')).toThrow(/not a currency code/);
    expect(() => table.convertMinor(10.5, 'USD', 'USD', '2024-01-03')).toThrow(/safe integer/);
  });

  it('converts a report’s worth of payments quickly', () => {
    const days = new Map<string, Map<string, number>>();
    for (let d = Date.UTC(1999, 0, 4); d < Date.UTC(2025, 0, 1); d += 86_400_000) {
      const rates = new Map(['USD', 'GBP', 'JPY', 'CHF', 'SEK'].map((c, i) => [c, 1 + i + (d % 977) / 1000]));
      days.set(new Date(d).toISOString().slice(0, 10), rates);
    }
    const big = createRateTable(days);
    const started = performance.now();
    let total = 0;
    for (let i = 0; i < 100_000; i++) {
      const day = new Date(Date.UTC(2000, 0, 1) + (i % 9000) * 86_400_000).toISOString().slice(0, 10);
      total += big.convertMinor(1000 + i, 'USD', 'JPY', day) ?? 0;
    }
    expect(total).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
