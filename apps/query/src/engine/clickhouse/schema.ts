import type { ClickHouseMigration } from './migrations.ts';

/**
 * The ClickHouse engine's tables (DESIGN.md in this folder, sections 2 and 3). Written out per
 * version: a released migration never changes.
 *
 * Visits and events are `VersionedCollapsingMergeTree(sign, ver)`: a state is a row with sign +1;
 * the loader rewrites one by writing an exact copy of the old row with -1 beside the new +1 (a
 * replay, a visit that goes on), so reports need no `FINAL` for sums. The read rule (DESIGN.md,
 * section 3): counts and sums weighted by `sign`, every `GROUP BY` ending `HAVING sum(sign) > 0`,
 * anything else (exact distinct, min/max, listings) on collapsed rows (`FINAL`).
 *
 * Every column has an explicit codec: the MergeTree default, LZ4, took 30.9 bytes per event at 10M
 * against 26.3 with these (measured on chdb 26.7, events and visits together, merged).
 */

const Z = 'CODEC(ZSTD(1))';
/** an optional string: NULL is the dictionary's slot 0, so it costs no null map */
const LCN = `LowCardinality(Nullable(String)) ${Z}`;
const LC = `LowCardinality(String) ${Z}`;
const TIME = "DateTime64(3, 'UTC')";
/** counts and durations: T64 packs the small integers they mostly are */
const INT = 'CODEC(T64, ZSTD(1))';

/** An event's content: with its site, day, visitor and time, what makes it itself. */
const EVENT_CONTENT = [
  'kind',
  'name',
  'props',
  'host',
  'path',
  'id_mode',
  'referrer_host',
  'referrer_path',
  'channel',
  'assistant',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'click_id',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'language',
  'country',
  'region',
  'city',
  'screen_w',
  'screen_h',
  'engaged_ms',
  'scroll',
  'lcp',
  'fcp',
  'inp',
  'ttfb',
  'cls',
  'visit_start',
  'visit_first',
  'prev_view_at',
];

const VISIT_DIMENSIONS = [
  'channel',
  'assistant',
  'referrer',
  'entry_page',
  'exit_page',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'language',
];

/** DuckDB's prev_<dimension> columns (migration 6's stored form: NULL is prev_at, 1900-01-01 none). */
const PREV_DIMENSIONS = [
  'channel',
  'referrer',
  'entry_page',
  'exit_page',
  'campaign',
  'source',
  'medium',
  'term',
  'content',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'language',
];

/** Inserts the loader sends again after a crash are recognised by their tokens within this many. */
const DEDUPE = 'SETTINGS non_replicated_deduplication_window = 1000';

const V1: ClickHouseMigration = {
  version: 1,
  name: 'events and visits (versioned, collapsing), counters, stream positions and loader state',
  statements: [
    // One row per event state. The visit an event belongs to is (visitor_key, visit_start): the
    // visit id is not stored. `id` is kept for a window of recent months (DESIGN.md, section 6).
    // The content digest ends the sorting key, so two different events of one visitor in one
    // millisecond never collapse with each other; it is computed, never stored.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.events (
      site ${LC},
      ts ${TIME} CODEC(Delta, ZSTD(1)),
      visitor_key UInt64 ${Z},
      id String DEFAULT '' ${Z},
      kind ${LC},
      name ${LCN},
      props Nullable(String) CODEC(ZSTD(3)),
      host ${LC},
      path ${LC},
      id_mode ${LC},
      referrer_host ${LCN},
      referrer_path ${LCN},
      channel ${LC},
      assistant ${LCN},
      utm_source ${LCN},
      utm_medium ${LCN},
      utm_campaign ${LCN},
      utm_term ${LCN},
      utm_content ${LCN},
      click_id ${LCN},
      browser ${LCN},
      browser_version ${LCN},
      os ${LCN},
      os_version ${LCN},
      device ${LC},
      language ${LCN},
      country ${LCN},
      region ${LCN},
      city ${LCN},
      screen_w Nullable(Int32) ${INT},
      screen_h Nullable(Int32) ${INT},
      engaged_ms Nullable(Int64) ${INT},
      scroll Nullable(Float64) ${Z},
      lcp Nullable(Float64) ${Z},
      fcp Nullable(Float64) ${Z},
      inp Nullable(Float64) ${Z},
      ttfb Nullable(Float64) ${Z},
      cls Nullable(Float64) ${Z},
      visit_start Nullable(${TIME}) CODEC(Delta, ZSTD(1)),
      visit_first Bool ${Z},
      prev_view_at Nullable(${TIME}) ${Z},
      ver UInt32 ${INT},
      sign Int8 ${INT}
    ) ENGINE = VersionedCollapsingMergeTree(sign, ver)
    PARTITION BY toYYYYMM(ts)
    PRIMARY KEY (site, toDate(ts), visitor_key)
    ORDER BY (site, toDate(ts), visitor_key, ts, sipHash64(tuple(${EVENT_CONTENT.join(', ')})))
    ${DEDUPE}`,
    // One row per visit state. last_at and ended_at are stored as milliseconds after the start;
    // session_id is computed exactly as model.ts sessionIdOf makes it (the digest of site, visitor
    // and start), so it is never stored. `ver` is a digest of the state's content (rows.ts), so
    // the loader can write the -1 of a state it wrote before from the visitor's record alone.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.sessions (
      site ${LC},
      started_at ${TIME} CODEC(Delta, ZSTD(1)),
      visitor_key UInt64 ${Z},
      visitor String CODEC(ZSTD(3)),
      last_ms UInt64 ${INT},
      end_ms UInt64 ${INT},
      pageviews UInt32 ${INT},
      events UInt32 ${INT},
      ${VISIT_DIMENSIONS.map((d) => `${d} ${LCN}`).join(',\n      ')},
      prev_at Nullable(${TIME}) ${Z},
      ${PREV_DIMENSIONS.map((d) => `prev_${d} Nullable(${TIME}) ${Z}`).join(',\n      ')},
      ver UInt64 ${Z},
      sign Int8 ${INT},
      session_id UInt64 ALIAS reinterpretAsUInt64(substring(MD5(concat(site, '\\0', visitor, '\\0',
        toString(toUnixTimestamp64Milli(started_at)))), 9, 8)),
      last_at ${TIME} ALIAS started_at + toIntervalMillisecond(last_ms),
      ended_at ${TIME} ALIAS started_at + toIntervalMillisecond(end_ms),
      duration_ms Int64 ALIAS toInt64(end_ms)
    ) ENGINE = VersionedCollapsingMergeTree(sign, ver)
    PARTITION BY toYYYYMM(started_at)
    PRIMARY KEY (site, toDate(started_at), visitor_key)
    ORDER BY (site, toDate(started_at), visitor_key, started_at)
    ${DEDUPE}`,
    // Counters, summed at read (merges are an optimisation, never relied on): exactly once because
    // a batch's inserts are sent again byte for byte under their tokens (DESIGN.md, section 4).
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.crawl_counters (
      site ${LC},
      day Date CODEC(Delta, ZSTD(1)),
      robot ${LC},
      robot_kind ${LC},
      path String CODEC(ZSTD(3)),
      status_class UInt8,
      hits Int64 ${INT}
    ) ENGINE = SummingMergeTree(hits)
    PARTITION BY toYYYYMM(day)
    ORDER BY (site, day, robot, robot_kind, path, status_class)
    ${DEDUPE}`,
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.bot_counters (
      site ${LC},
      day Date,
      kind ${LC},
      hits Int64
    ) ENGINE = SummingMergeTree(hits)
    PARTITION BY toYYYYMM(day)
    ORDER BY (site, day, kind)
    ${DEDUPE}`,
    // The commit record of a batch: one row per stream it advanced, written after all its data.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.stream_positions (
      stream String,
      seq UInt64,
      gen UInt32,
      committed_at ${TIME}
    ) ENGINE = ReplacingMergeTree(gen)
    ORDER BY stream
    ${DEDUPE}`,
    // A cookieless visitor's new-day id (x) that carried the day before's (p); a day's partition
    // is dropped once it ended three days before a batch's earliest event (never by wall clock).
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.visit_carries (
      site ${LC},
      p String,
      x String,
      last_at ${TIME},
      ver UInt32
    ) ENGINE = MergeTree
    PARTITION BY toYYYYMMDD(last_at)
    ORDER BY (site, p, x)
    ${DEDUPE}`,
    // Scratch for the stored-copies check: a batch's (site, id) under its attempt's id.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.load_ids (
      attempt UUID,
      site ${LC},
      id String,
      at DateTime DEFAULT now()
    ) ENGINE = MergeTree
    ORDER BY (attempt, site, id)
    TTL at + INTERVAL 1 HOUR`,
    // Scratch for a replay's reads: the visitors it rebuilds (by site and key) and from when.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.load_keys (
      attempt UUID,
      site ${LC},
      visitor_key UInt64,
      since ${TIME},
      at DateTime DEFAULT now()
    ) ENGINE = MergeTree
    ORDER BY (attempt, site, visitor_key)
    TTL at + INTERVAL 1 HOUR`,
    // The visitor store's identity, id months cleared, and the like: key and value, latest wins.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.engine_state (
      key LowCardinality(String),
      value String,
      at ${TIME}
    ) ENGINE = ReplacingMergeTree(at)
    ORDER BY key`,
  ],
};

export const CLICKHOUSE_SCHEMA: readonly ClickHouseMigration[] = [V1];
