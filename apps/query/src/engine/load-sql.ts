/**
 * The SQL a batch is written with (loader.ts), and the lines of the visits file it reads. The loader writes each batch's events and visits
 * as JSON lines to files beside the database, each event its WAL payload with the columns the
 * visit rules gave it in front (`_ts`, `_vk`, `_sid`, `_vs`, `_vf`, `_pva`, `_props`); DuckDB parses
 * them (read_json, in C++, on its own threads) and appends them in one statement. That cost about
 * a fifth of handing each value to an appender from JavaScript (engine README, "Loading").
 */
import type { VisitRow } from '../visits/engine.ts';

/** The columns read from an events file, with their types. */
const EVENT_FILE_COLUMNS: Record<string, string> = {
  _ts: 'BIGINT',
  _vk: 'UBIGINT',
  _sid: 'UBIGINT',
  _vs: 'BIGINT',
  _vf: 'BOOLEAN',
  _pva: 'BIGINT',
  _props: 'VARCHAR',
  site: 'VARCHAR',
  id: 'VARCHAR',
  kind: 'VARCHAR',
  name: 'VARCHAR',
  host: 'VARCHAR',
  path: 'VARCHAR',
  idMode: 'VARCHAR',
  referrerHost: 'VARCHAR',
  referrerPath: 'VARCHAR',
  channel: 'VARCHAR',
  assistant: 'VARCHAR',
  utmSource: 'VARCHAR',
  utmMedium: 'VARCHAR',
  utmCampaign: 'VARCHAR',
  utmTerm: 'VARCHAR',
  utmContent: 'VARCHAR',
  clickId: 'VARCHAR',
  browser: 'VARCHAR',
  browserVersion: 'VARCHAR',
  os: 'VARCHAR',
  osVersion: 'VARCHAR',
  device: 'VARCHAR',
  language: 'VARCHAR',
  country: 'VARCHAR',
  region: 'VARCHAR',
  city: 'VARCHAR',
  screenW: 'DOUBLE',
  screenH: 'DOUBLE',
  engagedMs: 'DOUBLE',
  scroll: 'DOUBLE',
  lcp: 'DOUBLE',
  fcp: 'DOUBLE',
  inp: 'DOUBLE',
  ttfb: 'DOUBLE',
  cls: 'DOUBLE',
};

const columnsSpec = (columns: Record<string, string>) =>
  `{${Object.entries(columns)
    .map(([name, type]) => `"${name}": '${type}'`)
    .join(', ')}}`;

/** A time in ms (a JSON number) as the TIMESTAMPTZ it stands for. */
const instant = (ms: string) => `make_timestamptz(${ms} * 1000)`;

/**
 * An integer column as the old appender stored it: rounded, held to 32 bits, null kept null
 * (DuckDB's `greatest` and `least` skip nulls, so they are not enough alone).
 */
const int32 = (value: string) =>
  `CASE WHEN ${value} IS NOT NULL THEN least(greatest(round(${value}), -2147483648), 2147483647)::INTEGER END`;

/** Appends the events of a batch file but those stored already (`batch_copies`). `$1` = the file. */
export const INSERT_EVENTS_SQL = `
INSERT INTO events (site, id, ts, kind, name, props, host, path, visitor_key, id_mode, referrer_host,
  referrer_path, channel, assistant, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
  click_id, browser, browser_version, os, os_version, device, language, country, region, city,
  screen_w, screen_h, engaged_ms, scroll, lcp, fcp, inp, ttfb, cls, session_id, visit_start,
  visit_first, prev_view_at)
SELECT site, id, ${instant('_ts')}, kind, name, _props, host, path, _vk, idMode, referrerHost,
  referrerPath, channel, assistant, utmSource, utmMedium, utmCampaign, utmTerm, utmContent,
  clickId, browser, browserVersion, os, osVersion, device, language, country, region, city,
  ${int32('screenW')}, ${int32('screenH')}, round(engagedMs)::BIGINT, scroll, lcp, fcp, inp, ttfb, cls,
  _sid, ${instant('_vs')}, coalesce(_vf, false), ${instant('_pva')}
FROM read_json($1, format = 'newline_delimited', columns = ${columnsSpec(EVENT_FILE_COLUMNS)}) n
WHERE NOT EXISTS (SELECT 1 FROM batch_copies c WHERE c.site = n.site AND c.id = n.id)`;

const VISIT_FILE_COLUMNS: Record<string, string> = {
  site: 'VARCHAR',
  session_id: 'UBIGINT',
  visitor: 'VARCHAR',
  visitor_key: 'UBIGINT',
  started_at: 'BIGINT',
  last_at: 'BIGINT',
  ended_at: 'BIGINT',
  duration_ms: 'BIGINT',
  pageviews: 'INTEGER',
  events: 'INTEGER',
  channel: 'VARCHAR',
  assistant: 'VARCHAR',
  referrer: 'VARCHAR',
  entry_page: 'VARCHAR',
  exit_page: 'VARCHAR',
  utm_source: 'VARCHAR',
  utm_medium: 'VARCHAR',
  utm_campaign: 'VARCHAR',
  utm_term: 'VARCHAR',
  utm_content: 'VARCHAR',
  country: 'VARCHAR',
  region: 'VARCHAR',
  city: 'VARCHAR',
  device: 'VARCHAR',
  browser: 'VARCHAR',
  os: 'VARCHAR',
  language: 'VARCHAR',
  prev_at: 'BIGINT',
  prev_channel: 'BIGINT',
  prev_referrer: 'BIGINT',
  prev_entry_page: 'BIGINT',
  prev_exit_page: 'BIGINT',
  prev_campaign: 'BIGINT',
  prev_source: 'BIGINT',
  prev_medium: 'BIGINT',
  prev_term: 'BIGINT',
  prev_content: 'BIGINT',
  prev_country: 'BIGINT',
  prev_region: 'BIGINT',
  prev_city: 'BIGINT',
  prev_device: 'BIGINT',
  prev_browser: 'BIGINT',
  prev_os: 'BIGINT',
  prev_language: 'BIGINT',
};

/** The `prev_<dimension>` columns of sessions, in the visits file's order. */
export const PREV_COLUMNS = Object.keys(VISIT_FILE_COLUMNS).filter(
  (c) => c.startsWith('prev_') && c !== 'prev_at',
);

/** The stored time of a visit dimension's previous visit in the visits file: -1 for none, null for "as prev_at". */
const filePrev = (prev: number | null, prevAt: number | null): number | null =>
  prev === prevAt ? null : prev === null ? -1 : prev;

/** A visit row's line in the visits file (VISIT_FILE_COLUMNS). */
export function visitFileLine(r: VisitRow): string {
  const d = r.dims;
  const line: Record<string, unknown> = {
    site: r.site,
    session_id: 0,
    visitor: r.visitor,
    visitor_key: 0,
    started_at: r.start,
    last_at: r.lastTs,
    ended_at: r.end,
    duration_ms: r.end - r.start,
    pageviews: r.pageviews,
    events: r.events,
    channel: d[0],
    assistant: d[16],
    referrer: d[1],
    entry_page: d[2],
    exit_page: r.exit,
    utm_source: d[5],
    utm_medium: d[6],
    utm_campaign: d[4],
    utm_term: d[7],
    utm_content: d[8],
    country: d[9],
    region: d[10],
    city: d[11],
    device: d[12],
    browser: d[13],
    os: d[14],
    language: d[15],
    prev_at: r.prevAt,
  };
  PREV_COLUMNS.forEach((column, i) => {
    line[column] = filePrev(r.prevs[i] ?? null, r.prevAt);
  });
  // 64-bit ids as JSON numbers, exactly
  return JSON.stringify(line)
    .replace('"session_id":0', `"session_id":${r.sessionId}`)
    .replace('"visitor_key":0', `"visitor_key":${r.visitorKey}`);
}

/**
 * A stored `prev_<dimension>` from the file's number: NULL stays NULL (the same as prev_at), a
 * negative number is '-infinity' (no earlier visit had the value), else its time.
 */
const storedPrev = (column: string) =>
  `CASE WHEN ${column} < 0 THEN '-infinity'::TIMESTAMPTZ ELSE ${instant(column)} END`;

/** A batch's visit rows as a temp table. `$1` = the file, `$2` = the batch's generation. */
export const BATCH_VISITS_SQL = `
CREATE OR REPLACE TEMP TABLE batch_visits AS
SELECT site, session_id, visitor, visitor_key, ${instant('started_at')} AS started_at,
  ${instant('last_at')} AS last_at, ${instant('ended_at')} AS ended_at, duration_ms, pageviews, events, channel, assistant, referrer, entry_page, exit_page, utm_source, utm_medium,
  utm_campaign, utm_term, utm_content, country, region, city, device, browser, os, language,
  ${instant('prev_at')} AS prev_at, ${PREV_COLUMNS.map((c) => `${storedPrev(c)} AS ${c}`).join(', ')},
  $2::UBIGINT AS gen
FROM read_json($1, format = 'newline_delimited', columns = ${columnsSpec(VISIT_FILE_COLUMNS)})`;

/** Replaces the stored rows of the batch's visits: by id, among visits that start late enough. */
export const DELETE_BATCH_VISITS_SQL = `
DELETE FROM sessions USING batch_visits b
WHERE sessions.site = b.site AND sessions.session_id = b.session_id
  AND sessions.started_at >= (SELECT min(started_at) FROM batch_visits)`;

export const INSERT_BATCH_VISITS_SQL = 'INSERT INTO sessions BY NAME SELECT * FROM batch_visits';

/** The visitors a replay rebuilds and from when (temp table `replay_from`, filled by the loader). */
export const REPLAY_FROM_TABLE_SQL = `
CREATE OR REPLACE TEMP TABLE replay_from (site VARCHAR, visitor VARCHAR, visitor_key UBIGINT, since TIMESTAMPTZ)`;

/** Marks the visitors a replay rebuilt as touched in this generation (`$1`). */
export const TOUCH_REPLAYED_SQL = 'INSERT INTO loader_touched SELECT $1, site, visitor FROM replay_from';

/** A batch's carry links (temp table `batch_carries`, filled by the loader), one row per link. */
export const CARRIES_TABLE_SQL = `
CREATE OR REPLACE TEMP TABLE batch_carries (site VARCHAR, p VARCHAR, x VARCHAR, last_at TIMESTAMPTZ)`;

/** Keeps them, with the latest event seen of each pair's chain. */
export const UPSERT_CARRIES_SQL = `
INSERT INTO visit_carries SELECT site, p, x, last_at FROM batch_carries
ON CONFLICT DO UPDATE SET last_at = greatest(last_at, excluded.last_at)`;

/** Marks both ids of each link as touched in this generation (`$1`). */
export const TOUCH_CARRIES_SQL = `
INSERT INTO loader_touched SELECT $1, site, p FROM batch_carries
UNION ALL SELECT $1, site, x FROM batch_carries`;

/** Their stored visits that could change: those that end no earlier than `since`. */
export const REPLAY_VISITS_SQL = `
SELECT s.site, s.visitor, s.session_id, epoch_ms(s.started_at) AS started_at, epoch_ms(s.prev_at) AS prev_at,
  ${PREV_COLUMNS.map((c) => `CASE WHEN s.${c} IS NULL THEN NULL WHEN s.${c} = '-infinity'::TIMESTAMPTZ THEN -1 ELSE epoch_ms(s.${c}) END AS ${c}`).join(',\n  ')}
FROM sessions s JOIN replay_from r ON s.site = r.site AND s.visitor_key = r.visitor_key AND s.visitor = r.visitor
WHERE s.last_at >= r.since`;

/** Their stored events from `since` on (the batch's are inserted already), carried ones included. */
export const REPLAY_EVENTS_SQL = `
SELECT e.site, e.visitor_key, e.id, epoch_ms(e.ts) AS ts, e.kind, e.name, e.path, e.channel, e.assistant,
  e.referrer_host, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content, e.country,
  e.region, e.city, e.device, e.browser, e.os, e.language, e.session_id, epoch_ms(e.visit_start) AS visit_start,
  e.visit_first, epoch_ms(e.prev_view_at) AS prev_view_at
FROM events e JOIN replay_from r ON e.site = r.site AND e.visitor_key = r.visitor_key
WHERE e.ts >= r.since`;

/** Deletes the stored visits a replay rebuilt (temp table `replay_from`, `since` = its lo). */
export const DELETE_REPLAYED_VISITS_SQL = `
DELETE FROM sessions USING replay_from r
WHERE sessions.site = r.site AND sessions.visitor_key = r.visitor_key AND sessions.visitor = r.visitor
  AND sessions.started_at >= r.since`;

/** The columns a replay changes on an event (temp table `event_fixes`, filled by the loader). */
export const EVENT_FIXES_TABLE_SQL = `
CREATE OR REPLACE TEMP TABLE event_fixes (site VARCHAR, id VARCHAR, ts TIMESTAMPTZ, visitor_key UBIGINT,
  session_id UBIGINT, visit_start TIMESTAMPTZ, visit_first BOOLEAN, prev_view_at TIMESTAMPTZ)`;

/** Writes them. `$1` = the earliest time among them (lets DuckDB skip older row groups). */
export const APPLY_EVENT_FIXES_SQL = `
UPDATE events SET visitor_key = f.visitor_key, session_id = f.session_id, visit_start = f.visit_start,
  visit_first = f.visit_first, prev_view_at = f.prev_view_at
FROM event_fixes f
WHERE events.site = f.site AND events.id = f.id AND events.ts = f.ts AND events.ts >= $1`;

/**
 * The batch's events whose id is stored already within the dedupe window (temp table
 * `batch_copies`: site, id, visitor). `$1` = the batch's events file, `$2` = the window's start.
 */
export const STORED_COPIES_SQL = `
CREATE OR REPLACE TEMP TABLE batch_copies AS
SELECT n.site, n.id, n.visitor
FROM read_json($1, format = 'newline_delimited', columns = {site: 'VARCHAR', id: 'VARCHAR', visitor: 'VARCHAR'}) n
WHERE EXISTS (SELECT 1 FROM events e WHERE e.site = n.site AND e.id = n.id AND e.ts >= $2)`;
