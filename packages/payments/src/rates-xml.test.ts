import { describe, expect, it } from 'vitest';
import { dailyStyleXml, histStyleXml } from './rates-test-support.ts';
import { isDay, parseEcbXml } from './rates-xml.ts';

/** eurofxref-daily.xml as the ECB serves it, byte for byte in layout (rates of 2024-01-05). */
const DAILY = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='2024-01-05'>
\t\t\t<Cube currency='USD' rate='1.0921'/>
\t\t\t<Cube currency='JPY' rate='158.48'/>
\t\t\t<Cube currency='GBP' rate='0.86143'/>
\t\t\t<Cube currency='KWD' rate='0.3359'/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;

const SAMPLE = {
  '2024-01-02': { USD: '1.0956', JPY: '155.52', GBP: '0.86518' },
  '2024-01-03': { USD: '1.0919', JPY: '155.81', GBP: '0.86390' },
  '2024-01-04': { USD: '1.0953', JPY: '157.76', GBP: '0.86225' },
};

describe('parseEcbXml', () => {
  it('reads the daily file with single-quoted attributes', () => {
    const rates = parseEcbXml(DAILY);
    expect([...rates.keys()]).toEqual(['2024-01-05']);
    expect(Object.fromEntries(rates.get('2024-01-05') ?? [])).toEqual({
      USD: 1.0921,
      JPY: 158.48,
      GBP: 0.86143,
      KWD: 0.3359,
    });
  });

  it('reads a history file with double quotes and several days, newest first', () => {
    const rates = parseEcbXml(histStyleXml(SAMPLE));
    expect([...rates.keys()].sort()).toEqual(['2024-01-02', '2024-01-03', '2024-01-04']);
    expect(rates.get('2024-01-03')?.get('GBP')).toBe(0.8639);
    expect(rates.get('2024-01-04')?.get('JPY')).toBe(157.76);
  });

  it('reads the same rates whichever layout and quote style the file uses', () => {
    const a = parseEcbXml(histStyleXml(SAMPLE));
    const b = parseEcbXml(dailyStyleXml(SAMPLE));
    expect([...b].map(([d, r]) => [d, [...r]]).sort()).toEqual([...a].map(([d, r]) => [d, [...r]]).sort());
  });

  it('ignores elements it does not know, comments and attributes holding ">"', () => {
    const xml = DAILY.replace(
      '\t<Cube>',
      '\t<!-- a <Cube time="1999-01-01"> in a comment --><note say="a > b"><p>text</p></note>\n\t<Cube>',
    ).replace(`<Cube currency='USD'`, `<extra/><Cube source="x" currency='USD'`);
    const rates = parseEcbXml(xml);
    expect([...rates.keys()]).toEqual(['2024-01-05']);
    expect(rates.get('2024-01-05')?.get('USD')).toBe(1.0921);
  });

  it('skips a day that lists no rate', () => {
    const xml = DAILY.replace(
      '\t<Cube>\n',
      `\t<Cube>\n<Cube time='2024-01-06'/><Cube time='2024-01-07'></Cube>`,
    );
    expect([...parseEcbXml(xml).keys()]).toEqual(['2024-01-05']);
  });

  it('refuses a file with no day at all', () => {
    expect(() => parseEcbXml(DAILY.replace(/\t\t<Cube time[\s\S]*?\t\t<\/Cube>\n/, ''))).toThrow(
      /no day with rates/,
    );
    expect(() => parseEcbXml('<html><body>Service unavailable</body></html>')).toThrow(/no day/);
    expect(() => parseEcbXml('')).toThrow(/no day/);
  });

  it('refuses a malformed rate, naming the currency and the line', () => {
    for (const bad of ['', '1,0921', '-1.0921', '0', '1.09.21', 'NaN', '1e3', ' 1.0921']) {
      expect(() => parseEcbXml(DAILY.replace("rate='1.0921'", `rate='${bad}'`))).toThrow(
        /USD rate .* is not a rate \(line 9\)/,
      );
    }
    expect(() => parseEcbXml(DAILY.replace(" rate='1.0921'", ''))).toThrow(/USD rate "" is not a rate/);
  });

  it('refuses a malformed day or currency code', () => {
    expect(() => parseEcbXml(DAILY.replace('2024-01-05', '2024-02-30'))).toThrow(/not a date/);
    expect(() => parseEcbXml(DAILY.replace('2024-01-05', '05.01.2024'))).toThrow(/not a date/);
    expect(() => parseEcbXml(DAILY.replace("'USD'", "'usd'"))).toThrow(/currency "usd" is not a code/);
  });

  it('refuses a file cut short, as a broken download would be', () => {
    const hist = histStyleXml(SAMPLE);
    expect(() => parseEcbXml(hist.slice(0, hist.indexOf('2024-01-03') + 40))).toThrow(/cut short|tag/);
    expect(() => parseEcbXml(DAILY.replace('</gesmes:Envelope>', ''))).toThrow(/never closed/);
  });

  it('refuses tags that do not nest, a rate outside a day, and repeats', () => {
    expect(() => parseEcbXml(DAILY.replace('\t\t</Cube>\n\t</Cube>', '\t</Cube>'))).toThrow(
      /<\/gesmes:Envelope> closes nothing open \(line 14\)/,
    );
    expect(() => parseEcbXml(DAILY.replace('</gesmes:Sender>', '</Sender>'))).toThrow(/closes nothing/);
    expect(() => parseEcbXml(DAILY.replace('\t<Cube>', `\t<Cube currency='USD' rate='1'/><Cube>`))).toThrow(
      /outside any day/,
    );
    expect(() => parseEcbXml(DAILY.replace('KWD', 'USD'))).toThrow(/USD appears twice/);
    const twice = histStyleXml(SAMPLE).replace('2024-01-03', '2024-01-02');
    expect(() => parseEcbXml(twice)).toThrow(/day 2024-01-02 appears twice/);
  });
});

describe('isDay', () => {
  it('accepts real dates written YYYY-MM-DD only', () => {
    expect(['2024-02-29', '1999-01-04'].every(isDay)).toBe(true);
    expect(['2023-02-29', '2024-13-01', '2024-1-05', '2024-01-05T00:00', ''].some(isDay)).toBe(false);
  });
});
