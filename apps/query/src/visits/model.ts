import { hash } from 'node:crypto';

/**
 * The visit rules' shared vocabulary (docs/architecture.md, "Loading"; the rules themselves are
 * in engine.ts). Times are unix milliseconds, rounded as the events table stores them.
 */

/** More than this between two activities starts a new visit; exactly this continues it. */
export const VISIT_GAP_MS = 30 * 60 * 1000;

/** Pageviews and custom events are activity; engagement and vitals events only report on a page. */
export const isActivity = (kind: string): boolean => kind === 'pv' || kind === 'ev';

/**
 * Each visit dimension: its `prev_` column suffix, its `sessions` column, and the WAL event field
 * the visit's deciding event gives it. A visit's previous visit with the same value of each is
 * stored with it (`prev_<suffix>`); NULL is a value. `exit_page` is the last pageview's path.
 */
export const DIMENSIONS = [
  ['channel', 'channel', 'channel'],
  ['referrer', 'referrer', 'referrerHost'],
  ['entry_page', 'entry_page', 'path'],
  ['exit_page', 'exit_page', 'path'],
  ['campaign', 'utm_campaign', 'utmCampaign'],
  ['source', 'utm_source', 'utmSource'],
  ['medium', 'utm_medium', 'utmMedium'],
  ['term', 'utm_term', 'utmTerm'],
  ['content', 'utm_content', 'utmContent'],
  ['country', 'country', 'country'],
  ['region', 'region', 'region'],
  ['city', 'city', 'city'],
  ['device', 'device', 'device'],
  ['browser', 'browser', 'browser'],
  ['os', 'os', 'os'],
  ['language', 'language', 'language'],
] as const;

export const ENTRY_PAGE = 2;
export const EXIT_PAGE = 3;

/** A visit's value of each of DIMENSIONS, in that order, and its AI assistant. */
export type Dims = (string | null)[];

/** The part of a WAL event the visit rules read (the JSON payload as parsed). */
export interface LoadEvent {
  t: 'event';
  id: string;
  site: string;
  at: number;
  kind: string;
  name?: string | null;
  path: string;
  visitor: string;
  idMode: string;
  carry?: string | null;
  channel: string;
  assistant?: string | null;
  referrerHost?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  utmTerm?: string | null;
  utmContent?: string | null;
  country?: string | null;
  region?: string | null;
  city?: string | null;
  device: string;
  browser?: string | null;
  os?: string | null;
  language?: string | null;
  [field: string]: unknown;
}

/** The stored time of an event (the events table keeps milliseconds). */
export const eventTime = (e: { at: number }): number => Math.round(e.at);

/** Orders events as the rules walk them: by time, then by id. */
export function compareEvents(a: { ts: number; id: string }, b: { ts: number; id: string }): number {
  return a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What a visit's deciding event (first pageview, else first event) gives it. */
export function dimsOf(e: LoadEvent): Dims {
  const dims: Dims = DIMENSIONS.map(([, , field]) => (e[field] as string | null | undefined) ?? null);
  // the entry page is a pageview's path; a visit without one has none, and its exit comes later
  if (e.kind !== 'pv') dims[ENTRY_PAGE] = null;
  dims[EXIT_PAGE] = null;
  dims.push(e.assistant ?? null);
  return dims;
}

/** The first-view key of an activity event: its kind and path (pageview) or name (custom event). */
export const viewKey = (kind: string, what: string | null | undefined): string =>
  `${kind}\u0000${what ?? ''}`;

/**
 * The lower 64 bits of the MD5 of `text`, as DuckDB's `md5_number_lower` gives them (bytes 8 to 15,
 * little-endian): visitor keys and visit ids.
 */
export function md5Lower(text: string): bigint {
  return hash('md5', text, 'buffer').readBigUInt64LE(8);
}

/** A visitor's 64-bit key (sessions.visitor_key, events.visitor_key). */
export const visitorKeyOf = (visitor: string): bigint => md5Lower(visitor);

/** A visit's id: the digest of its site, visitor and start, so a replay gives the same id. */
export const sessionIdOf = (site: string, visitor: string, start: number): bigint =>
  md5Lower(`${site}\u0000${visitor}\u0000${start}`);
