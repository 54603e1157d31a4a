import { VISIT_GAP } from './visits-sql.ts';

/**
 * Cookieless visits that run over midnight. A cookieless visitor id is a hash keyed by the day's
 * salt, so the same person gets a new id (x) at midnight, and a visit in progress would split in
 * two. The gateway marks each hashed event of the first 30 minutes of a day with the person's
 * hash of the day before (`carry`, p). The loader keeps the pair in `visit_carries` and, for every
 * batch that brings events of p or x near the pair's chain, walks p's and x's activity in time
 * order with the 30-minute rule: x's events in a stretch that a p event opened continue p's visit,
 * and are stored under p. Any other x event starts x's own visits: on the new day, the person is a
 * new visitor, as the daily salt intends.
 *
 * Nothing is kept longer than before: yesterday's salt lives 25 hours past its day anyway (for
 * queued events), and only the gateway holds it. The relabelling is monotonic (events only ever
 * join stretches, so an x event once relabelled stays with p) and order-independent: a late event
 * that bridges a gap relabels stored x events too, and the visits of both ids are rebuilt.
 * A visit is carried over one midnight, not two.
 */

/** Links the batch brings (p, x, latest time); existing links keep their latest time. `$1` = prune before. */
export const CARRY_LINKS_SQL = [
  `DELETE FROM visit_carries WHERE last_at < $1`,
  `INSERT INTO visit_carries
   SELECT site, carry, visitor, max(ts) FROM new_ev WHERE carry IS NOT NULL GROUP BY site, carry, visitor
   ON CONFLICT DO UPDATE SET last_at = greatest(last_at, excluded.last_at)`,
];

/**
 * The links the batch's events may change: a new event of p or x no later than 30 minutes after
 * the latest event of the link's chain (a later one cannot reach it).
 */
export const CARRY_PAIRS_SQL = `
CREATE OR REPLACE TEMP TABLE carry_pairs AS
SELECT site, p, x, md5_number_lower(p) AS pk, md5_number_lower(x) AS xk FROM (
  SELECT DISTINCT c.site, c.p, c.x
  FROM visit_carries c JOIN new_ev n ON n.site = c.site AND n.visitor IN (c.p, c.x)
  WHERE n.ts <= c.last_at + ${VISIT_GAP})`;

/**
 * x's events (stored and new) that continue a visit of p: activity in a stretch whose first
 * activity is p's, and engagement or vitals events within 30 minutes after such activity.
 * `$1` = the earliest time looked at (stored events before it cannot matter).
 */
export const CARRY_RELABEL_SQL = `
CREATE OR REPLACE TEMP TABLE carry_relabel AS
WITH t AS (
  SELECT e.site, e.id, e.ts, e.kind, CASE WHEN e.visitor_key = c.pk THEN c.p ELSE c.x END AS visitor,
    false AS is_new, c.p, c.x
  FROM events e JOIN carry_pairs c ON e.site = c.site AND e.visitor_key IN (c.pk, c.xk)
  WHERE e.ts >= $1
  UNION ALL
  SELECT n.site, n.id, n.ts, n.kind, n.visitor, true, c.p, c.x
  FROM new_ev n JOIN carry_pairs c ON n.site = c.site AND n.visitor IN (c.p, c.x)
), act AS (
  SELECT *, sum(CASE WHEN prev IS NULL OR ts - prev > ${VISIT_GAP} THEN 1 ELSE 0 END)
      OVER (PARTITION BY site, p, x ORDER BY ts, id ROWS UNBOUNDED PRECEDING) AS stretch
  FROM (SELECT *, lag(ts) OVER (PARTITION BY site, p, x ORDER BY ts, id) AS prev
        FROM t WHERE kind IN ('pv', 'ev'))
), led AS (
  SELECT *, first_value(visitor) OVER (PARTITION BY site, p, x, stretch ORDER BY ts, id) = p AS by_p FROM act
), passive AS (
  SELECT q.site, q.id, q.ts, q.is_new, q.p, q.x, q.visitor,
    coalesce(a.by_p AND q.ts <= a.ts + ${VISIT_GAP}, false) AS by_p
  FROM (SELECT * FROM t WHERE kind NOT IN ('pv', 'ev')) q
  ASOF LEFT JOIN led a ON q.site = a.site AND q.p = a.p AND q.x = a.x AND q.ts >= a.ts
)
SELECT site, id, ts, is_new, p, x FROM led WHERE visitor = x AND by_p
UNION ALL
SELECT site, id, ts, is_new, p, x FROM passive WHERE visitor = x AND by_p`;

/** Stores the relabelling: stored and new events move to p; the links' latest time moves on. */
export const CARRY_APPLY_SQL = [
  `UPDATE events SET visitor_key = md5_number_lower(r.p)
   FROM carry_relabel r
   WHERE NOT r.is_new AND events.site = r.site AND events.id = r.id AND events.ts = r.ts`,
  `UPDATE stage_events SET visitor = r.p
   FROM carry_relabel r
   WHERE r.is_new AND stage_events.site = r.site AND stage_events.id = r.id`,
  `UPDATE visit_carries SET last_at = greatest(visit_carries.last_at, r.last_at)
   FROM (SELECT site, p, x, max(ts) AS last_at FROM carry_relabel GROUP BY site, p, x) r
   WHERE visit_carries.site = r.site AND visit_carries.p = r.p AND visit_carries.x = r.x`,
];

/**
 * Visitors whose stored visits the relabelling changed, and from when: both ids of every stored
 * event that moved (x loses it, p gains it). The loader rebuilds their visits with the batch's.
 */
export const CARRY_TOUCHED_SQL = `
SELECT site, x AS visitor, min(ts) AS min_at FROM carry_relabel WHERE NOT is_new GROUP BY site, x
UNION ALL
SELECT site, p, min(ts) FROM carry_relabel WHERE NOT is_new GROUP BY site, p`;
