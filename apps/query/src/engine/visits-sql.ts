/**
 * What report SQL needs of the visit rules (visits are built in memory by the loader:
 * apps/query/src/visits).
 */

/**
 * "The event is activity" (a pageview or a custom event) as a condition on a stored event's kind
 * that DuckDB checks inside the table scan. Of the kinds (en, ev, pv, vt: EVENT_KINDS) exactly ev
 * and pv lie in this range (visits.test.ts holds it); `kind IN ('pv', 'ev')` is checked only
 * after the scan, on every row read (30 days of events at 10M demo events: 36 against 61 ms).
 */
export const activityKindSql = (alias = ''): string => `${alias}kind BETWEEN 'ev' AND 'pv'`;

/**
 * A visit's previous visit with the same value of `dimension`, from its stored form: the column
 * is NULL when that visit is the visit's previous visit (`prev_at`; so NULL when both are none),
 * which most are, since a visitor mostly comes back on the same browser, from the same country, by
 * the same channel; `'-infinity'` when none had this value while `prev_at` is set; else its start
 * (schema version 6: the 16 columns take about a tenth of the space). The result is NULL or
 * `'-infinity'` when there is none: both are "before" any instant the way reports ask
 * (`x IS NULL OR x < t`).
 */
export const prevSameValueSql = (dimension: string, table = ''): string =>
  `coalesce(${table}prev_${dimension}, ${table}prev_at)`;
