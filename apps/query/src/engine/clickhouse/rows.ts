import { hash } from 'node:crypto';
import type { Assignment, VisitRow } from '../../visits/engine.ts';
import { DIMENSIONS, type LoadEvent } from '../../visits/model.ts';
import type { StoredEvent, StoredVisit } from '../../visits/replay.ts';

/**
 * The rows the ClickHouse loader writes (JSONEachRow, the tables' column names) and reads back.
 * Every row it writes it can write again exactly: a visit's `-1` is the same text as the `+1` it
 * cancels, with the sign changed (DESIGN.md, section 3).
 */

/** A row of `events` or `sessions` as JSONEachRow carries it (64-bit integers as strings). */
export type Row = Record<string, string | number | boolean | null>;

/** A time in ms as a `DateTime64(3, 'UTC')` value. */
export const chTime = (ms: number): string => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

/** A `DateTime64(3, 'UTC')` value read back, in ms. */
export const msOf = (value: string): number => Date.parse(`${value.replace(' ', 'T')}Z`);

/** `prev_<dimension>` of a visit with no earlier visit of that value (DuckDB's '-infinity'). */
export const NO_PREVIOUS = '1900-01-01 00:00:00.000';

/** Rounds half away from zero, as DuckDB's round() does. */
const round = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

const int32 = (v: unknown): number | null =>
  typeof v === 'number' ? Math.min(Math.max(round(v), -2147483648), 2147483647) : null;
const int64 = (v: unknown): number | null => (typeof v === 'number' ? round(v) : null);
const float = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * An event's row: its WAL fields, the visit the rules gave it (`a`; null: none yet, the replay
 * decides) and the batch that wrote it. `storedKey` is the visitor key it is stored under when it
 * joined no visit.
 */
export function eventRow(
  e: LoadEvent,
  ts: number,
  a: Assignment | null,
  storedKey: bigint,
  ver: number,
): Row {
  return {
    site: e.site,
    ts: chTime(ts),
    visitor_key: String(a === null ? storedKey : a.visitorKey),
    id: e.id,
    kind: e.kind,
    name: text(e.name),
    props: e.props === null || e.props === undefined ? null : JSON.stringify(e.props),
    host: String(e['host'] ?? ''),
    path: e.path,
    id_mode: e.idMode,
    referrer_host: text(e.referrerHost),
    referrer_path: text(e['referrerPath']),
    channel: e.channel,
    assistant: text(e.assistant),
    utm_source: text(e.utmSource),
    utm_medium: text(e.utmMedium),
    utm_campaign: text(e.utmCampaign),
    utm_term: text(e.utmTerm),
    utm_content: text(e.utmContent),
    click_id: text(e['clickId']),
    browser: text(e.browser),
    browser_version: text(e['browserVersion']),
    os: text(e.os),
    os_version: text(e['osVersion']),
    device: e.device,
    language: text(e.language),
    country: text(e.country),
    region: text(e.region),
    city: text(e.city),
    screen_w: int32(e['screenW']),
    screen_h: int32(e['screenH']),
    engaged_ms: int64(e['engagedMs']),
    scroll: float(e['scroll']),
    lcp: float(e['lcp']),
    fcp: float(e['fcp']),
    inp: float(e['inp']),
    ttfb: float(e['ttfb']),
    cls: float(e['cls']),
    visit_start: a?.visitStart == null ? null : chTime(a.visitStart),
    visit_first: a?.first ?? false,
    prev_view_at: a?.prevViewAt == null ? null : chTime(a.prevViewAt),
    ver,
    sign: 1,
  };
}

/** An event row with the visit a replay gave it (a new state: written with the batch's version). */
export function reassigned(row: Row, a: Assignment, ver: number): Row {
  return {
    ...row,
    visitor_key: String(a.visitorKey),
    visit_start: a.visitStart === null ? null : chTime(a.visitStart),
    visit_first: a.first,
    prev_view_at: a.prevViewAt === null ? null : chTime(a.prevViewAt),
    ver,
    sign: 1,
  };
}

/** The `sessions` column of each of DIMENSIONS' previous-visit columns. */
const PREV = DIMENSIONS.map(([suffix]) => `prev_${suffix}`);

/**
 * A visit's row. Its version is a digest of its content: the same state always gives the same
 * row, so the loader can cancel a state it wrote before from the visitor's record alone.
 */
export function visitRowOf(r: VisitRow): Row {
  const d = r.dims;
  const row: Row = {
    site: r.site,
    started_at: chTime(r.start),
    visitor_key: String(r.visitorKey),
    visitor: r.visitor,
    last_ms: r.lastTs - r.start,
    end_ms: r.end - r.start,
    pageviews: r.pageviews,
    events: r.events,
    channel: d[0] ?? null,
    assistant: d[16] ?? null,
    referrer: d[1] ?? null,
    entry_page: d[2] ?? null,
    exit_page: r.exit,
    utm_source: d[5] ?? null,
    utm_medium: d[6] ?? null,
    utm_campaign: d[4] ?? null,
    utm_term: d[7] ?? null,
    utm_content: d[8] ?? null,
    country: d[9] ?? null,
    region: d[10] ?? null,
    city: d[11] ?? null,
    device: d[12] ?? null,
    browser: d[13] ?? null,
    os: d[14] ?? null,
    language: d[15] ?? null,
    prev_at: r.prevAt === null ? null : chTime(r.prevAt),
  };
  PREV.forEach((column, i) => {
    const prev = r.prevs[i] ?? null;
    row[column] = prev === r.prevAt ? null : prev === null ? NO_PREVIOUS : chTime(prev);
  });
  row['ver'] = hash('sha256', JSON.stringify(row), 'buffer').readBigUInt64LE(0).toString();
  row['sign'] = 1;
  return row;
}

/** The row that cancels a stored state: the same columns, sign -1. */
export const cancelOf = (row: Row): Row => ({ ...row, sign: -1 });

/** Two rows of one table hold the same state. */
export const sameState = (a: Row, b: Row): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A stored visit as the replay reads it (a row of `sessions`). */
export function storedVisitOf(row: Row, sessionId: bigint): StoredVisit {
  const prevAt = row['prev_at'] as string | null;
  return {
    site: row['site'] as string,
    visitor: row['visitor'] as string,
    sessionId,
    start: msOf(row['started_at'] as string),
    prevAt: prevAt === null ? null : msOf(prevAt),
    prevs: PREV.map((c) => {
      const v = row[c] as string | null;
      if (v === null) return 'prev_at' as const;
      return v === NO_PREVIOUS ? null : msOf(v);
    }),
  };
}

/**
 * A stored event (a row of `events`) as the replay reads it. `visitor` is the id it is stored
 * under; its visit id is computed from it and the visit's start, as the visits' is.
 */
export function storedEventOf(
  row: Row,
  visitor: string,
  sessionIdOf: (start: number) => bigint,
): StoredEvent {
  const ts = msOf(row['ts'] as string);
  const visitStart = row['visit_start'] === null ? null : msOf(row['visit_start'] as string);
  const prevViewAt = row['prev_view_at'] === null ? null : msOf(row['prev_view_at'] as string);
  return {
    t: 'event',
    site: row['site'] as string,
    id: row['id'] as string,
    at: ts,
    ts,
    kind: row['kind'] as string,
    name: row['name'] as string | null,
    path: row['path'] as string,
    visitor,
    storedVisitor: visitor,
    idMode: row['id_mode'] as string,
    channel: row['channel'] as string,
    assistant: row['assistant'] as string | null,
    referrerHost: row['referrer_host'] as string | null,
    utmSource: row['utm_source'] as string | null,
    utmMedium: row['utm_medium'] as string | null,
    utmCampaign: row['utm_campaign'] as string | null,
    utmTerm: row['utm_term'] as string | null,
    utmContent: row['utm_content'] as string | null,
    country: row['country'] as string | null,
    region: row['region'] as string | null,
    city: row['city'] as string | null,
    device: row['device'] as string,
    browser: row['browser'] as string | null,
    os: row['os'] as string | null,
    language: row['language'] as string | null,
    sessionId: visitStart === null ? null : sessionIdOf(visitStart),
    visitStart,
    first: row['visit_first'] === true,
    prevViewAt,
  };
}
