import type { ClickHouseMigration } from './migrations.ts';

/**
 * The ClickHouse engine's tables (README.md in this folder, "Schema"). Written out per version: a
 * released migration never changes.
 *
 * The read rule: every table that the loader may write a row of twice is a ReplacingMergeTree whose
 * sorting key is the row's identity, and reports read it with `FINAL` (merged at read time, within
 * each month's partition: a row's identity never changes its partition). That makes a batch that
 * is applied again after a crash, whole or in part, change nothing, and lets a replay replace the
 * rows it rebuilds by writing them again with a later version (`gen`, the batch's generation).
 */

/** Strings repeated across rows: dictionary-encoded. */
const LC = 'LowCardinality(String)';
const LCN = 'LowCardinality(Nullable(String))';
const TIME = "DateTime64(3, 'UTC')";

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
] as const;

const V1: ClickHouseMigration = {
  version: 1,
  name: 'events, visits, counters, stream positions and loader state',
  statements: [
    // One row per stored event. Identity: (site, day, visitor, time, id), which never changes;
    // a replay writes the event again with its new visit and a later gen.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.events (
      site ${LC},
      ts ${TIME} CODEC(DoubleDelta, ZSTD(1)),
      id String CODEC(ZSTD(1)),
      kind ${LC},
      name ${LCN},
      props Nullable(String) CODEC(ZSTD(1)),
      host ${LC},
      path ${LC},
      visitor_key UInt64,
      id_mode ${LC},
      referrer_host ${LCN},
      referrer_path Nullable(String) CODEC(ZSTD(1)),
      channel ${LC},
      assistant ${LCN},
      utm_source ${LCN},
      utm_medium ${LCN},
      utm_campaign ${LCN},
      utm_term ${LCN},
      utm_content ${LCN},
      click_id Nullable(String) CODEC(ZSTD(1)),
      browser ${LCN},
      browser_version ${LCN},
      os ${LCN},
      os_version ${LCN},
      device ${LC},
      language ${LCN},
      country ${LCN},
      region ${LCN},
      city ${LCN},
      screen_w Nullable(Int32),
      screen_h Nullable(Int32),
      engaged_ms Nullable(Int64),
      scroll Nullable(Float64),
      lcp Nullable(Float64),
      fcp Nullable(Float64),
      inp Nullable(Float64),
      ttfb Nullable(Float64),
      cls Nullable(Float64),
      session_id Nullable(UInt64),
      visit_start Nullable(${TIME}),
      visit_first Bool DEFAULT false,
      prev_view_at Nullable(${TIME}),
      gen UInt64
    ) ENGINE = ReplacingMergeTree(gen)
    PARTITION BY toYYYYMM(ts)
    ORDER BY (site, toDate(ts), visitor_key, ts, id)`,
    // One row per visit. Its id is the digest of site, visitor and start, so its identity (site,
    // start day, id) never changes: a visit whose start moved is a new row, and the old one is
    // written again with is_deleted = 1 (FINAL leaves it out).
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.sessions (
      site ${LC},
      session_id UInt64,
      visitor String CODEC(ZSTD(1)),
      visitor_key UInt64,
      started_at ${TIME} CODEC(DoubleDelta, ZSTD(1)),
      last_at ${TIME},
      ended_at ${TIME},
      duration_ms Int64,
      pageviews Int32,
      events Int32,
      channel ${LCN},
      assistant ${LCN},
      referrer ${LCN},
      entry_page ${LCN},
      exit_page ${LCN},
      utm_source ${LCN},
      utm_medium ${LCN},
      utm_campaign ${LCN},
      utm_term ${LCN},
      utm_content ${LCN},
      country ${LCN},
      region ${LCN},
      city ${LCN},
      device ${LCN},
      browser ${LCN},
      os ${LCN},
      language ${LCN},
      prev_at Nullable(${TIME}),
      ${PREV_DIMENSIONS.map((d) => `prev_${d} Nullable(${TIME})`).join(',\n      ')},
      gen UInt64,
      is_deleted UInt8 DEFAULT 0
    ) ENGINE = ReplacingMergeTree(gen, is_deleted)
    PARTITION BY toYYYYMM(started_at)
    ORDER BY (site, toDate(started_at), session_id)`,
    // Robots' requests and the bot traffic the gateway dropped: one row per WAL record (each is
    // one request), identified by its stream and sequence number, so a record applied twice is
    // one row under FINAL; reports count rows. (Rows per batch and key could not be summed
    // safely: a batch read again after a crash may end elsewhere.)
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.crawl_hits (
      site ${LC},
      day Date,
      robot ${LC},
      robot_kind ${LC},
      path ${LC},
      status_class UInt8,
      stream ${LC},
      seq UInt64
    ) ENGINE = ReplacingMergeTree
    PARTITION BY toYYYYMM(day)
    ORDER BY (site, day, robot, robot_kind, path, status_class, stream, seq)`,
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.bot_drops (
      site ${LC},
      day Date,
      kind ${LC},
      stream ${LC},
      seq UInt64
    ) ENGINE = ReplacingMergeTree
    PARTITION BY toYYYYMM(day)
    ORDER BY (site, day, kind, stream, seq)`,
    // A cookieless visitor's new-day id (x) that carried the day before's (p); kept three days.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.visit_carries (
      site ${LC},
      p String,
      x String,
      last_at ${TIME}
    ) ENGINE = ReplacingMergeTree(last_at)
    ORDER BY (site, p, x)
    TTL toDateTime(last_at) + INTERVAL 3 DAY`,
    // The last WAL sequence number applied per stream: written after the rest of its batch.
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.stream_positions (
      stream String,
      seq UInt64
    ) ENGINE = ReplacingMergeTree(seq)
    ORDER BY stream`,
    // The loader's generation and visitor store identity (a single row, the latest wins), and the
    // visitors each batch touched (to repair the visitor store after a crash between the two).
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.loader_state (
      one UInt8 DEFAULT 1,
      store_id String,
      generation UInt64
    ) ENGINE = ReplacingMergeTree(generation)
    ORDER BY one`,
    `CREATE TABLE IF NOT EXISTS {db:Identifier}.loader_touched (
      gen UInt64,
      site ${LC},
      visitor String
    ) ENGINE = ReplacingMergeTree
    ORDER BY (gen, site, visitor)`,
  ],
};

export const CLICKHOUSE_SCHEMA: readonly ClickHouseMigration[] = [V1];
