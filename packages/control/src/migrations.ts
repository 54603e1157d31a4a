/**
 * Forward-only migrations of the control database. `PRAGMA user_version` holds the number of the
 * last one applied. Never edit a released migration: add the next one.
 */
import { V1 } from './migration-v1.ts';
import { V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21, V22 } from './migrations-later.ts';

export interface ControlMigration {
  version: number;
  name: string;
  sql: string;
}

const V2: ControlMigration = {
  version: 2,
  name: 'site domains without a leading www.',
  // `www.example.com` and `example.com` are one site: stored domains lose their `www.` unless the
  // bare one has a site of its own (both then keep working: the gateway compares without `www.`)
  sql: `
    UPDATE sites SET domain = substr(domain, 5)
    WHERE domain LIKE 'www.%' AND instr(substr(domain, 5), '.') > 0
      AND substr(domain, 5) NOT IN (SELECT domain FROM sites);
  `,
};

const V3: ControlMigration = {
  version: 3,
  name: "sites: the tracker's own consent bar",
  // off for every existing site; null text and colours stand for the defaults (consent-bar.ts)
  sql: `
    ALTER TABLE sites ADD COLUMN consent_bar INTEGER NOT NULL DEFAULT 0 CHECK (consent_bar IN (0, 1));
    ALTER TABLE sites ADD COLUMN consent_text TEXT;
    ALTER TABLE sites ADD COLUMN consent_background TEXT;
    ALTER TABLE sites ADD COLUMN consent_foreground TEXT;
  `,
};

const V4: ControlMigration = {
  version: 4,
  name: 'payments: connections, the webhook inbox and the ledger',
  // packages/payments/README.md states the invariants. The inbox keeps every acknowledged webhook
  // raw; the ledger tables are rebuilt from it at any time. Amounts are integers in minor units of
  // their own currency; times are unix ms.
  sql: `
    CREATE TABLE payment_connections (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      provider TEXT NOT NULL,
      name TEXT NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('live', 'sandbox')),
      -- sealed with the instance key ('provider-secret'); NULL until one is set
      signing_secret TEXT,
      created_at INTEGER NOT NULL,
      last_event_at INTEGER
    ) STRICT;
    CREATE INDEX payment_connections_site ON payment_connections(site_id);

    CREATE TABLE webhook_inbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      connection_id TEXT NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      event_id TEXT NOT NULL,
      received_at INTEGER NOT NULL,
      body BLOB NOT NULL,
      -- of the payer's e-mail (lower case), to find a person's payloads for a data request
      email_hash TEXT,
      UNIQUE (connection_id, event_id)
    ) STRICT;
    CREATE INDEX webhook_inbox_site ON webhook_inbox(site_id, seq);
    CREATE INDEX webhook_inbox_email ON webhook_inbox(email_hash) WHERE email_hash IS NOT NULL;

    CREATE TABLE ledger_payments (
      connection_id TEXT NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
      payment_id TEXT NOT NULL,
      site_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      amount INTEGER NOT NULL,
      tax INTEGER NOT NULL,
      currency TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('one_time', 'subscription', 'renewal')),
      test INTEGER NOT NULL CHECK (test IN (0, 1)),
      customer_id TEXT,
      subscription_id TEXT,
      email_hash TEXT,
      visitor TEXT,
      inbox_seq INTEGER NOT NULL,
      PRIMARY KEY (connection_id, payment_id)
    ) STRICT;
    CREATE INDEX ledger_payments_site ON ledger_payments(site_id, at);

    CREATE TABLE ledger_refunds (
      connection_id TEXT NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
      refund_id TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      site_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      test INTEGER NOT NULL CHECK (test IN (0, 1)),
      inbox_seq INTEGER NOT NULL,
      PRIMARY KEY (connection_id, refund_id)
    ) STRICT;
    CREATE INDEX ledger_refunds_site ON ledger_refunds(site_id, at);

    CREATE TABLE ledger_disputes (
      connection_id TEXT NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
      dispute_id TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      site_id TEXT NOT NULL,
      amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      test INTEGER NOT NULL CHECK (test IN (0, 1)),
      opened_at INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost')),
      status_at INTEGER NOT NULL,
      inbox_seq INTEGER NOT NULL,
      PRIMARY KEY (connection_id, dispute_id)
    ) STRICT;
    CREATE INDEX ledger_disputes_site ON ledger_disputes(site_id, status_at);
  `,
};

const V5: ControlMigration = {
  version: 5,
  name: 'payments: provider connections, set up automatically or by hand, and reconciliation',
  // `setup` is how the connection was made: 'automatic' (Footfall created the endpoint at the
  // provider with the owner's API key, kept sealed for reconciliation) or 'manual' (the owner pasted
  // the signing secret; the custom webhook is always manual). `waiting` counts deliveries answered
  // "retry later" because no signing secret was set yet. Inbox rows come from a webhook or from
  // reconciliation reading the provider's API.
  sql: `
    ALTER TABLE payment_connections ADD COLUMN setup TEXT NOT NULL DEFAULT 'manual'
      CHECK (setup IN ('automatic', 'manual'));
    -- sealed with the instance key ('provider-key'); NULL for manual connections
    ALTER TABLE payment_connections ADD COLUMN api_key TEXT;
    ALTER TABLE payment_connections ADD COLUMN endpoint_id TEXT;
    ALTER TABLE payment_connections ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE payment_connections ADD COLUMN last_waiting_at INTEGER;
    ALTER TABLE payment_connections ADD COLUMN sync_attempted_at INTEGER;
    ALTER TABLE payment_connections ADD COLUMN synced_at INTEGER;
    ALTER TABLE payment_connections ADD COLUMN sync_error TEXT;
    ALTER TABLE webhook_inbox ADD COLUMN source TEXT NOT NULL DEFAULT 'webhook'
      CHECK (source IN ('webhook', 'sync'));
  `,
};

const V6: ControlMigration = {
  version: 6,
  name: 'API keys limited to chosen sites',
  // a key is instance-wide (all_sites = 1, as every key made before) or sees only the sites listed
  // in api_key_sites; a deleted site leaves the keys limited to it with one site less
  sql: `
    ALTER TABLE api_keys ADD COLUMN all_sites INTEGER NOT NULL DEFAULT 1 CHECK (all_sites IN (0, 1));
    CREATE TABLE api_key_sites (
      key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      PRIMARY KEY (key_id, site_id)
    ) STRICT;
  `,
};

const V7: ControlMigration = {
  version: 7,
  name: "notes (annotations) on a site's chart",
  // a note is on one day of the site's zone, or on a span of days (end_day, inclusive); its author
  // is a person, forgotten (NULL) when that person is removed
  sql: `
    CREATE TABLE annotations (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      day TEXT NOT NULL,
      end_day TEXT,
      text TEXT NOT NULL,
      author_id TEXT REFERENCES people(id) ON DELETE SET NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      CHECK (end_day IS NULL OR end_day > day)
    ) STRICT;
    CREATE INDEX annotations_site_day ON annotations(site_id, day);
  `,
};

const V8: ControlMigration = {
  version: 8,
  name: 'modules switched off per site',
  // a JSON list of the site's modules an owner switched off; every module is on by default
  sql: `ALTER TABLE sites ADD COLUMN modules_off TEXT NOT NULL DEFAULT '[]';`,
};

const V9: ControlMigration = {
  version: 9,
  name: 'goals of a site',
  // a goal is reached by a pageview whose path matches `match` (with * wildcards), or by a custom
  // event named `match`, optionally with the property prop_key equal to prop_value
  sql: `
    CREATE TABLE goals (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('page', 'event')),
      match TEXT NOT NULL,
      prop_key TEXT,
      prop_value TEXT,
      created_at INTEGER NOT NULL,
      CHECK ((prop_key IS NULL) = (prop_value IS NULL)),
      CHECK (kind = 'event' OR prop_key IS NULL)
    ) STRICT;
    CREATE INDEX goals_site ON goals(site_id, created_at);
  `,
};

const V10: ControlMigration = {
  version: 10,
  name: 'alerts and the install check',
  // alert destinations of a site (the URL or address sealed with the instance key, 'alert-target';
  // a webhook's signing secret sealed too, 'alert-secret'), the deliveries waiting or done (each
  // retried with backoff until it is sent or gives up), what each rule last saw (scope is a site id
  // or '*' for the instance), each site's last install check, and its favicon as fetched (or
  // null when it has none)
  sql: `
    CREATE TABLE alert_destinations (
      id TEXT PRIMARY KEY,
      site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
      channel TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
      target TEXT NOT NULL,
      host TEXT NOT NULL,
      secret TEXT,
      kinds TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_sent_at INTEGER,
      last_failed_at INTEGER,
      last_error TEXT,
      CHECK ((channel = 'webhook') = (secret IS NOT NULL))
    ) STRICT;
    CREATE INDEX alert_destinations_site ON alert_destinations(site_id, created_at);

    CREATE TABLE alert_deliveries (
      id INTEGER PRIMARY KEY,
      destination_id TEXT NOT NULL REFERENCES alert_destinations(id) ON DELETE CASCADE,
      alert_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_at INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
      last_error TEXT,
      done_at INTEGER
    ) STRICT;
    CREATE INDEX alert_deliveries_due ON alert_deliveries(state, next_at);
    CREATE INDEX alert_deliveries_destination ON alert_deliveries(destination_id);
    CREATE INDEX alert_deliveries_done ON alert_deliveries(done_at) WHERE state != 'pending';

    CREATE TABLE alert_state (
      scope TEXT NOT NULL,
      name TEXT NOT NULL,
      value TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (scope, name)
    ) STRICT;
    CREATE TRIGGER alert_state_site_deleted AFTER DELETE ON sites
    BEGIN
      DELETE FROM alert_state WHERE scope = old.id;
    END;

    -- payments the "someone paid" alert has told of (a later webhook or sync of the same payment
    -- moves its ledger row's inbox_seq, and must not be told again)
    CREATE TABLE alert_payments_told (
      connection_id TEXT NOT NULL REFERENCES payment_connections(id) ON DELETE CASCADE,
      payment_id TEXT NOT NULL,
      PRIMARY KEY (connection_id, payment_id)
    ) STRICT;

    CREATE TABLE install_checks (
      site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
      checked_at INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      stopped_at INTEGER
    ) STRICT;

    CREATE TABLE site_favicons (
      site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
      fetched_at INTEGER NOT NULL,
      content_type TEXT,
      bytes BLOB,
      CHECK ((content_type IS NULL) = (bytes IS NULL))
    ) STRICT;
  `,
};

/** Every migration, in order. */
export const CONTROL_MIGRATIONS: readonly ControlMigration[] = [
  V1,
  V2,
  V3,
  V4,
  V5,
  V6,
  V7,
  V8,
  V9,
  V10,
  V11,
  V12,
  V13,
  V14,
  V15,
  V16,
  V17,
  V18,
  V19,
  V20,
  V21,
  V22,
];
