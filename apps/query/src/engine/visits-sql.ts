/**
 * The SQL that turns freshly staged events into visits, run by the loader inside the batch's
 * transaction. The rule (DESIGN.md "Sessions (visits)"):
 *
 * - Pageviews (`pv`) and custom events (`ev`) are activity. Per site and visitor, activity sorted
 *   by time (then event id) starts a new visit when more than 30 minutes passed since the
 *   previous activity; a gap of exactly 30 minutes continues the visit.
 * - Engagement (`en`) and vitals (`vt`) events report on a page already seen: they never start
 *   or split a visit. Each belongs to the latest visit that started at or before it, if it came
 *   no later than 30 minutes after that visit's last activity; otherwise it belongs to none.
 *   Their time does extend the visit's end, so an engagement event sent when the reader leaves
 *   the page counts toward the visit's duration.
 * - Duration = end (last activity or attached engagement/vitals event) minus start.
 * - The first pageview decides channel, referrer, campaign, entry page and the visitor's
 *   country, region, city, device, browser, OS and language (the first event when a visit has
 *   no pageview); the last pageview is the exit page. Reports count a bounce for a visit of one
 *   pageview and no custom event.
 * - The visit id is a digest of (site, visitor, start), so a replay gives the same ids.
 *
 * Out of order events: for every visitor touched by the batch, the loader recomputes all of
 * that visitor's visits from `lo` onwards, where `lo` is the start of the earliest stored visit
 * whose last activity is at most 30 minutes before the batch's earliest event for that visitor
 * (or that event itself when there is none). The visit before `lo` ended more than 30 minutes
 * before anything recomputed, so it cannot change. An old event that falls inside, between or
 * before stored visits therefore merges, splits or extends them exactly as if it had arrived in
 * order.
 */

/**
 * "The event is activity" (a pageview or a custom event) as a condition on a stored event's kind
 * that DuckDB checks inside the table scan. Of the kinds (en, ev, pv, vt: EVENT_KINDS) exactly ev
 * and pv lie in this range (visits.test.ts holds it); `kind IN ('pv', 'ev')` is checked only
 * after the scan, on every row read (30 days of events at 10M demo events: 36 against 61 ms).
 */
export const activityKindSql = (alias = ''): string => `${alias}kind BETWEEN 'ev' AND 'pv'`;

/** The 30-minute inactivity gap, as a DuckDB interval literal. */
export const VISIT_GAP = "INTERVAL '30 minutes'";

/** The batch's visitors and their earliest new event. */
export const TOUCHED_BY_BATCH_SQL =
  'SELECT site, visitor, min(ts) AS min_at FROM new_ev GROUP BY site, visitor';

/**
 * Visitors touched by the batch and the time from which their visits are recomputed. `touched`
 * is a query of (site, visitor, min_at) rows: the batch's (TOUCHED_BY_BATCH_SQL), plus those
 * whose stored events moved to another visitor id (carry-sql.ts). `$1` = the batch's earliest
 * event minus the visit gap.
 */
export const affectedSql = (touched: string) => `
CREATE OR REPLACE TEMP TABLE affected AS
SELECT n.site, n.visitor, md5_number_lower(n.visitor) AS visitor_key,
  least(n.min_at, coalesce(min(s.started_at), n.min_at)) AS lo
FROM (SELECT site, visitor, min(min_at) AS min_at FROM (${touched}) GROUP BY site, visitor) n
LEFT JOIN sessions s
  ON s.site = n.site AND s.visitor = n.visitor
  AND s.last_at >= n.min_at - ${VISIT_GAP} AND s.last_at >= $1
GROUP BY n.site, n.visitor, n.min_at`;

/** Columns a visit needs from each event, besides its visitor. */
const WIN_COLUMNS = `site, id, ts, kind, name, visitor_key, path, channel, assistant, referrer_host,
  utm_source, utm_medium, utm_campaign, utm_term, utm_content, country, region, city, device, browser, os, language`;

/**
 * Stored events of the affected visitors from their `lo` on, plus the new ones. `$1` = min lo.
 * Stored events have no visitor string (schema version 7): they are found by `visitor_key`, and
 * take the string from `affected`.
 */
export const WINDOW_SQL = `
CREATE OR REPLACE TEMP TABLE win AS
SELECT ${WIN_COLUMNS.replace(/(\w+)/g, 'e.$1')}, a.visitor, false AS is_new
FROM events e JOIN affected a ON e.visitor_key = a.visitor_key AND e.site = a.site AND e.ts >= a.lo
WHERE e.ts >= $1
UNION ALL
SELECT ${WIN_COLUMNS}, visitor, true AS is_new FROM new_ev`;

/**
 * The window's activity (pageviews and custom events), each numbered with its visitor's visit
 * (`vno`): sorted once here, then read by VISITS_SQL and ASSIGN_SQL. Only the columns those need:
 * the window functions carry every column through their sorts, and with all of `win`'s this took
 * twice as long (3,000 demo events: 46 against 20 ms).
 */
export const ACTIVITY_SQL = `
CREATE OR REPLACE TEMP TABLE act AS
SELECT * EXCLUDE (prev), sum(CASE WHEN prev IS NULL OR ts - prev > ${VISIT_GAP} THEN 1 ELSE 0 END)
  OVER (PARTITION BY site, visitor ORDER BY ts, id ROWS UNBOUNDED PRECEDING) AS vno
FROM (SELECT site, visitor, visitor_key, id, ts, kind, path, name, is_new,
        lag(ts) OVER (PARTITION BY site, visitor ORDER BY ts, id) AS prev
      FROM win WHERE kind IN ('pv', 'ev'))`;

/**
 * Sums each visit up from the numbered activity; what the first pageview (or first event) decides
 * comes from that event's row in `win`, one row: (site, id, ts) is unique there, as a copy of a
 * stored event comes with about its time, which the loader's dedupe window (48 hours back from
 * the batch's earliest event) covers. UPDATE_EVENTS_SQL and PREV_VIEWS_SQL rely on the same.
 */
export const VISITS_SQL = `
CREATE OR REPLACE TEMP TABLE vis AS
WITH grouped AS (
  SELECT site, visitor, vno,
    any_value(visitor_key) AS visitor_key,
    min(ts) AS started_at,
    max(ts) AS last_at,
    count(*) FILTER (WHERE kind = 'pv')::INTEGER AS pageviews,
    count(*) FILTER (WHERE kind = 'ev')::INTEGER AS events,
    last(path ORDER BY ts, id) FILTER (WHERE kind = 'pv') AS exit_page,
    arg_min({id: id, ts: ts}, {other: kind <> 'pv', ts: ts, id: id}) AS first
  FROM act GROUP BY site, visitor, vno
)
SELECT g.site, g.visitor, g.vno, g.visitor_key, g.started_at, g.last_at, g.pageviews, g.events, g.exit_page,
  {channel: w.channel, assistant: w.assistant, referrer: w.referrer_host,
    entry_page: CASE WHEN w.kind = 'pv' THEN w.path END, utm_source: w.utm_source,
    utm_medium: w.utm_medium, utm_campaign: w.utm_campaign, utm_term: w.utm_term, utm_content: w.utm_content,
    country: w.country, region: w.region,
    city: w.city, device: w.device, browser: w.browser, os: w.os, language: w.language} AS f,
  md5_number_lower(g.site || chr(0) || g.visitor || chr(0) || epoch_ms(g.started_at)::VARCHAR) AS session_id
FROM grouped g JOIN win w ON w.site = g.site AND w.id = g.first.id AND w.ts = g.first.ts`;

/**
 * The visit of every event in the window (NULL for engagement/vitals outside any visit), and
 * whether it is the first pageview of its path / custom event of its name in that visit.
 */
export const ASSIGN_SQL = `
CREATE OR REPLACE TEMP TABLE asg AS
WITH passive AS (
  SELECT p.site, p.id, p.ts, p.is_new, p.kind,
    CASE WHEN p.ts <= v.last_at + ${VISIT_GAP} THEN v.session_id END AS session_id,
    CASE WHEN p.ts <= v.last_at + ${VISIT_GAP} THEN v.started_at END AS visit_start
  FROM (SELECT * FROM win WHERE kind NOT IN ('pv', 'ev')) p
  ASOF LEFT JOIN vis v ON p.site = v.site AND p.visitor = v.visitor AND p.ts >= v.started_at
)
SELECT a.site, a.id, a.ts, a.is_new, v.session_id, v.started_at AS visit_start,
  row_number() OVER (PARTITION BY v.session_id, a.kind, CASE WHEN a.kind = 'pv' THEN a.path ELSE a.name END
    ORDER BY a.ts, a.id) = 1 AS visit_first
FROM act a JOIN vis v ON a.site = v.site AND a.visitor = v.visitor AND a.vno = v.vno
UNION ALL
SELECT site, id, ts, is_new, session_id, visit_start, false FROM passive`;

/**
 * For each first view in the window (asg.visit_first): the start of the visitor's previous visit
 * with a first view of the same path (custom event name), among the window and ALL the visitor's
 * stored first views before `lo`. Only the latest stored one per path (name) can be the previous
 * one, so the stored ones are reduced to that before the window function. The result, `asgp`, is
 * `asg` with `prev_view_at`.
 */
export const PREV_VIEWS_SQL = `
CREATE OR REPLACE TEMP TABLE asgp AS
WITH cand AS (
  SELECT e.site, NULL AS id, NULL AS ts, false AS fresh, a.visitor, e.kind,
    CASE WHEN e.kind = 'pv' THEN e.path ELSE e.name END AS what, max(e.visit_start) AS visit_start
  FROM events e JOIN affected a
    ON e.visitor_key = a.visitor_key AND e.site = a.site
  WHERE e.visit_first AND e.ts < a.lo
  GROUP BY ALL
  UNION ALL
  SELECT a.site, a.id, a.ts, true, w.visitor, w.kind,
    CASE WHEN w.kind = 'pv' THEN w.path ELSE w.name END, a.visit_start
  FROM asg a JOIN win w ON w.site = a.site AND w.id = a.id AND w.ts = a.ts
  WHERE a.visit_first
), prev AS (
  SELECT site, id, ts,
    lag(visit_start) OVER (PARTITION BY site, visitor, kind, what ORDER BY visit_start) AS prev_view_at
  FROM cand QUALIFY fresh
)
SELECT a.*, p.prev_view_at FROM asg a LEFT JOIN prev p ON p.site = a.site AND p.id = a.id AND p.ts = a.ts`;

/** Re-points stored events whose visit changed. `$1` = min lo (lets DuckDB skip old row groups). */
export const UPDATE_EVENTS_SQL = `
UPDATE events SET session_id = a.session_id, visit_start = a.visit_start, visit_first = a.visit_first,
  prev_view_at = a.prev_view_at
FROM asgp a
WHERE NOT a.is_new AND events.site = a.site AND events.id = a.id AND events.ts = a.ts
  AND events.ts >= $1
  AND (events.session_id IS DISTINCT FROM a.session_id OR events.visit_first <> a.visit_first
    OR events.prev_view_at IS DISTINCT FROM a.prev_view_at)`;

/** Replaces the affected visitors' visits from `lo` on. `$1` = min lo. */
export const DELETE_VISITS_SQL = `
DELETE FROM sessions USING affected a
WHERE sessions.site = a.site AND sessions.visitor = a.visitor AND sessions.started_at >= a.lo
  AND sessions.last_at >= $1`;

/**
 * Each visit dimension: its `prev_` column name, its `sessions` column, and the expression for it
 * in `vis` (VISITS_SQL). Migration 2 added the `prev_` columns of the first fourteen, migration 4
 * those of term and content.
 */
const PREV_DIMENSIONS = [
  ['channel', 'channel', 'f.channel'],
  ['referrer', 'referrer', 'f.referrer'],
  ['entry_page', 'entry_page', 'f.entry_page'],
  ['exit_page', 'exit_page', 'exit_page'],
  ['campaign', 'utm_campaign', 'f.utm_campaign'],
  ['source', 'utm_source', 'f.utm_source'],
  ['medium', 'utm_medium', 'f.utm_medium'],
  ['term', 'utm_term', 'f.utm_term'],
  ['content', 'utm_content', 'f.utm_content'],
  ['country', 'country', 'f.country'],
  ['region', 'region', 'f.region'],
  ['city', 'city', 'f.city'],
  ['device', 'device', 'f.device'],
  ['browser', 'browser', 'f.browser'],
  ['os', 'os', 'f.os'],
  ['language', 'language', 'f.language'],
] as const;

/**
 * A visitor with at most this many candidate visits (PREV_SQL) gets their previous visits from a
 * join of each rebuilt visit with the visitor's earlier ones, which grows with the square of the
 * count; one with more (a server-side id shared by many visits) from window functions.
 */
export const PREV_JOIN_MAX = 64;

/**
 * Each rebuilt visit's previous visit by the same visitor (`prev_at`), and per dimension its
 * previous visit with the same value (`prev_<dimension>`; NULL is a value), among the rebuilt
 * visits and ALL the visitor's stored visits before `lo` (those are not rebuilt). Unfiltered
 * reports of any period count visitors with them (report-sql.ts).
 *
 * Most visitors have a few candidate visits: a join with their earlier visits and one GROUP BY
 * with a filtered max per dimension gives every column at once. Window functions would sort the
 * candidates once per dimension (17 times), which was the loader's costliest statement.
 */
export const PREV_SQL = `
CREATE OR REPLACE TEMP TABLE vprev AS
WITH cand AS (
  SELECT s.site, s.visitor, s.started_at, false AS fresh,
    ${PREV_DIMENSIONS.map(([d, c]) => `s.${c} AS ${d}`).join(', ')}
  FROM sessions s JOIN affected a
    ON s.visitor_key = a.visitor_key AND s.site = a.site AND s.visitor = a.visitor
  WHERE s.started_at < a.lo
  UNION ALL
  SELECT site, visitor, started_at, true, ${PREV_DIMENSIONS.map(([d, , f]) => `${f} AS ${d}`).join(', ')}
  FROM vis
), sized AS MATERIALIZED (
  SELECT c.*, n.n <= ${PREV_JOIN_MAX} AS few
  FROM cand c JOIN (SELECT site, visitor, count(*) AS n FROM cand GROUP BY site, visitor) n USING (site, visitor)
)
SELECT a.site, a.visitor, a.started_at,
  max(b.started_at) AS prev_at,
  ${PREV_DIMENSIONS.map(([d]) => `max(b.started_at) FILTER (WHERE b.${d} IS NOT DISTINCT FROM a.${d}) AS prev_${d}`).join(',\n  ')}
FROM (SELECT * FROM sized WHERE few AND fresh) a
LEFT JOIN (SELECT * FROM sized WHERE few) b
  ON b.site = a.site AND b.visitor = a.visitor AND b.started_at < a.started_at
GROUP BY a.site, a.visitor, a.started_at
UNION ALL
SELECT site, visitor, started_at,
  lag(started_at) OVER (PARTITION BY site, visitor ORDER BY started_at) AS prev_at,
  ${PREV_DIMENSIONS.map(([d]) => `lag(started_at) OVER (PARTITION BY site, visitor, ${d} ORDER BY started_at) AS prev_${d}`).join(',\n  ')}
FROM sized WHERE NOT few
QUALIFY fresh`;

/**
 * How a visit's previous visit with the same value of a dimension is stored (schema version 6):
 * NULL when it is the visit's previous visit (`prev_at`; so is NULL when both are none), which
 * most are, since a visitor mostly comes back on the same browser, from the same country, by the
 * same channel; `'-infinity'` when there is none while `prev_at` is set; else its start. Stored
 * this way the 16 columns are mostly NULL and take about a tenth of the space (1M demo events:
 * 9.9 MiB raw, 1.1 MiB stored so). `prevSameValueSql` reads them back.
 */
export const storedPrevSql = (prev: string, prevAt: string): string =>
  `CASE WHEN ${prev} IS NOT DISTINCT FROM ${prevAt} THEN NULL ELSE coalesce(${prev}, '-infinity'::TIMESTAMPTZ) END`;

/**
 * A visit's previous visit with the same value of `dimension`, from its stored form
 * (`storedPrevSql`): NULL when the visitor has no previous visit at all, `'-infinity'` when none
 * has this value. Both are "before" any instant the way reports ask (`x IS NULL OR x < t`).
 */
export const prevSameValueSql = (dimension: string, table = ''): string =>
  `coalesce(${table}prev_${dimension}, ${table}prev_at)`;

export const INSERT_VISITS_SQL = `
INSERT INTO sessions (site, session_id, visitor, visitor_key, started_at, last_at, ended_at, duration_ms,
  pageviews, events, channel, assistant, referrer, entry_page, exit_page, utm_source, utm_medium,
  utm_campaign, utm_term, utm_content, country, region, city, device, browser, os, language,
  prev_at, ${PREV_DIMENSIONS.map(([d]) => `prev_${d}`).join(', ')})
SELECT v.site, v.session_id, v.visitor, v.visitor_key, v.started_at, v.last_at,
  greatest(v.last_at, coalesce(p.ended_at, v.last_at)) AS ended_at,
  epoch_ms(greatest(v.last_at, coalesce(p.ended_at, v.last_at))) - epoch_ms(v.started_at) AS duration_ms,
  v.pageviews, v.events, v.f.channel, v.f.assistant, v.f.referrer, v.f.entry_page, v.exit_page,
  v.f.utm_source, v.f.utm_medium, v.f.utm_campaign, v.f.utm_term, v.f.utm_content, v.f.country,
  v.f.region, v.f.city, v.f.device, v.f.browser, v.f.os, v.f.language,
  q.prev_at, ${PREV_DIMENSIONS.map(([d]) => storedPrevSql(`q.prev_${d}`, 'q.prev_at')).join(',\n  ')}
FROM vis v
LEFT JOIN (SELECT session_id, max(ts) AS ended_at FROM asg WHERE session_id IS NOT NULL GROUP BY session_id) p
  ON p.session_id = v.session_id
LEFT JOIN vprev q ON q.site = v.site AND q.visitor = v.visitor AND q.started_at = v.started_at`;
