/**
 * The control database's migrations from 11 on: share links, funnels, milestones, Search Console,
 * retention, a site's Umami id, shields, segments and imported data. Listed in order in
 * migrations.ts; never edit a released one.
 */
import type { ControlMigration } from './migrations.ts';

export const V11: ControlMigration = {
  version: 11,
  name: 'share links',
  // a read-only link to a site's dashboard: found by the SHA-256 of its token; the token itself
  // sealed ('share-token') so owners can copy the link again; an optional password (scrypt)
  sql: `
    CREATE TABLE shares (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      token_hash TEXT NOT NULL UNIQUE,
      token TEXT NOT NULL,
      label TEXT,
      password_hash TEXT,
      show_notes INTEGER NOT NULL DEFAULT 0 CHECK (show_notes IN (0, 1)),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      last_used_at INTEGER
    ) STRICT;
    CREATE INDEX shares_site ON shares(site_id, created_at);
  `,
};

export const V12: ControlMigration = {
  version: 12,
  name: 'funnels of a site',
  // ordered steps (each a page path pattern or a custom event, as goals match), counted within one
  // visit or within a number of days from the first step
  sql: `
    CREATE TABLE funnels (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      steps TEXT NOT NULL,
      within_days INTEGER CHECK (within_days IS NULL OR within_days BETWEEN 1 AND 90),
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX funnels_site ON funnels(site_id, created_at);
  `,
};

export const V13: ControlMigration = {
  version: 13,
  name: 'milestones',
  // a site's milestones as the daily check found them (one row per kind and step), who closed each
  // one's moment, the public links to them (token found by its SHA-256, itself sealed
  // 'milestone-token'), and the kinds an owner switched off
  sql: `
    CREATE TABLE milestones (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      step TEXT NOT NULL,
      value INTEGER NOT NULL,
      detail TEXT,
      day TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (site_id, kind, step)
    ) STRICT;
    CREATE TABLE milestone_seen (
      milestone_id TEXT NOT NULL REFERENCES milestones(id) ON DELETE CASCADE,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      seen_at INTEGER NOT NULL,
      PRIMARY KEY (milestone_id, person_id)
    ) STRICT;
    CREATE TABLE milestone_shares (
      milestone_id TEXT PRIMARY KEY REFERENCES milestones(id) ON DELETE CASCADE,
      token_hash TEXT NOT NULL UNIQUE,
      token TEXT NOT NULL,
      show_amount INTEGER NOT NULL DEFAULT 0 CHECK (show_amount IN (0, 1)),
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE milestone_settings (
      site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
      kinds_off TEXT NOT NULL DEFAULT '[]',
      checked_day TEXT
    ) STRICT;
  `,
};

export const V14: ControlMigration = {
  version: 14,
  name: 'search console',
  // a site's Search Console property and key (sealed 'search-console'), and the clicks pulled per page and day
  sql: `
    CREATE TABLE search_console (
      site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
      property TEXT NOT NULL,
      client_email TEXT NOT NULL,
      credentials TEXT NOT NULL,
      connected_at INTEGER NOT NULL,
      synced_at INTEGER,
      last_error TEXT,
      last_error_at INTEGER
    ) STRICT;
    CREATE TABLE search_clicks (
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      day TEXT NOT NULL,
      path TEXT NOT NULL,
      clicks INTEGER NOT NULL,
      impressions INTEGER NOT NULL,
      PRIMARY KEY (site_id, day, path)
    ) STRICT;
  `,
};

export const V15: ControlMigration = {
  version: 15,
  name: 'visit retention per site',
  // days of visits a site keeps (null: the instance's FOOTFALL_RETENTION_DAYS, or all)
  sql: `ALTER TABLE sites ADD COLUMN retention_days INTEGER;`,
};

export const V16: ControlMigration = {
  version: 16,
  name: "a site's Umami website id",
  // the id of the site in Umami: its script's /api/send events name it (the gateway's compat.ts)
  sql: `
    ALTER TABLE sites ADD COLUMN umami_website_id TEXT;
    CREATE UNIQUE INDEX sites_umami_website_id ON sites (umami_website_id);
  `,
};

export const V17: ControlMigration = {
  version: 17,
  name: "a site's shields",
  // traffic never counted (shields.ts): JSON lists of addresses, countries, pages and hosts; null for none
  sql: `ALTER TABLE sites ADD COLUMN shields TEXT;`,
};

export const V18: ControlMigration = {
  version: 18,
  name: 'saved segments',
  // a named set of report filters (segments.ts): private to its author, or shared with the site's
  // readers; a private one goes with its author, a shared one stays without
  sql: `
    CREATE TABLE segments (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      person_id TEXT REFERENCES people(id) ON DELETE SET NULL,
      name TEXT NOT NULL,
      filters TEXT NOT NULL,
      shared INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX segments_site ON segments(site_id);
    CREATE TRIGGER segments_private_with_author AFTER UPDATE OF person_id ON segments
      WHEN NEW.person_id IS NULL AND NEW.shared = 0
      BEGIN DELETE FROM segments WHERE id = NEW.id; END;
  `,
};

export const V19: ControlMigration = {
  version: 19,
  name: 'imported data',
  // daily aggregates imported from another tool (imports.ts, docs/imports.md), apart from native
  // data: an import's rows count in reports once its state is 'done'; one left 'importing' by a
  // stop is removed at the next start
  sql: `
    CREATE TABLE imports (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      source TEXT NOT NULL,
      name TEXT NOT NULL,
      state TEXT NOT NULL,
      first_day TEXT,
      last_day TEXT,
      rows_read INTEGER NOT NULL DEFAULT 0,
      rows_skipped INTEGER NOT NULL DEFAULT 0,
      skipped TEXT NOT NULL DEFAULT '{}',
      person_id TEXT REFERENCES people(id) ON DELETE SET NULL,
      created_at INTEGER NOT NULL,
      finished_at INTEGER
    ) STRICT;
    CREATE INDEX imports_site ON imports(site_id);
    CREATE TABLE imported_days (
      import_id TEXT NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
      day TEXT NOT NULL,
      visitors INTEGER NOT NULL,
      visits INTEGER NOT NULL,
      pageviews INTEGER NOT NULL,
      bounces INTEGER NOT NULL,
      duration INTEGER NOT NULL,
      PRIMARY KEY (import_id, day)
    ) STRICT;
    CREATE TABLE imported_rows (
      import_id TEXT NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
      dimension TEXT NOT NULL,
      day TEXT NOT NULL,
      value TEXT,
      visitors INTEGER NOT NULL,
      visits INTEGER NOT NULL,
      pageviews INTEGER NOT NULL,
      bounces INTEGER NOT NULL,
      duration INTEGER NOT NULL,
      events INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX imported_rows_by_day ON imported_rows(import_id, dimension, day);
  `,
};

export const V20: ControlMigration = {
  version: 20,
  name: 'e-mail reports',
  // who receives which site's weekly and monthly report (email-reports.ts, docs/email-reports.md),
  // and one row per report due: a period's row is made once (its key), so a report is never sent
  // twice for one period, across restarts too. `origin` is the address the person chose it at,
  // for the e-mail's links when FOOTFALL_BASE_URL is not set
  sql: `
    CREATE TABLE email_reports (
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      weekly INTEGER NOT NULL,
      monthly INTEGER NOT NULL,
      origin TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (person_id, site_id)
    ) STRICT;
    CREATE TABLE email_report_sends (
      id INTEGER PRIMARY KEY,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      period_from TEXT NOT NULL,
      period_to TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_at INTEGER NOT NULL,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      done_at INTEGER,
      UNIQUE (person_id, site_id, kind, period_from)
    ) STRICT;
    CREATE INDEX email_report_sends_due ON email_report_sends(state, next_at);
  `,
};

export const V21: ControlMigration = {
  version: 21,
  name: "e-mail reports in the person's language",
  // the language the person chose their reports in (the dashboard's, when they chose): the
  // e-mail's words and its unsubscribe page (email-reports.ts REPORT_LANGUAGES)
  sql: `ALTER TABLE email_reports ADD COLUMN language TEXT NOT NULL DEFAULT 'en';`,
};

export const V22: ControlMigration = {
  version: 22,
  name: 'e-mail reports of all sites at once',
  // a person's weekly and monthly report of every site they may read, in one e-mail
  // (email-reports.ts, docs/email-reports.md); its sends are the sends' rows with no site, kept
  // once per period by their own unique index (NULLs are distinct in the table's UNIQUE)
  sql: `
    CREATE TABLE email_reports_all (
      person_id TEXT PRIMARY KEY REFERENCES people(id) ON DELETE CASCADE,
      weekly INTEGER NOT NULL,
      monthly INTEGER NOT NULL,
      origin TEXT NOT NULL,
      language TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE email_report_sends_v22 (
      id INTEGER PRIMARY KEY,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      site_id TEXT REFERENCES sites(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      period_from TEXT NOT NULL,
      period_to TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_at INTEGER NOT NULL,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      done_at INTEGER,
      UNIQUE (person_id, site_id, kind, period_from)
    ) STRICT;
    INSERT INTO email_report_sends_v22 SELECT * FROM email_report_sends;
    DROP TABLE email_report_sends;
    ALTER TABLE email_report_sends_v22 RENAME TO email_report_sends;
    CREATE INDEX email_report_sends_due ON email_report_sends(state, next_at);
    CREATE UNIQUE INDEX email_report_sends_all ON email_report_sends(person_id, kind, period_from)
      WHERE site_id IS NULL;
  `,
};
