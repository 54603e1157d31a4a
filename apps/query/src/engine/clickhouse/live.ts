import type { ClickHouseClient } from '@clickhouse/client';
import { visitorKeyOf } from '../../visits/model.ts';
import type { ReadOptions } from '../duckdb.ts';
import type { Journey, JourneyVisit, LiveEvent, NowNumbers } from '../engine.ts';
import type { Lifetime } from '../lifetime.ts';
import { journeyVisit, liveEvent, nowAnswer, num, type WindowTotals, windowTotalsFrom } from '../reads.ts';
import { activityKindSql } from '../visits-sql.ts';
import { readRows } from './reads.ts';
import { ChParams } from './report-sql.ts';
import { timePlanOf } from './time-plan.ts';

/**
 * The live and per-visitor reads on ClickHouse (live-sql.ts, reads.ts and lifetime.ts for DuckDB):
 * the same answers, read from collapsed rows (`FINAL`). Events do not store their visit's id nor
 * their visitor's id string: both come from the visit `(visitor_key, visit_start)` names.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const ACTIVITY = activityKindSql();
const ms = (column: string) => `toFloat64(toUnixTimestamp64Milli(${column}))`;

/** The live feed's and a journey's columns of one event `e` (as live-sql.ts eventColumns). */
const eventColumns = (visitor: string) => `e.id AS id, ${ms('e.ts')} AS at, e.kind AS kind, e.name AS name,
  e.props AS props, e.host AS host, e.path AS path, ${visitor} AS visitor, e.referrer_host AS referrer,
  e.channel AS channel, e.country AS country, e.region AS region, e.city AS city, e.device AS device,
  e.browser AS browser, e.os AS os, e.language AS language, toFloat64(e.engaged_ms) AS engaged_ms`;

/**
 * The visits (`columns` of `sessions`, collapsed) of a site named by `(visitor_key, start)` in
 * `keys`: an events' subquery, so only their visits are read.
 */
const visitsOf = (site: string, columns: string, keys: string, where = '1') =>
  `(SELECT visitor_key, started_at, ${columns} FROM sessions FINAL
    WHERE site = ${site} AND ${where} AND (visitor_key, started_at) IN (${keys}))`;

/**
 * Right now: distinct visitors of the last 5 and 30 minutes, pageviews of the last 30, and one
 * row per person seen in the last 30 minutes, newest first, with their current visit (the visit of
 * their latest event, when it was active in the window) as DuckDB's readNow gives them.
 */
export async function readNowCh(
  client: ClickHouseClient,
  site: string,
  nowMs: number,
  limit: number,
  options: ReadOptions,
): Promise<NowNumbers> {
  const p = new ChParams();
  const s = p.add(site, 'String');
  const since = p.time(nowMs - 30 * MINUTE);
  const totals = `SELECT toFloat64(uniqExactIf(visitor_key, ts >= ${p.time(nowMs - 5 * MINUTE)})) AS visitors5,
      toFloat64(uniqExact(visitor_key)) AS visitors30, toFloat64(countIf(kind = 'pv')) AS pageviews30
    FROM events FINAL WHERE site = ${s} AND ts >= ${since} AND ${ACTIVITY}`;
  // a person is a visitor key; their id string comes from their current visit
  const columns = 'visitor, pageviews, channel, referrer, entry_page, country, city, device, browser, os';
  const people = `WITH l AS (
      SELECT visitor_key, argMax(visit_start, ts) AS visit_start, max(ts) AS seen, argMax(path, ts) AS path,
        countIf(kind = 'pv') AS pageviews
      FROM events FINAL WHERE site = ${s} AND ts >= ${since} AND ${ACTIVITY} GROUP BY visitor_key)
    SELECT v.visitor AS visitor, ${ms('l.seen')} AS seen, l.path AS path,
      toFloat64(coalesce(v.pageviews, l.pageviews)) AS pageviews, v.channel AS channel, v.referrer AS referrer,
      v.entry_page AS entry_page, v.country AS country, v.city AS city, v.device AS device,
      v.browser AS browser, v.os AS os, ${ms('v.started_at')} AS visit_start, toFloat64(count() OVER ()) AS people
    FROM l LEFT JOIN ${visitsOf(s, columns, 'SELECT visitor_key, visit_start FROM l', `last_at >= ${since}`)} AS v
      ON v.visitor_key = l.visitor_key AND v.started_at = l.visit_start
    ORDER BY l.seen DESC, v.visitor LIMIT ${p.add(limit, 'UInt32')}
    SETTINGS join_use_nulls = 1`;
  const [[t], rows] = await Promise.all([
    readRows(client, totals, p.values, options),
    readRows(client, people, p.values, options),
  ]);
  return nowAnswer(t ?? {}, rows, nowMs);
}

/**
 * The latest pageviews and custom events of a site (of the last two days), newest first. The
 * visitor's id string is their visit's, as DuckDB reads it: only while the visit was active in the
 * two days (it always is: its last activity is at or after each of its events), else ''.
 */
export async function readRecentEventsCh(
  client: ClickHouseClient,
  site: string,
  limit: number,
  nowMs: number,
  options: ReadOptions,
): Promise<LiveEvent[]> {
  const p = new ChParams();
  const s = p.add(site, 'String');
  const since = p.time(nowMs - 2 * DAY);
  const query = `WITH e AS (
      SELECT * FROM events FINAL WHERE site = ${s} AND ts >= ${since} AND ${ACTIVITY}
      ORDER BY ts DESC, id DESC LIMIT ${p.add(limit, 'UInt32')})
    SELECT ${eventColumns(`if(v.last_at >= ${since}, v.visitor, NULL)`)}, toString(v.session_id) AS visit
    FROM e LEFT JOIN ${visitsOf(s, 'visitor, session_id, last_at', 'SELECT visitor_key, visit_start FROM e')} AS v
      ON v.visitor_key = e.visitor_key AND v.started_at = e.visit_start
    ORDER BY e.ts DESC, e.id DESC
    SETTINGS join_use_nulls = 1`;
  return (await readRows(client, query, p.values, options)).map(liveEvent);
}

/**
 * One visitor's visits, newest first (at most `limit`), each with its events in time order: those
 * of the visitor's key from the oldest visit's start on, each in the visit it names by its start.
 */
export async function readJourneyCh(
  client: ClickHouseClient,
  site: string,
  visitor: string,
  limit: number,
  options: ReadOptions,
): Promise<Journey> {
  const p = new ChParams();
  const s = p.add(site, 'String');
  const key = p.add(String(visitorKeyOf(visitor)), 'UInt64');
  const visitRows = await readRows(
    client,
    `SELECT toString(session_id) AS visit, ${ms('started_at')} AS started, ${ms('ended_at')} AS ended,
        toFloat64(pageviews) AS pageviews, toFloat64(duration_ms / 1000) AS duration, channel, referrer,
        entry_page, exit_page, utm_source, utm_medium, utm_campaign, country, region, city, device,
        browser, os, language
      FROM sessions FINAL WHERE site = ${s} AND visitor_key = ${key} AND visitor = ${p.add(visitor, 'String')}
      ORDER BY started_at DESC LIMIT ${p.add(limit, 'UInt32')}`,
    p.values,
    options,
  );
  const byStart = new Map<number, JourneyVisit>();
  const visits = visitRows.map((row): JourneyVisit => {
    const visit = journeyVisit(row);
    byStart.set(num(row['started']), visit);
    return visit;
  });
  const oldest = visitRows.at(-1);
  if (oldest) {
    const events = await readRows(
      client,
      `SELECT ${eventColumns(p.add(visitor, 'String'))}, ${ms('assumeNotNull(e.visit_start)')} AS start
        FROM events AS e FINAL
        WHERE e.site = ${s} AND e.visitor_key = ${key} AND e.ts >= ${p.time(num(oldest['started']))}
          AND e.visit_start IS NOT NULL
        ORDER BY e.ts, e.id`,
      p.values,
      options,
    );
    for (const row of events) {
      const visit = byStart.get(num(row['start']));
      visit?.events.push(liveEvent({ ...row, visit: visit.visit }));
    }
  }
  return { visitor, visits };
}

/** When a site's first visit started and its last activity was, unix ms, or nulls before any visit. */
export async function readStatusCh(
  client: ClickHouseClient,
  site: string,
  options: ReadOptions,
): Promise<{ firstVisit: number | null; lastSeen: number | null }> {
  const p = new ChParams();
  const [row] = await readRows(
    client,
    `SELECT ${ms('minOrNull(started_at)')} AS first, ${ms('maxOrNull(ended_at)')} AS last
      FROM sessions FINAL WHERE site = ${p.add(site, 'String')}`,
    p.values,
    options,
  );
  const first = row?.['first'];
  const last = row?.['last'];
  return { firstVisit: first == null ? null : num(first), lastSeen: last == null ? null : num(last) };
}

/** Events stored (every site), and those of the last seven days. */
export async function readStorageCh(
  client: ClickHouseClient,
  nowMs: number,
  options: ReadOptions,
): Promise<{ events: number; lastSevenDays: number }> {
  const p = new ChParams();
  const [row] = await readRows(
    client,
    `SELECT toFloat64(count()) AS events, toFloat64(countIf(ts >= ${p.time(nowMs - 7 * DAY)})) AS recent
      FROM events FINAL`,
    p.values,
    options,
  );
  return { events: num(row?.['events']), lastSevenDays: num(row?.['recent']) };
}

/**
 * The totals of the visits that started in [from, to) (unix ms), and per equal bucket. A bucket
 * is computed in doubles exactly as DuckDB computes it, from the same operands.
 */
export async function readWindowTotalsCh(
  client: ClickHouseClient,
  q: { site: string; from: number; to: number; buckets: number },
  options: ReadOptions,
): Promise<WindowTotals> {
  const p = new ChParams();
  const from = p.add(q.from, 'Float64');
  const size = `((${p.add(q.to, 'Float64')} - ${from}) / ${p.add(q.buckets, 'Float64')})`;
  const bucket = `least(toInt64(floor((toUnixTimestamp64Milli(started_at) - ${from}) / ${size})), ${p.add(q.buckets, 'Int64')} - 1)`;
  const rows = await readRows(
    client,
    `SELECT ${bucket} AS b, toFloat64(uniqExact(visitor_key)) AS visitors, toFloat64(count()) AS visits,
        toFloat64(sum(pageviews)) AS pageviews
      FROM sessions FINAL
      WHERE site = ${p.add(q.site, 'String')} AND started_at >= ${p.time(Math.round(q.from))}
        AND started_at < ${p.time(Math.round(q.to))}
      GROUP BY GROUPING SETS ((b), ())
      SETTINGS group_by_use_nulls = 1`,
    p.values,
    options,
  );
  return windowTotalsFrom(rows, q.buckets);
}

/** Lifetime counts of the visits that started before the end of `day` in the site's time zone. */
export async function readLifetimeCh(
  client: ClickHouseClient,
  q: { site: string; timeZone: string; day: string },
  options: ReadOptions,
): Promise<Lifetime> {
  const plan = timePlanOf(q.timeZone, { from: q.day, to: q.day });
  const p = new ChParams();
  const [row] = await readRows(
    client,
    `SELECT toFloat64(uniqExact(visitor_key)) AS visitors, toFloat64(sum(pageviews)) AS pageviews,
        toFloat64(uniqExactIf(country, country IS NOT NULL AND country <> '')) AS countries
      FROM sessions FINAL WHERE site = ${p.add(q.site, 'String')} AND started_at < ${p.time(plan.endMs)}`,
    p.values,
    options,
  );
  return {
    visitors: num(row?.['visitors']),
    pageviews: num(row?.['pageviews']),
    countries: num(row?.['countries']),
  };
}
