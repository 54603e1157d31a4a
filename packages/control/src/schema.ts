import type { Generated } from 'kysely';

/**
 * Row types of the control database (`data/app.db`), as Kysely sees them. Times are unix
 * milliseconds (INTEGER); booleans are 0/1.
 */
export interface ControlSchema {
  meta: { key: string; value: string };
  people: PeopleTable;
  two_step_setups: { person_id: string; secret: string; expires_at: number };
  recovery_codes: { person_id: string; code_hash: string; used_at: number | null };
  sessions: SessionsTable;
  sign_in_challenges: {
    token_hash: string;
    person_id: string;
    expires_at: number;
    attempts: Generated<number>;
  };
  api_keys: ApiKeysTable;
  sites: SitesTable;
  site_access: { person_id: string; site_id: string };
  api_key_sites: { key_id: string; site_id: string };
  annotations: AnnotationsTable;
  segments: {
    id: string;
    site_id: string;
    /** the author; null once removed (their private segments go with them) */
    person_id: string | null;
    name: string;
    /** JSON: the report's `f` values */
    filters: string;
    shared: number;
    created_at: number;
    updated_at: number;
  };
  goals: GoalsTable;
  alert_destinations: AlertDestinationsTable;
  alert_deliveries: AlertDeliveriesTable;
  alert_state: { scope: string; name: string; value: string; at: number };
  email_reports: {
    person_id: string;
    site_id: string;
    weekly: number;
    monthly: number;
    origin: string;
    updated_at: number;
  };
  email_reports_all: {
    person_id: string;
    weekly: number;
    monthly: number;
    origin: string;
    language: string;
    updated_at: number;
  };
  email_report_sends: {
    id: Generated<number>;
    person_id: string;
    /** null: the report of all the person's sites */
    site_id: string | null;
    /** 'weekly' or 'monthly' */
    kind: string;
    period_from: string;
    period_to: string;
    /** 'pending', 'sent' or 'failed' */
    state: string;
    attempts: Generated<number>;
    next_at: number;
    last_error: string | null;
    created_at: number;
    done_at: number | null;
  };
  shares: SharesTable;
  milestones: {
    id: string;
    site_id: string;
    kind: string;
    /** the round number, the record day's date, or `1` for a first */
    step: string;
    /** the number behind it: visitors, pageviews, countries, minor units of money, a day's visitors */
    value: number;
    /** JSON: what else the card says (the currency, the goal's name) */
    detail: string | null;
    /** the finished day (the site's time zone) it was reached on, as far as the check can tell */
    day: string;
    created_at: number;
  };
  milestone_seen: { milestone_id: string; person_id: string; seen_at: number };
  milestone_shares: {
    milestone_id: string;
    token_hash: string;
    /** sealed ('milestone-token') */
    token: string;
    show_amount: number;
    created_at: number;
  };
  search_console: {
    site_id: string;
    property: string;
    client_email: string;
    /** the service-account key (JSON), sealed ('search-console') */
    credentials: string;
    connected_at: number;
    synced_at: number | null;
    last_error: string | null;
    last_error_at: number | null;
  };
  search_clicks: { site_id: string; day: string; path: string; clicks: number; impressions: number };
  milestone_settings: { site_id: string; kinds_off: string; checked_day: string | null };
  funnels: {
    id: string;
    site_id: string;
    name: string;
    /** JSON list of steps: { name, kind, match, prop } */
    steps: string;
    /** null: the steps count within one visit; else within this many days from the first step */
    within_days: number | null;
    created_at: number;
  };
  install_checks: { site_id: string; checked_at: number; outcome: string; stopped_at: number | null };
  site_favicons: { site_id: string; fetched_at: number; content_type: string | null; bytes: Buffer | null };
  site_layout: { id: number; layout: string; updated_at: number };
  site_deletions: { site_id: string; requested_at: number };
  daily_salts: { day: string; salt: Buffer };
}

export interface PeopleTable {
  id: string;
  email: string;
  password_hash: string;
  role: 'owner' | 'viewer';
  must_change_password: number;
  /** viewers: 1 = every site, 0 = the sites listed in site_access */
  all_sites: number;
  /** the TOTP secret, sealed with the instance key; null while two-step is off */
  totp_secret: string | null;
  /** the last TOTP time step that signed in: that step and older ones are refused */
  totp_last_step: number | null;
  created_at: number;
}

export interface SessionsTable {
  token_hash: string;
  person_id: string;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  /** the first characters of the key, shown in the list */
  start: string;
  key_hash: string;
  created_by: string | null;
  created_at: number;
  last_used_at: number | null;
  /** 1: every site of the instance; 0: only the sites in api_key_sites */
  all_sites: Generated<number>;
}

export interface SitesTable {
  id: string;
  domain: string;
  timezone: string;
  currency: string;
  cookieless: number;
  proxy_key: string;
  city_recording: number;
  retention_days: number | null;
  /** the site's website id in Umami (a UUID, lower case): its script's events name it */
  umami_website_id: string | null;
  /** its shields as JSON (shields.ts), null for none */
  shields: string | null;
  icon: string | null;
  colour: string | null;
  created_at: number;
  consent_bar: number;
  consent_text: string | null;
  consent_background: string | null;
  consent_foreground: string | null;
  /** JSON list of the modules switched off (sites.ts MODULES) */
  modules_off: string;
}

export interface GoalsTable {
  id: string;
  site_id: string;
  name: string;
  kind: 'page' | 'event';
  /** a path pattern (`*` matches any characters) or a custom event's name */
  match: string;
  prop_key: string | null;
  prop_value: string | null;
  created_at: number;
}

export interface AnnotationsTable {
  id: string;
  site_id: string;
  /** YYYY-MM-DD in the site's time zone */
  day: string;
  /** the last day of a span (inclusive, after `day`), or null for one day */
  end_day: string | null;
  text: string;
  author_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface AlertDestinationsTable {
  id: string;
  site_id: string;
  channel: 'webhook' | 'email';
  /** the URL or the address, sealed ('alert-target') */
  target: string;
  /** the URL's host or the address's domain: what logs and lists may show */
  host: string;
  /** a webhook's signing secret, sealed ('alert-secret'); null for e-mail */
  secret: string | null;
  /** JSON list of the alert kinds it receives */
  kinds: string;
  created_at: number;
  last_sent_at: number | null;
  last_failed_at: number | null;
  last_error: string | null;
}

export interface AlertDeliveriesTable {
  id: Generated<number>;
  destination_id: string;
  /** the alert's id: the same for each destination it goes to */
  alert_id: string;
  kind: string;
  /** the alert as JSON (alerts.ts AlertMessage) */
  payload: string;
  created_at: number;
  attempts: Generated<number>;
  next_at: number;
  state: 'pending' | 'sent' | 'failed';
  last_error: string | null;
  done_at: number | null;
}

export interface SharesTable {
  id: string;
  site_id: string;
  /** SHA-256 hex of the link's token */
  token_hash: string;
  /** the token, sealed ('share-token') */
  token: string;
  label: string | null;
  /** scrypt hash (password.ts); null for a link without a password */
  password_hash: string | null;
  show_notes: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}
