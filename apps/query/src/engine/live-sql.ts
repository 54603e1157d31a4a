import type { Query } from './duckdb.ts';
import { Params } from './sql-params.ts';
import { instant } from './time-plan.ts';
import { activityKindSql } from './visits-sql.ts';

/**
 * Columns shown for one event (`e`) in the live feed and in a journey. Events do not store the
 * visitor id string (schema version 7): `visitor` is the SQL that gives it.
 */
const eventColumns = (
  visitor: string,
) => `e.id, epoch_ms(e.ts)::DOUBLE AS at, e.kind, e.name, e.props, e.host,
  e.path, ${visitor} AS visitor, e.session_id::VARCHAR AS visit, e.referrer_host AS referrer, e.channel, e.country,
  e.region, e.city, e.device, e.browser, e.os, e.language, e.engaged_ms::DOUBLE AS engaged_ms`;

/** Right-now numbers: distinct visitors in the last 5 and 30 minutes and pageviews in the last 30. */
export function buildNowTotalsQuery(site: string, nowMs: number): Query {
  const p = new Params();
  const s = p.add(site);
  const since30 = p.add(instant(nowMs - 30 * 60_000));
  const since5 = p.add(instant(nowMs - 5 * 60_000));
  return p.query(`SELECT count(DISTINCT visitor_key) FILTER (WHERE ts >= ${since5})::DOUBLE AS visitors5,
      count(DISTINCT visitor_key)::DOUBLE AS visitors30,
      count(*) FILTER (WHERE kind = 'pv')::DOUBLE AS pageviews30
    FROM events WHERE site = ${s} AND ts >= ${since30} AND ${activityKindSql()}`);
}

/**
 * One row per person seen in the last 30 minutes, most recent first: where they are now, how
 * they came, and how many pageviews their current visit has (all of them, also those more than
 * 30 minutes ago). `people` is the total count, so the caller can say how many were left out.
 */
export function buildNowPeopleQuery(site: string, nowMs: number, limit: number): Query {
  const p = new Params();
  const s = p.add(site);
  const since = p.add(instant(nowMs - 30 * 60_000));
  // a person is a visitor_key; their id string comes from their current visit
  return p.query(`WITH last AS (
      SELECT visitor_key, arg_max(session_id, ts) AS session_id, max(ts) AS seen, arg_max(path, ts) AS path,
        count(*) FILTER (WHERE kind = 'pv') AS pageviews
      FROM events WHERE site = ${s} AND ts >= ${since} AND ${activityKindSql()} GROUP BY visitor_key)
    SELECT v.visitor, epoch_ms(l.seen)::DOUBLE AS seen, l.path,
      coalesce(v.pageviews, l.pageviews)::DOUBLE AS pageviews,
      v.channel, v.referrer, v.entry_page, v.country, v.city, v.device, v.browser, v.os,
      epoch_ms(v.started_at)::DOUBLE AS visit_start, count(*) OVER ()::DOUBLE AS people
    FROM last l LEFT JOIN sessions v ON v.site = ${s} AND v.session_id = l.session_id AND v.last_at >= ${since}
    ORDER BY l.seen DESC, v.visitor LIMIT ${p.add(limit)}`);
}

/** The latest pageviews and custom events of a site, newest first. */
export function buildRecentEventsQuery(site: string, limit: number, nowMs: number): Query {
  const p = new Params();
  const s = p.add(site);
  // Only the last two days are read, so the query skips every older row group.
  const since = p.add(instant(nowMs - 2 * 86_400_000));
  // the newest events first, then their visitor ids from their visits (a pageview's or custom
  // event's visit has its last activity at or after it)
  return p.query(`WITH e AS (
      SELECT * FROM events WHERE site = ${s} AND ts >= ${since} AND ${activityKindSql()}
      ORDER BY ts DESC, id DESC LIMIT ${p.add(limit)})
    SELECT ${eventColumns('v.visitor')}
    FROM e LEFT JOIN sessions v ON v.site = e.site AND v.session_id = e.session_id AND v.last_at >= ${since}
    ORDER BY e.ts DESC, e.id DESC`);
}

/** One visitor's visits (newest first, at most `limit`) ... */
export function buildJourneyVisitsQuery(site: string, visitor: string, limit: number): Query {
  const p = new Params();
  return p.query(`SELECT session_id::VARCHAR AS visit, epoch_ms(started_at)::DOUBLE AS started,
      epoch_ms(ended_at)::DOUBLE AS ended, pageviews::DOUBLE AS pageviews, events::DOUBLE AS events,
      (duration_ms / 1000)::DOUBLE AS duration, channel, referrer, entry_page, exit_page,
      utm_source, utm_medium, utm_campaign, country, region, city, device, browser, os, language
    FROM sessions WHERE site = ${p.add(site)} AND visitor = ${p.add(visitor)}
    ORDER BY started_at DESC LIMIT ${p.add(limit)}`);
}

/** ... and the events of those visits, in time order. */
export function buildJourneyEventsQuery(site: string, visitor: string, sinceMs: number): Query {
  const p = new Params();
  const v = p.add(visitor);
  return p.query(`SELECT ${eventColumns(`${v}::VARCHAR`)} FROM events e
    WHERE e.site = ${p.add(site)} AND e.visitor_key = md5_number_lower(${v}) AND e.ts >= ${p.add(instant(sinceMs))}
      AND e.session_id IS NOT NULL
    ORDER BY e.ts, e.id`);
}
