import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRatesCsv, openRateStore, parseRatesCsv, RATES_FILE } from './rates-store.ts';
import { histStyleXml } from './rates-test-support.ts';
import { parseEcbXml } from './rates-xml.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ff-rates-'));
  dirs.push(dir);
  return dir;
};

const OLDER = parseEcbXml(
  histStyleXml({
    '2024-01-02': { USD: '1.0956', JPY: '155.52' },
    '2024-01-03': { USD: '1.0919', JPY: '155.81' },
  }),
);
const NEWER = parseEcbXml(
  histStyleXml({
    '2024-01-03': { USD: '1.0920', GBP: '0.86390' },
    '2024-01-04': { USD: '1.0953', JPY: '157.76', GBP: '0.86225' },
  }),
);

describe('openRateStore', () => {
  it('starts empty in a directory without a rates file, and writes nothing until a merge', () => {
    const dir = temp();
    const store = openRateStore(dir);
    expect(store).toMatchObject({ days: 0, oldest: undefined, newest: undefined });
    expect(store.rateOn('USD', '2024-01-03')).toBeUndefined();
    expect(store.rateOn('EUR', '2024-01-03')).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps its rates across a reopen', () => {
    const dir = temp();
    expect(openRateStore(dir).merge(OLDER)).toEqual({ added: 2 });
    const again = openRateStore(dir);
    expect(again).toMatchObject({ days: 2, oldest: '2024-01-02', newest: '2024-01-03' });
    expect(again.rateOn('JPY', '2024-01-05')).toBe(155.81);
    expect(again.convertMinor(1000, 'EUR', 'USD', '2024-01-02')).toBe(1096);
    expect(readdirSync(dir)).toEqual([RATES_FILE]);
  });

  it('merges a newer file without losing older days; a day in both takes the newer version', () => {
    const dir = temp();
    const store = openRateStore(dir);
    store.merge(OLDER);
    expect(store.merge(NEWER)).toEqual({ added: 1 });
    for (const view of [store, openRateStore(dir)]) {
      expect(view).toMatchObject({ days: 3, oldest: '2024-01-02', newest: '2024-01-04' });
      expect(view.rateOn('USD', '2024-01-02')).toBe(1.0956);
      expect(view.rateOn('USD', '2024-01-03')).toBe(1.092);
      // the newer file's 3 January has no JPY: the day is replaced, so JPY falls back to the 2nd
      expect(view.rateOn('JPY', '2024-01-03')).toBe(155.52);
      expect(view.rateOn('GBP', '2024-01-02')).toBeUndefined();
      expect(view.rateOn('GBP', '2024-01-03')).toBe(0.8639);
    }
  });

  it('writes the ECB’s own CSV layout: a header, one line per day, empty cells for missing rates', () => {
    const dir = temp();
    const store = openRateStore(dir);
    store.merge(OLDER);
    store.merge(NEWER);
    expect(readFileSync(store.path, 'utf8')).toBe(
      'day,GBP,JPY,USD\n2024-01-02,,155.52,1.0956\n2024-01-03,0.8639,,1.092\n2024-01-04,0.86225,157.76,1.0953\n',
    );
  });

  it('leaves the store and its file unchanged when the file cannot be written', () => {
    const parent = temp();
    const dir = join(parent, 'data');
    const store = openRateStore(dir);
    store.merge(OLDER);
    const before = readFileSync(store.path, 'utf8');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, before); // a file where the directory was: nothing can be written into it
    expect(() => store.merge(NEWER)).toThrow();
    expect(store).toMatchObject({ days: 2, newest: '2024-01-03' });
    expect(store.rateOn('USD', '2024-01-04')).toBe(1.0919);
  });

  it('refuses a day it could not store', () => {
    const store = openRateStore(temp());
    expect(() => store.merge(new Map([['2024-1-2', new Map([['USD', 1]])]]))).toThrow(/not a day/);
    expect(() => store.merge(new Map([['2024-01-02', new Map([['usd', 1]])]]))).toThrow(/currency code/);
    expect(() => store.merge(new Map([['2024-01-02', new Map([['USD', -1]])]]))).toThrow(/not a rate/);
    expect(store.days).toBe(0);
  });

  it('refuses to open a damaged file, naming it', () => {
    const dir = temp();
    writeFileSync(join(dir, RATES_FILE), 'day,USD\n2024-01-02,1.0956\n2024-01-03,1.09x\n');
    expect(() => openRateStore(dir)).toThrow(/ecb-rates\.csv is damaged \(line 3: "1\.09x" is not a rate\)/);
  });
});

describe('the rates file', () => {
  it('reads back what it writes, tiny and huge rates included', () => {
    const rates = new Map([
      [
        '2024-01-02',
        new Map([
          ['AAA', 1e-7],
          ['BBB', 123456.789],
          ['CCC', 3e21],
        ]),
      ],
      ['2024-01-03', new Map([['BBB', 0.5]])],
    ]);
    expect(parseRatesCsv(formatRatesCsv(rates))).toEqual(rates);
  });

  it('refuses a bad header, days out of order, and rows of the wrong width', () => {
    expect(() => parseRatesCsv('date,USD\n')).toThrow(/line 1/);
    expect(() => parseRatesCsv('day,USD,USD\n')).toThrow(/line 1/);
    expect(() => parseRatesCsv('day,USD\n2024-01-03,1\n2024-01-02,1\n')).toThrow(
      /line 3: 2024-01-02 is not after/,
    );
    expect(() => parseRatesCsv('day,USD\n2024-01-02,1,2\n')).toThrow(/line 2: 2 rates for 1 currencies/);
    expect(() => parseRatesCsv('day,USD\n2024-02-30,1\n')).toThrow(/line 2: "2024-02-30" is not a day/);
  });
});
