import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Forward-only schema migrations of `analytics.duckdb`. The applied version is stored in
 * `schema_version`; each migration runs in its own transaction together with the version bump,
 * so a crash leaves the database at one version or the next. A database written by a newer
 * Footfall (a version this code does not know) is refused rather than guessed at.
 */
export interface Migration {
  version: number;
  /** what the migration changes, for humans */
  name: string;
  statements: string[];
}

const V1: Migration = {
  version: 1,
  name: 'events, visits, crawler and bot counters, stream positions',
  statements: [
    // One row per stored WalEvent. visitor_key is a 64-bit digest of the visitor id: counting
    // distinct integers is much cheaper than distinct strings. session_id and visit_start are
    // the visit the event belongs to (NULL for an engagement or vitals event outside any visit);
    // visit_first marks the first pageview of a path (or custom event of a name) in its visit,
    // which lets reports count visits and visitors per page without DISTINCT over events.
    `CREATE TABLE events (
      site VARCHAR NOT NULL,
      id VARCHAR NOT NULL,
      ts TIMESTAMPTZ NOT NULL,
      kind VARCHAR NOT NULL,
      name VARCHAR,
      props VARCHAR,
      host VARCHAR NOT NULL,
      path VARCHAR NOT NULL,
      visitor VARCHAR NOT NULL,
      visitor_key UBIGINT NOT NULL,
      id_mode VARCHAR NOT NULL,
      referrer_host VARCHAR,
      referrer_path VARCHAR,
      channel VARCHAR NOT NULL,
      assistant VARCHAR,
      utm_source VARCHAR,
      utm_medium VARCHAR,
      utm_campaign VARCHAR,
      utm_term VARCHAR,
      utm_content VARCHAR,
      click_id VARCHAR,
      browser VARCHAR,
      browser_version VARCHAR,
      os VARCHAR,
      os_version VARCHAR,
      device VARCHAR NOT NULL,
      language VARCHAR,
      country VARCHAR,
      region VARCHAR,
      city VARCHAR,
      screen_w INTEGER,
      screen_h INTEGER,
      engaged_ms BIGINT,
      scroll DOUBLE,
      lcp DOUBLE,
      fcp DOUBLE,
      inp DOUBLE,
      ttfb DOUBLE,
      cls DOUBLE,
      session_id UBIGINT,
      visit_start TIMESTAMPTZ,
      visit_first BOOLEAN NOT NULL DEFAULT false
    )`,
    // One row per visit, rebuilt by the loader whenever one of its events arrives. Visit-level
    // attributes come from the visit's first pageview (its first event when it has none).
    `CREATE TABLE sessions (
      site VARCHAR NOT NULL,
      session_id UBIGINT NOT NULL,
      visitor VARCHAR NOT NULL,
      visitor_key UBIGINT NOT NULL,
      started_at TIMESTAMPTZ NOT NULL,
      last_at TIMESTAMPTZ NOT NULL,
      ended_at TIMESTAMPTZ NOT NULL,
      duration_ms BIGINT NOT NULL,
      pageviews INTEGER NOT NULL,
      events INTEGER NOT NULL,
      channel VARCHAR,
      assistant VARCHAR,
      referrer VARCHAR,
      entry_page VARCHAR,
      exit_page VARCHAR,
      utm_source VARCHAR,
      utm_medium VARCHAR,
      utm_campaign VARCHAR,
      country VARCHAR,
      region VARCHAR,
      city VARCHAR,
      device VARCHAR,
      browser VARCHAR,
      os VARCHAR,
      language VARCHAR
    )`,
    // status_class: 1..5 for 1xx..5xx, 0 when the recipe could not know the status.
    `CREATE TABLE crawl_counters (
      site VARCHAR NOT NULL,
      day DATE NOT NULL,
      robot VARCHAR NOT NULL,
      robot_kind VARCHAR NOT NULL,
      path VARCHAR NOT NULL,
      status_class UTINYINT NOT NULL,
      hits BIGINT NOT NULL,
      PRIMARY KEY (site, day, robot, robot_kind, path, status_class)
    )`,
    `CREATE TABLE bot_counters (
      site VARCHAR NOT NULL,
      day DATE NOT NULL,
      kind VARCHAR NOT NULL,
      hits BIGINT NOT NULL,
      PRIMARY KEY (site, day, kind)
    )`,
    // The last WAL sequence number applied per stream, committed with the batch it ends.
    `CREATE TABLE stream_positions (
      stream VARCHAR PRIMARY KEY,
      seq UBIGINT NOT NULL
    )`,
  ],
};

// Written out (not derived from VISIT_DIMENSIONS): a released migration never changes.
const V2_DIMENSIONS = [
  ['channel', 'channel'],
  ['referrer', 'referrer'],
  ['entry_page', 'entry_page'],
  ['exit_page', 'exit_page'],
  ['campaign', 'utm_campaign'],
  ['source', 'utm_source'],
  ['medium', 'utm_medium'],
  ['country', 'country'],
  ['region', 'region'],
  ['city', 'city'],
  ['device', 'device'],
  ['browser', 'browser'],
  ['os', 'os'],
  ['language', 'language'],
] as const;

const V2: Migration = {
  version: 2,
  name: "each visit's previous visit by the same visitor, overall and per dimension value; each first view's previous visit with that view",
  statements: [
    // prev_at: start of the visitor's previous visit; prev_<dimension>: start of their previous
    // visit with the same value of that dimension (NULL is a value too). NULL when there is none
    // within 33 days before (older ones may be left out; version 5 lifts that limit). A report counts a visitor once per
    // value as the visits whose previous same-value visit started before the period (or day, or
    // chart bucket): exact distinct visitors in one pass, no hash on visitors (report-sql.ts).
    'ALTER TABLE sessions ADD COLUMN prev_at TIMESTAMPTZ',
    ...V2_DIMENSIONS.map(([d]) => `ALTER TABLE sessions ADD COLUMN prev_${d} TIMESTAMPTZ`),
    // Stored visits get theirs from all their visitor's visits at once.
    `UPDATE sessions SET prev_at = p.prev_at, ${V2_DIMENSIONS.map(([d]) => `prev_${d} = p.prev_${d}`).join(', ')}
     FROM (
       SELECT site, session_id,
         lag(started_at) OVER (PARTITION BY site, visitor ORDER BY started_at) AS prev_at,
         ${V2_DIMENSIONS.map(([d, c]) => `lag(started_at) OVER (PARTITION BY site, visitor, ${c} ORDER BY started_at) AS prev_${d}`).join(',\n         ')}
       FROM sessions) p
     WHERE sessions.site = p.site AND sessions.session_id = p.session_id`,
    // On the first pageview of a path (first custom event of a name) in a visit: the start of
    // the visitor's previous visit with a first view of the same path (name); NULL otherwise.
    'ALTER TABLE events ADD COLUMN prev_view_at TIMESTAMPTZ',
    `UPDATE events SET prev_view_at = p.prev_view_at
     FROM (
       SELECT site, id, ts,
         lag(visit_start) OVER (
           PARTITION BY site, visitor, kind, CASE WHEN kind = 'pv' THEN path ELSE name END
           ORDER BY visit_start) AS prev_view_at
       FROM events WHERE visit_first) p
     WHERE events.site = p.site AND events.id = p.id AND events.ts = p.ts AND p.prev_view_at IS NOT NULL`,
  ],
};

const V3: Migration = {
  version: 3,
  name: 'cookieless visits that run over midnight: the links between a visitor hash and the next day one',
  statements: [
    // One row per (yesterday's hash p, today's hash x) of a person whose event in the first 30
    // minutes of a day carried both; `last_at` is the latest event the loader has seen of that pair's
    // chain. The loader relabels x's events that continue p's visit (visits/engine.ts). Rows older
    // than a few days are deleted: no event can still join them.
    `CREATE TABLE visit_carries (
      site VARCHAR NOT NULL,
      p VARCHAR NOT NULL,
      x VARCHAR NOT NULL,
      last_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (site, p, x)
    )`,
  ],
};

const V4: Migration = {
  version: 4,
  name: 'UTM term and content as visit dimensions, with their previous visits',
  statements: [
    // A visit's term and content come from its first pageview (its first event without one), as
    // its campaign does: stored visits get them from their events.
    'ALTER TABLE sessions ADD COLUMN utm_term VARCHAR',
    'ALTER TABLE sessions ADD COLUMN utm_content VARCHAR',
    'ALTER TABLE sessions ADD COLUMN prev_term TIMESTAMPTZ',
    'ALTER TABLE sessions ADD COLUMN prev_content TIMESTAMPTZ',
    `UPDATE sessions SET utm_term = f.x.t, utm_content = f.x.c
     FROM (
       SELECT site, session_id, first({t: utm_term, c: utm_content} ORDER BY kind <> 'pv', ts, id) AS x
       FROM events WHERE session_id IS NOT NULL AND kind IN ('pv', 'ev') GROUP BY site, session_id) f
     WHERE sessions.site = f.site AND sessions.session_id = f.session_id
       AND (f.x.t IS NOT NULL OR f.x.c IS NOT NULL)`,
    // as migration 2 did for the other dimensions: each visit's previous visit with the same value
    `UPDATE sessions SET prev_term = p.prev_term, prev_content = p.prev_content
     FROM (
       SELECT site, session_id,
         lag(started_at) OVER (PARTITION BY site, visitor, utm_term ORDER BY started_at) AS prev_term,
         lag(started_at) OVER (PARTITION BY site, visitor, utm_content ORDER BY started_at) AS prev_content
       FROM sessions) p
     WHERE sessions.site = p.site AND sessions.session_id = p.session_id`,
  ],
};

// Written out (not derived from VISIT_DIMENSIONS): a released migration never changes.
const V5_DIMENSIONS = [...V2_DIMENSIONS, ['term', 'utm_term'], ['content', 'utm_content']] as const;

const V5: Migration = {
  version: 5,
  name: 'previous visits and first views without the 33-day look-back, so unfiltered reports of any period use them',
  statements: [
    // Until version 4 the loader looked back 33 days for previous visits (older ones came out
    // NULL). It now looks at all of a visitor's stored visits: recompute every visit's and first
    // view's previous one from all visits, and rewrite only the rows that change.
    `UPDATE sessions SET prev_at = p.prev_at, ${V5_DIMENSIONS.map(([d]) => `prev_${d} = p.prev_${d}`).join(', ')}
     FROM (
       SELECT site, session_id,
         lag(started_at) OVER (PARTITION BY site, visitor ORDER BY started_at) AS prev_at,
         ${V5_DIMENSIONS.map(([d, c]) => `lag(started_at) OVER (PARTITION BY site, visitor, ${c} ORDER BY started_at) AS prev_${d}`).join(',\n         ')}
       FROM sessions) p
     WHERE sessions.site = p.site AND sessions.session_id = p.session_id
       AND (sessions.prev_at IS DISTINCT FROM p.prev_at
         ${V5_DIMENSIONS.map(([d]) => `OR sessions.prev_${d} IS DISTINCT FROM p.prev_${d}`).join('\n         ')})`,
    `UPDATE events SET prev_view_at = p.prev_view_at
     FROM (
       SELECT site, id, ts,
         lag(visit_start) OVER (
           PARTITION BY site, visitor, kind, CASE WHEN kind = 'pv' THEN path ELSE name END
           ORDER BY visit_start) AS prev_view_at
       FROM events WHERE visit_first) p
     WHERE events.site = p.site AND events.id = p.id AND events.ts = p.ts
       AND events.prev_view_at IS DISTINCT FROM p.prev_view_at`,
  ],
};

const V6: Migration = {
  version: 6,
  name: "each visit's previous same-value visits stored mostly as NULL: NULL when it is the previous visit, -infinity when there is none",
  statements: [
    // Written out: a released migration never changes. Until version 5 a
    // prev_<dimension> column held the time itself, NULL when there was none; most equal prev_at.
    // Now NULL means "the same as prev_at" and '-infinity' means none (visits-sql.ts). The columns
    // are rewritten in one statement, so no row is read half converted.
    `UPDATE sessions SET ${V5_DIMENSIONS.map(
      ([d]) =>
        `prev_${d} = CASE WHEN prev_${d} IS NOT DISTINCT FROM prev_at THEN NULL ELSE coalesce(prev_${d}, '-infinity'::TIMESTAMPTZ) END`,
    ).join(',\n       ')}
     WHERE prev_at IS NOT NULL`,
  ],
};

const V7: Migration = {
  version: 7,
  name: 'events without the visitor id string: visitor_key finds them, the visit keeps the string',
  statements: [
    // Every event stored its visitor's id (21 to 28 characters, about 8 bytes per event at 1M
    // demo events even compressed) beside visitor_key, its 64-bit digest. Readers now find a
    // visitor's events by visitor_key and take the string from the visit (sessions.visitor) or
    // from the caller, who named the visitor.
    'ALTER TABLE events DROP COLUMN visitor',
  ],
};

const V8: Migration = {
  version: 8,
  name: 'day rollups: per site, time zone and local day, the visit and view sums reports read (rollup-sql.ts)',
  statements: [
    // One row per (section, value, local day of the previous same-value visit or view) of a
    // local day: what an unfiltered report needs of that day, visitors included (rollup-sql.ts).
    // Built on demand by the engine, per zone; a later migration that rewrites sessions or events
    // must empty both tables.
    `CREATE TABLE day_rollup (
      site VARCHAR NOT NULL,
      tz VARCHAR NOT NULL,
      day INTEGER NOT NULL,
      sect UTINYINT NOT NULL,
      val VARCHAR,
      p INTEGER,
      visits BIGINT NOT NULL,
      pageviews BIGINT NOT NULL,
      bounces BIGINT NOT NULL,
      duration_ms BIGINT NOT NULL,
      hits BIGINT NOT NULL
    )`,
    // The days whose rollup rows are current. The loader deletes a day here (in the batch's
    // transaction) when the batch rebuilds a visit that starts before the day ends.
    `CREATE TABLE rollup_days (
      site VARCHAR NOT NULL,
      tz VARCHAR NOT NULL,
      day INTEGER NOT NULL,
      day_end TIMESTAMPTZ NOT NULL
    )`,
  ],
};

const V9: Migration = {
  version: 9,
  name: 'visits built in memory: the batch generation of each visit row, and the loader state the visitor store follows',
  statements: [
    // The loader keeps what the visit rules need of each visitor in visitors.db (apps/query/src/
    // visits), written after each batch commits here. `gen` is the batch that last wrote a visit,
    // so a store left behind by a crash between the two commits is repaired for the visitors of
    // the batches it missed; loader_state holds the store's identity and the last batch.
    'ALTER TABLE sessions ADD COLUMN gen UBIGINT',
    `CREATE TABLE loader_state (store_id VARCHAR NOT NULL, generation UBIGINT NOT NULL)`,
    // Visitors a batch changed without writing a visit of theirs (a replay left them none, a carry
    // linked them): the repair rebuilds them too.
    `CREATE TABLE loader_touched (gen UBIGINT NOT NULL, site VARCHAR NOT NULL, visitor VARCHAR NOT NULL)`,
  ],
};

const V10: Migration = {
  version: 10,
  name: 'day rollups hold page engagement too: rolled up again from the visits',
  statements: [
    // Rolled days gain an `engagement` section (rollup-sql.ts ENGAGEMENT_SECTION): days rolled
    // up before have none, so every day is built again by the next preparation (about 10 s at
    // 10M events); until then reports read raw visits, exact as always.
    'DELETE FROM day_rollup',
    'DELETE FROM rollup_days',
  ],
};

/** Every migration this code knows, in order. Append only: never edit a released migration. */
export const MIGRATIONS: readonly Migration[] = [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Thrown when the database was written by a newer Footfall than this one. */
export class NewerSchemaError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `analytics.duckdb has schema version ${found} but this Footfall only knows up to ${known}: ` +
        'it was written by a newer version. Run that version, or restore the copy taken before the upgrade ' +
        '(data/backups/before-upgrade, `footfall admin open-backup`).',
    );
    this.name = 'NewerSchemaError';
  }
}

/** Reads the stored schema version (0 for a fresh database). */
export async function schemaVersion(connection: DuckDBConnection): Promise<number> {
  await connection.run('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const rows = (
    await connection.runAndReadAll('SELECT max(version) AS v FROM schema_version')
  ).getRowObjectsJS();
  const found = rows[0]?.['v'];
  return typeof found === 'number' ? found : 0;
}

/** What a start is told while it migrates. */
export interface MigrateHooks {
  /** told as each migration begins (the service logs it) */
  onMigration?: (m: { version: number; name: string }) => void;
}

/**
 * Brings the database up to the newest known version, or throws NewerSchemaError without
 * touching anything. Returns the versions it applied. `beforeChange` runs first when a database
 * that already has a schema is about to change (the before-upgrade copy); when it throws, nothing
 * is changed. Each migration is one transaction with its version: a process killed in the middle
 * of one leaves the version before it, and the next start runs it again whole.
 */
export async function migrate(
  connection: DuckDBConnection,
  migrations: readonly Migration[] = MIGRATIONS,
  beforeChange?: (fromVersion: number) => Promise<void>,
  hooks: MigrateHooks = {},
): Promise<number[]> {
  const known = migrations[migrations.length - 1]?.version ?? 0;
  const current = await schemaVersion(connection);
  if (current > known) throw new NewerSchemaError(current, known);
  if (current > 0 && current < known) await beforeChange?.(current);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    hooks.onMigration?.({ version: migration.version, name: migration.name });
    await connection.run('BEGIN TRANSACTION');
    try {
      for (const statement of migration.statements) await connection.run(statement);
      await connection.run('INSERT INTO schema_version VALUES ($1)', [migration.version]);
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK');
      throw error;
    }
    applied.push(migration.version);
  }
  return applied;
}
