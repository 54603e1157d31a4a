import type { DuckDb, ReadOptions } from './duckdb.ts';
import { num } from './reads.ts';
import { instant, readTimePlan } from './time-plan.ts';

/** A site's counts from its first visit to the end of one day (milestones, docs/milestones.md). */
export interface Lifetime {
  /** distinct visitors (in cookieless mode a visitor is new each day, as in every report) */
  visitors: number;
  pageviews: number;
  /** distinct countries visits came from */
  countries: number;
}

/**
 * Lifetime counts of the visits that started before the end of `day` in the site's time zone: one
 * pass over the site's visits. The day's end comes from the zone's own offsets (time-plan.ts).
 */
export async function readLifetime(
  db: DuckDb,
  q: { site: string; timeZone: string; day: string },
  options: ReadOptions,
): Promise<Lifetime> {
  const plan = await readTimePlan(db, q.timeZone, { from: q.day, to: q.day }, options);
  const [row] = await db.read(
    {
      sql: `SELECT count(DISTINCT visitor_key)::DOUBLE AS visitors,
          coalesce(sum(pageviews), 0)::DOUBLE AS pageviews,
          count(DISTINCT country) FILTER (WHERE country IS NOT NULL AND country <> '')::DOUBLE AS countries
        FROM sessions WHERE site = $1 AND started_at < $2`,
      params: [q.site, instant(plan.endMs)],
    },
    options,
  );
  return {
    visitors: num(row?.['visitors']),
    pageviews: num(row?.['pageviews']),
    countries: num(row?.['countries']),
  };
}
