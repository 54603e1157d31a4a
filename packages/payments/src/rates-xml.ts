/**
 * A reader for the ECB's euro reference rate files (eurofxref-daily.xml, eurofxref-hist-90d.xml,
 * eurofxref-hist.xml), and for nothing else. Their whole structure is
 *
 *   <gesmes:Envelope ...><gesmes:subject>...</gesmes:subject>...
 *     <Cube><Cube time="2024-01-02"><Cube currency="USD" rate="1.0956"/>...</Cube>...</Cube>
 *   </gesmes:Envelope>
 *
 * so a scanner of tags with a stack of open elements is enough: no entities, no namespaces beyond
 * matching the local name `Cube`, no DTD. The document must be well formed as far as tags go (every
 * element closed, in order), which is what catches a download cut short.
 */

/** ECB reference rates: for each day ('YYYY-MM-DD'), units of each currency per 1 EUR. */
export type EcbRates = ReadonlyMap<string, ReadonlyMap<string, number>>;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const CURRENCY = /^[A-Z]{3}$/;
const RATE = /^\d+(\.\d+)?$/;
/** One start or end tag at the scan position: slash, name, attributes, self-closing slash. */
const TAG = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
const ATTRIBUTE = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** Markup that carries no elements, by how it starts and how it ends. */
const SKIPPED: [start: string, end: string][] = [
  ['<?', '?>'],
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<!', '>'],
];

/** Whether `day` is a real calendar date written 'YYYY-MM-DD'. */
export function isDay(day: string): boolean {
  const parts = DAY.exec(day);
  if (!parts) return false;
  const date = new Date(Date.UTC(Number(parts[1]), Number(parts[2]) - 1, Number(parts[3])));
  return date.toISOString().slice(0, 10) === day;
}

/** One start tag, end tag or empty-element tag of the document. */
interface Tag {
  kind: 'start' | 'end' | 'empty';
  /** the name as written, with its namespace prefix if any */
  qualified: string;
  /** the name without its namespace prefix */
  name: string;
  attributes: Map<string, string>;
  /** where the tag starts in the text, for messages */
  offset: number;
}

/** The tags of `text` in order, skipping declarations, comments and CDATA. Throws on a broken tag. */
function* tagsOf(text: string): Generator<Tag> {
  let at = text.indexOf('<');
  while (at !== -1) {
    const skipped = SKIPPED.find(([start]) => text.startsWith(start, at));
    if (skipped) {
      const end = text.indexOf(skipped[1], at + skipped[0].length);
      if (end === -1) throw malformed(text, at, 'a declaration or comment is not closed');
      at = text.indexOf('<', end + skipped[1].length);
      continue;
    }
    TAG.lastIndex = at;
    const match = TAG.exec(text);
    if (!match) throw malformed(text, at, 'a tag cannot be read');
    const [, close, qualified = '', attributeText = '', selfClose] = match;
    if (close && (selfClose || attributeText)) throw malformed(text, at, 'an end tag has attributes');
    yield {
      kind: close ? 'end' : selfClose ? 'empty' : 'start',
      qualified,
      name: qualified.slice(qualified.indexOf(':') + 1),
      attributes: attributesOf(attributeText),
      offset: at,
    };
    at = text.indexOf('<', TAG.lastIndex);
  }
}

function attributesOf(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name = '', double, single] of text.matchAll(ATTRIBUTE)) {
    attributes.set(name, double ?? single ?? '');
  }
  return attributes;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function malformed(text: string, offset: number, problem: string): Error {
  return new Error(`not an ECB rates file: ${problem} (line ${lineAt(text, offset)})`);
}

/** The rates collected so far, and the day whose `<Cube time>` is open. */
interface Reading {
  text: string;
  days: Map<string, Map<string, number>>;
  day: Map<string, number> | undefined;
}

/**
 * Takes in one `<Cube>` start or empty tag: a day, a rate, or the outer Cube (ignored). Answers
 * whether the tag opened a day, so that its end tag can close it.
 */
function readCube(tag: Tag, reading: Reading): boolean {
  const time = tag.attributes.get('time');
  const currency = tag.attributes.get('currency');
  const rate = tag.attributes.get('rate');
  const fail = (problem: string) => malformed(reading.text, tag.offset, problem);
  if (time !== undefined) {
    if (!isDay(time)) throw fail(`day "${time}" is not a date`);
    if (reading.day) throw fail(`day ${time} is inside another day`);
    if (reading.days.has(time)) throw fail(`day ${time} appears twice`);
    const day = new Map<string, number>();
    reading.days.set(time, day);
    if (tag.kind === 'empty') return false;
    reading.day = day;
    return true;
  }
  if (currency === undefined && rate === undefined) return false;
  if (!reading.day) throw fail('a rate is outside any day');
  if (currency === undefined || !CURRENCY.test(currency)) {
    throw fail(`currency "${currency ?? ''}" is not a code`);
  }
  const value = rate === undefined || !RATE.test(rate) ? Number.NaN : Number(rate);
  if (!(value > 0 && Number.isFinite(value))) throw fail(`${currency} rate "${rate ?? ''}" is not a rate`);
  if (reading.day.has(currency)) throw fail(`${currency} appears twice in one day`);
  reading.day.set(currency, value);
  return false;
}

/**
 * Parses one of the ECB's reference rate files. Elements other than `Cube` are ignored, as is a
 * day that lists no rate. Throws an Error saying what is wrong when the file is not well formed
 * (including cut short), holds no day with rates, or has a malformed day, currency code or rate,
 * or the same day or the same currency within a day twice.
 *
 * @example
 * const rates = parseEcbXml(await (await fetch(url)).text());
 * rates.get('2024-01-02')?.get('USD'); // 1.0956
 */
export function parseEcbXml(text: string): EcbRates {
  const reading: Reading = { text, days: new Map(), day: undefined };
  const open: { qualified: string; opensDay: boolean }[] = [];
  for (const tag of tagsOf(text)) {
    if (tag.kind === 'end') {
      const element = open.pop();
      if (element?.qualified !== tag.qualified) {
        throw malformed(text, tag.offset, `</${tag.qualified}> closes nothing open`);
      }
      if (element.opensDay) reading.day = undefined;
      continue;
    }
    const opensDay = tag.name === 'Cube' && readCube(tag, reading);
    if (tag.kind === 'start') open.push({ qualified: tag.qualified, opensDay });
  }
  const unclosed = open.at(-1);
  if (unclosed)
    throw new Error(`not an ECB rates file: <${unclosed.qualified}> is never closed (cut short?)`);
  for (const [day, rates] of reading.days) if (rates.size === 0) reading.days.delete(day);
  if (reading.days.size === 0) throw new Error('not an ECB rates file: it holds no day with rates');
  return reading.days;
}
