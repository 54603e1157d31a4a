import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { beginImport, type ControlDb, finishImport, type Import, removeImport } from '@footfall/control';
import { classifyChannel } from '@footfall/ingest/channels';
import { hostKey } from '@footfall/ingest/referrer';
import { encodeWalRecord, type WalEvent } from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import { dayFormat, exportFiles, ImportFileError, keepsDay, readCsv, scratchDir } from './files.ts';
import type { ImportProgress } from './run.ts';

/**
 * Umami's exported tables (docs/imports.md): `website_event` and `session` as CSV with a header
 * row, as PostgreSQL's `COPY ... TO ... CSV HEADER` or MySQL writes them, from Umami 2.x's schema
 * (`prisma/schema.prisma`: website_event's event_id, website_id, session_id, created_at, url_path,
 * url_query, utm_*, referrer_domain, referrer_path, event_type, event_name, hostname, click ids;
 * session's browser, os, device, screen, language, country, city). These are raw events: each
 * becomes a Footfall event at its own time, its visitor Umami's session id, and the query service
 * builds visits from them by its own rules, as from native events, so every report works on them.
 */
export interface UmamiSummary {
  import: Import;
  website: string;
  events: number;
  rowsRead: number;
  skipped: Record<string, number>;
}

const EVENT_COLUMNS = ['event_id', 'website_id', 'session_id', 'created_at', 'url_path', 'event_type'];
const SESSION_COLUMNS = ['session_id'];
/** the session's columns an event takes (SQL identifiers, fixed here) */
const SESSION_FIELDS = ['browser', 'os', 'device', 'screen', 'language', 'country', 'city'];
/** PostgreSQL (`2024-03-01 10:00:00.123+00`), MySQL (`2024-03-01 10:00:00`, UTC) or ISO 8601 */
const TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;
const SKIP_NATIVE = 'the site has its own data from that day';
const SKIP_KIND = 'not a pageview or a custom event';

const BROWSERS: Record<string, string> = {
  chrome: 'Chrome',
  crios: 'Chrome',
  'chromium-webview': 'Android WebView',
  firefox: 'Firefox',
  fxios: 'Firefox',
  safari: 'Safari',
  ios: 'Safari',
  'ios-webview': 'Safari',
  'edge-chromium': 'Edge',
  edge: 'Edge',
  'edge-ios': 'Edge',
  opera: 'Opera',
  'opera-mini': 'Opera Mini',
  samsung: 'Samsung Internet',
  yandexbrowser: 'Yandex Browser',
  ie: 'Internet Explorer',
  facebook: 'Facebook',
  instagram: 'Instagram',
  silk: 'Silk',
  brave: 'Brave',
};
const SYSTEMS: [RegExp, string][] = [
  [/^Windows/, 'Windows'],
  [/^Mac OS/, 'macOS'],
  [/^iOS/, 'iOS'],
  [/^Android/, 'Android'],
  [/^Chrome OS/, 'ChromeOS'],
  [/^Linux/, 'Linux'],
];
const DEVICES: Record<string, WalEvent['device']> = {
  desktop: 'desktop',
  laptop: 'desktop',
  mobile: 'mobile',
  tablet: 'tablet',
};
const CLICK_IDS = ['gclid', 'fbclid', 'msclkid', 'ttclid', 'li_fat_id', 'twclid'];

const present = (s: string | null | undefined) =>
  s === null || s === undefined || s.trim() === '' ? null : s.trim();
const cut = (s: string | null, max: number) => (s === null ? null : s.slice(0, max));
/** One joined row of the export as a Footfall event. */
function toEvent(
  r: Record<string, string | null>,
  site: { id: string; domain: string },
  at: number,
): WalEvent {
  const query = new URLSearchParams(r['url_query'] ?? '');
  const utm = (name: string) => cut(present(r[name] ?? query.get(name)), 255);
  const referrerDomain = present(r['referrer_domain']);
  const referrer = referrerDomain === null ? null : hostKey(referrerDomain);
  const host = present(r['hostname']) ?? site.domain;
  // a referrer of the site itself is no referrer (as the gateway reads it)
  const referrerHost = referrer === null || referrer === '' || referrer === hostKey(host) ? null : referrer;
  const referrerPath = referrerHost === null ? null : cut(present(r['referrer_path']), 2048);
  const clickId = CLICK_IDS.find((c) => present(r[c] ?? query.get(c)) !== null) ?? null;
  const utmSource = utm('utm_source');
  const utmMedium = utm('utm_medium');
  const { channel, assistant } = classifyChannel({
    referrerHost,
    referrerPath,
    utmSource,
    utmMedium,
    clickId,
  });
  const os = present(r['os']);
  const system = os === null ? undefined : SYSTEMS.find(([re]) => re.test(os));
  const browser = present(r['browser']);
  const screen = /^(\d{1,5})x(\d{1,5})$/.exec(r['screen'] ?? '');
  const language = present(r['language']);
  const country = present(r['country']);
  const pageview = r['event_type'] === '1';
  return {
    t: 'event',
    id: `umami-${r['event_id']}`.slice(0, 64),
    site: site.id,
    at,
    kind: pageview ? 'pv' : 'ev',
    name: pageview ? null : cut(present(r['event_name']) ?? '(unnamed)', 120),
    props: null,
    host: host.slice(0, 255),
    path: (present(r['url_path']) ?? '/').slice(0, 2048),
    visitor: `umami-${r['session_id']}`.slice(0, 64),
    idMode: 'cookie',
    carry: null,
    referrerHost,
    referrerPath,
    channel,
    assistant,
    utmSource,
    utmMedium,
    utmCampaign: utm('utm_campaign'),
    utmTerm: utm('utm_term'),
    utmContent: utm('utm_content'),
    clickId,
    browser: browser === null ? null : cut(BROWSERS[browser] ?? browser, 64),
    browserVersion: null,
    os: system ? system[1] : cut(os, 64),
    osVersion: os?.startsWith('Windows ') ? cut(os.slice(8), 32) : null,
    device: DEVICES[present(r['device']) ?? ''] ?? 'desktop',
    language: language === null ? null : cut(language, 35),
    country: country !== null && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null,
    // Umami's regions are ISO codes (DE-BE); Footfall names regions, so they are left out
    region: null,
    city: cut(present(r['city']), 128),
    screenW: screen ? Number(screen[1]) : null,
    screenH: screen ? Number(screen[2]) : null,
    engagedMs: null,
    scroll: null,
    lcp: null,
    fcp: null,
    inp: null,
    ttfb: null,
    cls: null,
  };
}

/** The export's two tables on disk: a folder's files, or a zip's entries written out first. */
async function tables(
  path: string,
  name: string,
  scratch: string,
): Promise<{ events: string; sessions: string }> {
  const source = await exportFiles(path, name);
  try {
    const find = (prefix: string) =>
      source.files.find((f) => {
        const base = f.name.slice(f.name.lastIndexOf('/') + 1);
        return base.startsWith(prefix) && base.endsWith('.csv');
      });
    const events = find('website_event');
    const sessions = find('session');
    if (!events || !sessions) {
      throw new ImportFileError(name, null, 'an Umami export needs website_event.csv and session.csv');
    }
    const folder = statSync(path).isDirectory();
    const onDisk = async (f: typeof events) => {
      if (folder) return join(path, f.name);
      const target = join(scratch, f.name.replaceAll('/', '_'));
      await pipeline(await f.open(), createWriteStream(target, { mode: 0o600 }));
      return target;
    };
    return { events: await onDisk(events), sessions: await onDisk(sessions) };
  } finally {
    source.close();
  }
}

/** Checks every row a reader would trip on, naming file and line; returns the website ids found. */
async function check(files: {
  events: string;
  sessions: string;
}): Promise<{ websites: Map<string, number>; sessionColumns: Set<string> }> {
  const named = (path: string) => ({
    name: path.slice(path.lastIndexOf('/') + 1),
    open: async () => createReadStream(path),
  });
  const websites = new Map<string, number>();
  const events = named(files.events);
  for await (const { record, line } of readCsv(events, EVENT_COLUMNS)) {
    const at = record['created_at'] ?? '';
    if (!TIME.test(at) || Number.isNaN(Date.parse(at.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00')))) {
      throw new ImportFileError(events.name, line, `created_at "${at}" is not a time`);
    }
    if (!/^\d{1,3}$/.test(record['event_type'] ?? '')) {
      throw new ImportFileError(events.name, line, `event_type "${record['event_type']}" is not a number`);
    }
    if (!record['session_id'] || !record['event_id']) {
      throw new ImportFileError(events.name, line, 'event_id and session_id must not be empty');
    }
    const website = record['website_id'] ?? '';
    websites.set(website, (websites.get(website) ?? 0) + 1);
  }
  const sessionColumns = new Set<string>();
  for await (const { record } of readCsv(named(files.sessions), SESSION_COLUMNS)) {
    if (sessionColumns.size === 0) for (const c of Object.keys(record)) sessionColumns.add(c);
  }
  return { websites, sessionColumns };
}

/**
 * Imports one Umami website's events into the site: checked whole first (nothing is written from
 * an export with a bad row), then joined with their sessions and sorted by time in a scratch
 * DuckDB that spills to disk (bounded memory whatever the size), written as a WAL stream of its
 * own under data/imports, and moved into data/wal in one rename once complete: the tailer loads
 * all of it or, after a stop, none. Event ids are Umami's, so importing the same export again
 * stores nothing twice.
 */
export async function importUmami(o: {
  control: ControlDb;
  site: { id: string; domain: string; timezone: string; umamiWebsiteId: string | null };
  path: string;
  name: string;
  /** Umami's website id; default the site's recorded one, or the export's only website */
  website?: string | undefined;
  personId: string | null;
  firstNativeDay: string | null;
  through?: string | undefined;
  /** data/imports and data/wal */
  scratchRoot: string;
  walRoot: string;
  memoryLimit: string;
  progress?: (p: ImportProgress) => void;
  /** stops the import between steps and chunks (the command was stopped): nothing of it stays */
  signal?: AbortSignal | undefined;
}): Promise<UmamiSummary> {
  const scratch = await scratchDir(o.scratchRoot, 'umami');
  let id: string | undefined;
  try {
    const files = await tables(o.path, o.name, scratch);
    const { websites, sessionColumns } = await check(files);
    const website =
      o.website ?? o.site.umamiWebsiteId ?? (websites.size === 1 ? [...websites.keys()][0] : undefined);
    if (website === undefined || !websites.has(website)) {
      const found = [...websites.keys()].join(', ') || 'none';
      throw new ImportFileError(
        o.name,
        null,
        website === undefined
          ? `the export holds several websites (${found}): name one with website`
          : `the export holds no events of website ${website} (it holds ${found})`,
      );
    }
    id = beginImport(o.control, { siteId: o.site.id, source: 'umami', name: o.name, personId: o.personId });
    const stream = `import-${id.replace(/[^a-z0-9]/gi, '')}`;
    const staged = join(scratch, stream);
    const skipped: Record<string, number> = {};
    let rowsRead = 0;
    let events = 0;
    let first: string | null = null;
    let last: string | null = null;
    const localDay = dayFormat(o.site.timezone);
    const keep = keepsDay(o);
    // a file, not memory: what does not fit FOOTFALL_ENGINE_MEMORY is written out, not refused
    const open = async () => {
      const instance = await DuckDBInstance.create(join(scratch, 'scratch.duckdb'), {
        threads: '1',
        memory_limit: o.memoryLimit,
        temp_directory: join(scratch, 'spill'),
        preserve_insertion_order: 'false',
        autoinstall_known_extensions: 'false',
        autoload_known_extensions: 'false',
      });
      const db = await instance.connect();
      await db.run("SET TimeZone = 'UTC'");
      const close = () => {
        db.closeSync();
        instance.closeSync();
      };
      return { db, close };
    };
    // One step at a time, each stored: reading, joining and sorting at once outgrew 256 MB at 1M
    // events, and joining the sessions to the events as they are read from the CSV at 5M. The
    // database is closed and opened again before the sorted read, so the memory the join took is
    // given back before the rows are.
    const build = await open();
    try {
      const csv = (path: string) => `read_csv(${sqlText(path)}, header = true, all_varchar = true)`;
      // a column the export lacks is null (only session_id is required)
      const take = SESSION_FIELDS.map((c) => (sessionColumns.has(c) ? c : `NULL::VARCHAR AS ${c}`)).join(
        ', ',
      );
      await build.db.run(`CREATE TABLE s AS SELECT session_id, ${take} FROM ${csv(files.sessions)}`);
      o.signal?.throwIfAborted();
      await build.db.run(`CREATE TABLE r AS SELECT * FROM ${csv(files.events)} WHERE website_id = $website`, {
        website,
      });
      await build.db.run(
        `CREATE TABLE e AS SELECT r.*, s.browser, s.os, s.device, s.screen, s.language, s.country, s.city,
           epoch_ms(CAST(regexp_replace(r.created_at, '([+-]\\d{2})$', '\\1:00') AS TIMESTAMPTZ))::DOUBLE AS at_ms
         FROM r LEFT JOIN s ON s.session_id = r.session_id`,
      );
      o.signal?.throwIfAborted();
      await build.db.run('DROP TABLE s');
      await build.db.run('DROP TABLE r');
    } finally {
      build.close();
    }
    const { db, close } = await open();
    const wal = await openWalWriter({ dir: staged });
    try {
      const result = await db.stream('SELECT * FROM e ORDER BY at_ms, event_id');
      const columns = result.deduplicatedColumnNames();
      for (;;) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        const payloads: Uint8Array[] = [];
        for (const row of chunk.getRowObjects(columns) as Record<string, string | number | null>[]) {
          rowsRead++;
          const at = Number(row['at_ms']);
          const day = localDay(at);
          const type = row['event_type'];
          if (type !== '1' && type !== '2') skipped[SKIP_KIND] = (skipped[SKIP_KIND] ?? 0) + 1;
          else if (!keep(day)) skipped[SKIP_NATIVE] = (skipped[SKIP_NATIVE] ?? 0) + 1;
          else {
            payloads.push(encodeWalRecord(toEvent(row as Record<string, string | null>, o.site, at)));
            events++;
            first ??= day;
            last = day;
          }
        }
        if (payloads.length > 0) await wal.appendMany(payloads);
        o.signal?.throwIfAborted();
        o.progress?.({ file: 'website_event', rowsRead });
      }
    } finally {
      await wal.close();
      close();
    }
    // complete: the tailer sees the stream from now on, all of it at once
    if (events > 0) await rename(staged, join(o.walRoot, stream));
    const done = finishImport(o.control, id, { rowsRead, skipped, range: { first, last } });
    return { import: done, website, events, rowsRead, skipped };
  } catch (error) {
    if (id !== undefined) removeImport(o.control, id);
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A SQL string literal (a file path of this machine, never user text inside a statement otherwise). */
const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;
