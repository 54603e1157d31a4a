/**
 * ECB rate files for tests, written out in the ECB's own layout: eurofxref-daily.xml puts each
 * element on its own line with single quotes, eurofxref-hist*.xml one day per line with double
 * quotes. The rates are given as the strings the ECB would print.
 */
export type SampleDays = Record<string, Record<string, string>>;

const HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
`;

/** Days newest first, as the ECB lists them. */
const newestFirst = (days: SampleDays) => Object.entries(days).sort(([a], [b]) => (a < b ? 1 : -1));

/** A file laid out like eurofxref-daily.xml (single quotes, one element per line). */
export function dailyStyleXml(days: SampleDays): string {
  const body = newestFirst(days)
    .map(([day, rates]) => {
      const cubes = Object.entries(rates).map(([c, r]) => `\t\t\t<Cube currency='${c}' rate='${r}'/>\n`);
      return `\t\t<Cube time='${day}'>\n${cubes.join('')}\t\t</Cube>\n`;
    })
    .join('');
  return `${HEAD}\t<Cube>\n${body}\t</Cube>\n</gesmes:Envelope>`;
}

/** A file laid out like eurofxref-hist.xml and eurofxref-hist-90d.xml (double quotes, a day a line). */
export function histStyleXml(days: SampleDays): string {
  const body = newestFirst(days)
    .map(([day, rates]) => {
      const cubes = Object.entries(rates).map(([c, r]) => `<Cube currency="${c}" rate="${r}"/>`);
      return `<Cube time="${day}">${cubes.join('')}</Cube>\n`;
    })
    .join('');
  return `${HEAD}<Cube>${body}</Cube>\n</gesmes:Envelope>`;
}
