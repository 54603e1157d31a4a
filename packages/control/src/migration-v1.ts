import type { ControlMigration } from './migrations.ts';

/** The control database's first schema (migration 1): the tables every later migration builds on. */
export const V1: ControlMigration = {
  version: 1,
  name: 'people, sessions, two-step, API keys, sites, site access and layout, daily salts',
  sql: `
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

    CREATE TABLE people (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE COLLATE NOCASE,
      password_hash TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
      must_change_password INTEGER NOT NULL DEFAULT 0,
      all_sites INTEGER NOT NULL DEFAULT 1,
      totp_secret TEXT,
      totp_last_step INTEGER,
      created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE two_step_setups (
      person_id TEXT PRIMARY KEY REFERENCES people(id) ON DELETE CASCADE,
      secret TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE recovery_codes (
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      code_hash TEXT NOT NULL,
      used_at INTEGER,
      PRIMARY KEY (person_id, code_hash)
    ) STRICT;

    CREATE TABLE sessions (
      token_hash TEXT PRIMARY KEY,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      csrf_token TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX sessions_person ON sessions(person_id);

    CREATE TABLE sign_in_challenges (
      token_hash TEXT PRIMARY KEY,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      expires_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0
    ) STRICT;

    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      start TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      created_by TEXT REFERENCES people(id) ON DELETE SET NULL,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER
    ) STRICT;

    CREATE TABLE sites (
      id TEXT PRIMARY KEY,
      domain TEXT NOT NULL UNIQUE,
      timezone TEXT NOT NULL,
      currency TEXT NOT NULL,
      cookieless INTEGER NOT NULL DEFAULT 0 CHECK (cookieless IN (0, 1)),
      proxy_key TEXT NOT NULL,
      city_recording INTEGER NOT NULL DEFAULT 0 CHECK (city_recording IN (0, 1)),
      icon TEXT,
      colour TEXT,
      created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE site_access (
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      PRIMARY KEY (person_id, site_id)
    ) STRICT;

    CREATE TABLE site_layout (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      layout TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;

    -- analytics of a deleted site still to be removed (retried at start until the engine confirms)
    CREATE TABLE site_deletions (site_id TEXT PRIMARY KEY, requested_at INTEGER NOT NULL) STRICT;

    -- the ingest gateway's cookieless salts: one per day, forgotten after its day
    CREATE TABLE daily_salts (day TEXT PRIMARY KEY, salt BLOB NOT NULL) STRICT;
  `,
};
