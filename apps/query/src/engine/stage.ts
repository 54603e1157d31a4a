import { type DuckDBAppender, timestampTZValue } from '@duckdb/node-api';
import type { WalBotDrop, WalCrawl, WalEvent } from '@footfall/schema';

/**
 * Temp staging tables of the writer connection. The appender fills them inside the batch's
 * transaction (a rollback empties them again); set-based SQL then dedupes and loads them.
 * `new_ev` is the staged events with their visitor key: once the loader has deleted the staged
 * events already stored, the batch's new events. A view, not a table built per batch: creating a
 * temp table of some forty columns cost about 30 ms a batch, most of the time it took.
 */
export const STAGE_TABLES_SQL = [
  `CREATE TEMP TABLE IF NOT EXISTS stage_events (
    site VARCHAR, id VARCHAR, ts TIMESTAMPTZ, kind VARCHAR, name VARCHAR, props VARCHAR,
    host VARCHAR, path VARCHAR, visitor VARCHAR, id_mode VARCHAR, carry VARCHAR, referrer_host VARCHAR,
    referrer_path VARCHAR, channel VARCHAR, assistant VARCHAR, utm_source VARCHAR, utm_medium VARCHAR,
    utm_campaign VARCHAR, utm_term VARCHAR, utm_content VARCHAR, click_id VARCHAR, browser VARCHAR,
    browser_version VARCHAR, os VARCHAR, os_version VARCHAR, device VARCHAR, language VARCHAR,
    country VARCHAR, region VARCHAR, city VARCHAR, screen_w INTEGER, screen_h INTEGER,
    engaged_ms BIGINT, scroll DOUBLE, lcp DOUBLE, fcp DOUBLE, inp DOUBLE, ttfb DOUBLE, cls DOUBLE)`,
  'CREATE OR REPLACE TEMP VIEW new_ev AS SELECT *, md5_number_lower(visitor) AS visitor_key FROM stage_events',
  `CREATE TEMP TABLE IF NOT EXISTS stage_crawl (
    site VARCHAR, day VARCHAR, robot VARCHAR, robot_kind VARCHAR, path VARCHAR, status_class UTINYINT)`,
  `CREATE TEMP TABLE IF NOT EXISTS stage_bots (site VARCHAR, day VARCHAR, kind VARCHAR)`,
];

export const CLEAR_STAGE_SQL = [
  'DELETE FROM stage_events',
  'DELETE FROM stage_crawl',
  'DELETE FROM stage_bots',
];

type Text = string | null | undefined;

const text = (appender: DuckDBAppender, value: Text): void => {
  if (value === null || value === undefined) appender.appendNull();
  else appender.appendVarchar(value);
};

const int = (appender: DuckDBAppender, value: number | null | undefined): void => {
  if (value === null || value === undefined || !Number.isFinite(value)) appender.appendNull();
  else appender.appendInteger(Math.max(-2147483648, Math.min(2147483647, Math.round(value))));
};

const big = (appender: DuckDBAppender, value: number | null | undefined): void => {
  if (value === null || value === undefined || !Number.isFinite(value)) appender.appendNull();
  else appender.appendBigInt(BigInt(Math.round(value)));
};

const dbl = (appender: DuckDBAppender, value: number | null | undefined): void => {
  if (value === null || value === undefined || !Number.isFinite(value)) appender.appendNull();
  else appender.appendDouble(value);
};

/** Appends one event to `stage_events`. */
export function appendEvent(appender: DuckDBAppender, e: WalEvent): void {
  text(appender, e.site);
  text(appender, e.id);
  appender.appendTimestampTZ(timestampTZValue(BigInt(Math.round(e.at)) * 1000n));
  text(appender, e.kind);
  text(appender, e.name);
  text(appender, e.props ? JSON.stringify(e.props) : null);
  text(appender, e.host);
  text(appender, e.path);
  text(appender, e.visitor);
  text(appender, e.idMode);
  text(appender, e.carry);
  text(appender, e.referrerHost);
  text(appender, e.referrerPath);
  text(appender, e.channel);
  text(appender, e.assistant);
  text(appender, e.utmSource);
  text(appender, e.utmMedium);
  text(appender, e.utmCampaign);
  text(appender, e.utmTerm);
  text(appender, e.utmContent);
  text(appender, e.clickId);
  text(appender, e.browser);
  text(appender, e.browserVersion);
  text(appender, e.os);
  text(appender, e.osVersion);
  text(appender, e.device);
  text(appender, e.language);
  text(appender, e.country);
  text(appender, e.region);
  text(appender, e.city);
  int(appender, e.screenW);
  int(appender, e.screenH);
  big(appender, e.engagedMs);
  dbl(appender, e.scroll);
  dbl(appender, e.lcp);
  dbl(appender, e.fcp);
  dbl(appender, e.inp);
  dbl(appender, e.ttfb);
  dbl(appender, e.cls);
  appender.endRow();
}

/** Status 1xx..5xx becomes its class 1..5; an unknown or odd status is 0. */
export function statusClass(status: number | null | undefined): number {
  if (status === null || status === undefined) return 0;
  const cls = Math.floor(status / 100);
  return cls >= 1 && cls <= 5 ? cls : 0;
}

export function appendCrawl(appender: DuckDBAppender, c: WalCrawl): void {
  text(appender, c.site);
  text(appender, c.day);
  text(appender, c.robot);
  text(appender, c.robotKind);
  text(appender, c.path);
  appender.appendUTinyInt(statusClass(c.status));
  appender.endRow();
}

export function appendBotDrop(appender: DuckDBAppender, b: WalBotDrop): void {
  text(appender, b.site);
  text(appender, b.day);
  text(appender, b.kind);
  appender.endRow();
}
