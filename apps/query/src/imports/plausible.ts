import type { ImportedDay, ImportedRow } from '@footfall/control';
import { classifyChannel } from '@footfall/ingest/channels';
import { hostKey } from '@footfall/ingest/referrer';
import { type CsvFile, ImportFileError, readCsv } from './files.ts';

/**
 * Plausible's CSV export (Plausible CE 2.1 and later, and Cloud: Site settings → Imports & Exports
 * → Export), read as Plausible's own importer reads it (`Plausible.Imported.CSVImporter`, the
 * columns of its 3.0 line): one file per table, `imported_<table>[_YYYYMMDD_YYYYMMDD].csv` or
 * without the `imported_` prefix, with a header row. Columns are found by name; the newer ones
 * (`pageviews` beside the visit counts, `referrer` and `utm_source` in sources, `visits` in pages)
 * are optional, so older exports import too. Every table is a day's aggregate in the site's zone;
 * `visit_duration` is the day's total seconds, not a mean.
 */
export const PLAUSIBLE_TABLES = [
  'visitors',
  'sources',
  'pages',
  'entry_pages',
  'exit_pages',
  'locations',
  'devices',
  'browsers',
  'operating_systems',
  'custom_events',
] as const;
type Table = (typeof PLAUSIBLE_TABLES)[number];

const FILE_NAME = new RegExp(`^(?:imported_)?(${PLAUSIBLE_TABLES.join('|')})(?:_\\d{8}_\\d{8})?\\.csv$`);

/** The table a file of the export holds, or null for a file that is not one. */
export function plausibleTable(fileName: string): Table | null {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  return (FILE_NAME.exec(base)?.[1] as Table | undefined) ?? null;
}

/** Each table's columns that must be there; the rest are read when present. */
const REQUIRED: Record<Table, readonly string[]> = {
  visitors: ['date', 'visitors', 'pageviews', 'bounces', 'visits', 'visit_duration'],
  sources: ['date', 'source', 'visitors', 'visits', 'visit_duration', 'bounces'],
  pages: ['date', 'page', 'visitors', 'pageviews'],
  entry_pages: ['date', 'entry_page', 'visitors', 'entrances', 'visit_duration', 'bounces'],
  exit_pages: ['date', 'exit_page', 'visitors', 'exits'],
  locations: ['date', 'country', 'visitors', 'visits', 'visit_duration', 'bounces'],
  devices: ['date', 'device', 'visitors', 'visits', 'visit_duration', 'bounces'],
  browsers: ['date', 'browser', 'visitors', 'visits', 'visit_duration', 'bounces'],
  operating_systems: ['date', 'operating_system', 'visitors', 'visits', 'visit_duration', 'bounces'],
  custom_events: ['date', 'name', 'visitors', 'events'],
};

/** What one CSV record becomes: a day's totals, or rows of Footfall's dimensions. */
export type Mapped = { day: string } & ({ totals: ImportedDay } | { rows: ImportedRow[] } | { skip: string });

const NONE = new Set(['', '(none)', '(not set)', 'Direct / None']);
const text = (s: string | undefined) => (s === undefined || NONE.has(s.trim()) ? null : s.trim());
const DEVICES: Record<string, string> = {
  Desktop: 'desktop',
  Laptop: 'desktop',
  Mobile: 'mobile',
  Tablet: 'tablet',
};
const BROWSERS: Record<string, string> = { 'Microsoft Edge': 'Edge', 'Mobile App': 'Google App' };
const SYSTEMS: Record<string, string> = { Mac: 'macOS', 'GNU/Linux': 'Linux', 'Chrome OS': 'ChromeOS' };

/** A referrer as Plausible keeps it (`news.ycombinator.com/item`, or a whole URL) as a host key. */
function referrerHost(referrer: string | null): string | null {
  if (referrer === null) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(referrer) ? referrer : `https://${referrer}`);
    const host = hostKey(url.hostname);
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

/**
 * Reads one record of a table into what Footfall keeps. `count` reads a column as a whole number
 * (0 when an optional column is absent) and throws naming the column when it is not one.
 */
function mapRecord(table: Table, r: Record<string, string>, count: (column: string) => number): Mapped {
  const day = r['date'] as string;
  const visit = () => ({
    day,
    visitors: count('visitors'),
    visits: count('visits'),
    pageviews: count('pageviews'),
    bounces: count('bounces'),
    duration: count('visit_duration'),
    events: 0,
  });
  const one = (dimension: ImportedRow['dimension'], value: string | null, totals = visit()): Mapped => ({
    day,
    rows: [{ ...totals, dimension, value }],
  });
  switch (table) {
    case 'visitors':
      return { day, totals: visit() };
    case 'sources': {
      const totals = visit();
      const source = text(r['source']);
      const referrer = referrerHost(text(r['referrer']));
      const utmSource = text(r['utm_source']);
      const medium = text(r['utm_medium']);
      const { channel } = classifyChannel({
        referrerHost: referrer,
        // an export without referrers names the source (`Google`): its category still decides
        utmSource: utmSource ?? (referrer === null ? source : null),
        utmMedium: medium,
        clickId: null,
      });
      const rows: ImportedRow[] = [
        { ...totals, dimension: 'channel', value: channel },
        // without a referrer column, the source's name stands for it
        { ...totals, dimension: 'referrer', value: 'referrer' in r ? referrer : source },
        { ...totals, dimension: 'medium', value: medium },
        { ...totals, dimension: 'campaign', value: text(r['utm_campaign']) },
        { ...totals, dimension: 'term', value: text(r['utm_term']) },
        { ...totals, dimension: 'content', value: text(r['utm_content']) },
      ];
      if ('utm_source' in r) rows.push({ ...totals, dimension: 'source', value: utmSource });
      return { day, rows };
    }
    case 'pages': {
      const page = text(r['page']);
      if (page === null) return { day, skip: 'a page without a path' };
      const visitors = count('visitors');
      return one('pages', page, {
        ...visit(),
        visits: 'visits' in r ? count('visits') : visitors,
        bounces: 0,
        duration: 0,
      });
    }
    case 'entry_pages':
      return one('entry_page', text(r['entry_page']), { ...visit(), visits: count('entrances') });
    case 'exit_pages':
      return one('exit_page', text(r['exit_page']), { ...visit(), visits: count('exits') });
    case 'locations': {
      const country = text(r['country']);
      return one('country', country === null || country === 'ZZ' ? null : country.toUpperCase());
    }
    case 'devices': {
      const device = text(r['device']);
      return one('device', device === null ? null : (DEVICES[device] ?? null));
    }
    case 'browsers': {
      const browser = text(r['browser']);
      return one('browser', browser === null ? null : (BROWSERS[browser] ?? browser));
    }
    case 'operating_systems': {
      const os = text(r['operating_system']);
      return one('os', os === null ? null : (SYSTEMS[os] ?? os));
    }
    case 'custom_events': {
      const name = text(r['name']);
      if (name === null) return { day, skip: 'an event without a name' };
      const visitors = count('visitors');
      // a day's event counts its visitors; Plausible exports no visits of an event
      return one('events', name, {
        day,
        visitors,
        visits: visitors,
        pageviews: 0,
        bounces: 0,
        duration: 0,
        events: count('events'),
      });
    }
  }
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const COUNT = /^\d{1,15}(?:\.\d+)?$/;

/**
 * The records of one file of a Plausible export, each mapped (or the reason it is skipped).
 * Throws ImportFileError naming the file and line for a missing column, a bad date or a count
 * that is not one.
 */
export async function* readPlausibleFile(file: CsvFile, table: Table): AsyncGenerator<Mapped> {
  for await (const { record, line } of readCsv(file, REQUIRED[table])) {
    const date = record['date'] as string;
    const real = DATE.test(date) && new Date(`${date}T00:00:00Z`).toISOString().startsWith(date);
    if (!real) throw new ImportFileError(file.name, line, `date "${date}" is not a date YYYY-MM-DD`);
    const count = (column: string) => {
      const raw = record[column];
      if (raw === undefined || raw === '') return 0;
      if (!COUNT.test(raw)) throw new ImportFileError(file.name, line, `${column} "${raw}" is not a count`);
      return Math.round(Number(raw));
    };
    yield mapRecord(table, record, count);
  }
}
