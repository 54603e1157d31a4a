import { type BucketSlot, bucketSlots } from './buckets.ts';
import type { DuckDb, ReadOptions, Row } from './duckdb.ts';
import type { PeriodQuery } from './engine.ts';
import { visitsInPeriod } from './heatmap-retention.ts';
import { num, str } from './reads.ts';
import { bucketKeySql } from './report-sql.ts';
import { Params } from './sql-params.ts';
import { localMsSql, readTimePlan } from './time-plan.ts';

/** The dimensions whose busiest value each bucket names. */
export const TOPS = {
  channel: 'channel',
  referrer: 'referrer',
  page: 'entry_page',
  country: 'country',
} as const;
export type Top = keyof typeof TOPS;
/** The dimensions whose first visit ever is a moment, and the fewest visits that make it one. */
export const FIRSTS = { referrer: 3, country: 1, campaign: 1 } as const;
export type First = keyof typeof FIRSTS;
export const FIRST_COLUMNS: Record<First, string> = {
  referrer: 'referrer',
  country: 'country',
  campaign: 'utm_campaign',
};
/** A spike: a bucket with at least this many times the period's median visitors... */
export const SPIKE_FACTOR = 2;
/** ...and at least this many more. */
export const SPIKE_MARGIN = 10;
/** The most moments one answer names (the earliest first). */
export const MOMENTS_MAX = 100;

export interface MomentBucket {
  bucket: string;
  start: string;
  visitors: number;
  visits: number;
  pageviews: number;
  /** the busiest channel, referrer, entry page and country of the bucket, with their visits */
  top: Record<Top, { value: string; visits: number } | null>;
}

export interface Moment {
  bucket: string;
  start: string;
  kind: 'peak' | 'spike' | 'first_referrer' | 'first_country' | 'first_campaign';
  /** the referrer, country or campaign; null for a peak or a spike */
  value: string | null;
  /** the bucket's visitors (peak, spike) or the visits that value brought in it */
  count: number;
}

export interface Moments {
  bucket: 'day' | 'hour';
  buckets: MomentBucket[];
  moments: Moment[];
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * A period replayed (docs/api.md, `moments`): per day or hour its totals and busiest values, and
 * what happened when: the busiest bucket, spikes above the usual, and the first visits ever from
 * a referrer, a country or a campaign. Aggregates only: nothing names or follows a visitor.
 */
export async function readMoments(
  db: DuckDb,
  q: PeriodQuery & { bucket: 'day' | 'hour' },
  options: ReadOptions,
): Promise<Moments> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  const slots = bucketSlots(q.bucket, q.period, plan);
  const p = new Params();
  const { local, from, site, end } = visitsInPeriod(q.site, plan, q.filters, p);
  const bkt = bucketKeySql(q.bucket, 'started_at', local);
  const tops = Object.entries(TOPS).map(
    ([name, column]) =>
      `SELECT 'top' AS part, bkt, '${name}' AS dim, ${column} AS val, count(*)::DOUBLE AS n, 0::DOUBLE AS m, 0::DOUBLE AS o
       FROM v WHERE ${column} IS NOT NULL AND ${column} <> '' GROUP BY bkt, ${column}
       QUALIFY row_number() OVER (PARTITION BY bkt ORDER BY count(*) DESC, ${column}) = 1`,
  );
  const firsts = Object.entries(FIRST_COLUMNS).map(
    ([name, column]) =>
      `SELECT 'first', v.bkt, '${name}', v.${column}, count(*)::DOUBLE, 0, 0 FROM v
       JOIN (SELECT ${column} AS val, min(started_at) AS first_at FROM sessions
             WHERE site = ${site} AND started_at < ${end} AND ${column} IS NOT NULL AND ${column} <> ''
             GROUP BY ${column}) f ON f.val = v.${column}
       WHERE v.bkt = (${bucketKeySql(q.bucket, 'f.first_at', localMsSql('f.first_at', plan, p))})
       GROUP BY v.bkt, v.${column}`,
  );
  const rows = await db.read(
    p.query(`WITH v AS MATERIALIZED (
        SELECT visitor_key, pageviews, channel, referrer, entry_page, country, utm_campaign, ${bkt} AS bkt ${from}
      )
      SELECT 'total' AS part, bkt, NULL AS dim, NULL AS val, count(DISTINCT visitor_key)::DOUBLE AS n,
        count(*)::DOUBLE AS m, coalesce(sum(pageviews), 0)::DOUBLE AS o FROM v GROUP BY bkt
      ${[...tops, ...firsts].map((sql) => `UNION ALL (${sql})`).join('\n')}`),
    options,
  );
  return momentsFrom(rows, q.bucket, slots);
}

/**
 * The moments answer from its rows (both engines read the same rows): per bucket key `bkt` a
 * 'total' row (n visitors, m visits, o pageviews), a 'top' row per dimension (its busiest value
 * and visits) and a 'first' row per value first seen in it; then peaks and spikes.
 */
export function momentsFrom(rows: Row[], bucket: 'day' | 'hour', slots: BucketSlot[]): Moments {
  const index = new Map(slots.map((s, i) => [s.key, i]));
  const buckets: MomentBucket[] = slots.map((s) => ({
    bucket: s.label,
    start: new Date(s.startMs).toISOString(),
    visitors: 0,
    visits: 0,
    pageviews: 0,
    top: { channel: null, referrer: null, page: null, country: null },
  }));
  const moments: Moment[] = [];
  for (const r of rows) {
    const i = index.get(num(r['bkt']));
    const b = i === undefined ? undefined : buckets[i];
    if (!b) continue;
    const part = str(r['part']);
    const dim = str(r['dim']);
    const value = str(r['val']);
    if (part === 'total') {
      b.visitors = num(r['n']);
      b.visits = num(r['m']);
      b.pageviews = num(r['o']);
    } else if (part === 'top' && value !== null) {
      b.top[dim as Top] = { value, visits: num(r['n']) };
    } else if (part === 'first' && value !== null && num(r['n']) >= FIRSTS[dim as First]) {
      moments.push({
        bucket: b.bucket,
        start: b.start,
        kind: `first_${dim as First}`,
        value,
        count: num(r['n']),
      });
    }
  }
  const visitors = buckets.map((b) => b.visitors);
  const usual = median(visitors);
  const peak = Math.max(0, ...visitors);
  buckets.forEach((b, i) => {
    if (b.visitors > 0 && b.visitors === peak && visitors.indexOf(peak) === i)
      moments.push({ bucket: b.bucket, start: b.start, kind: 'peak', value: null, count: b.visitors });
    else if (b.visitors >= SPIKE_FACTOR * usual && b.visitors - usual >= SPIKE_MARGIN)
      moments.push({ bucket: b.bucket, start: b.start, kind: 'spike', value: null, count: b.visitors });
  });
  const order = ['peak', 'spike', 'first_referrer', 'first_campaign', 'first_country'];
  moments.sort(
    (a, b) =>
      a.start.localeCompare(b.start) ||
      order.indexOf(a.kind) - order.indexOf(b.kind) ||
      b.count - a.count ||
      (a.value ?? '').localeCompare(b.value ?? ''),
  );
  return { bucket, buckets, moments: moments.slice(0, MOMENTS_MAX) };
}
