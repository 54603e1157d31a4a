import type { ClickHouseClient } from '@clickhouse/client';
import { bucketSlots } from '../buckets.ts';
import { type Charts, chartsFrom, ENGAGED_BINS, PAGES_BINS } from '../charts-sql.ts';
import type { ReadOptions, Row } from '../duckdb.ts';
import type { Engine, Heatmap, Retention } from '../engine.ts';
import { FIRST_COLUMNS, type Moments, momentsFrom, TOPS } from '../moments-sql.ts';
import { heatmapFrom, num, str } from '../reads.ts';
import {
  type AssistantRow,
  VITAL_THRESHOLDS,
  VITALS,
  type Vital,
  type VitalRow,
  type VitalsReport,
  vitalOrNull,
  vitalSummaries,
} from '../vitals.ts';
import { periodScope, scopeVisits } from './period-scope.ts';
import { readRows } from './reads.ts';
import { bucketKeySql, type ChParams, goalMatchSql, localMsSql } from './report-sql.ts';

/**
 * The period reads with charts on ClickHouse (heatmap, retention, vitals, assistants, chart cards,
 * moments): the same answers as DuckDB's (heatmap-retention.ts, vitals.ts, charts-sql.ts,
 * moments-sql.ts), read from collapsed rows (`FINAL`) with exact counts. An event names its visit
 * by `(visitor_key, visit_start)`, a visit is `(visitor_key, started_at)`. Every number is cast
 * to Float64 in SQL, so rows carry JSON numbers, never the strings 64-bit integers come back as.
 */

/** The argument of an Engine method. */
type Q<M extends 'heatmap' | 'retention' | 'vitals' | 'assistants' | 'charts' | 'moments'> = Parameters<
  Engine[M]
>[0];

const DAY = 86_400_000;
const HOUR = 3_600_000;
const F = (sql: string) => `toFloat64(${sql})`;
const NULL_NUM = 'CAST(NULL AS Nullable(Float64))';
const NULL_TEXT = 'CAST(NULL AS Nullable(String))';
const text = (sql: string) => `CAST(${sql} AS Nullable(String))`;

/** Visits, visitors and pageviews per local weekday (Monday first) and hour of the visit's start. */
export async function readHeatmapCh(
  client: ClickHouseClient,
  q: Q<'heatmap'>,
  options: ReadOptions,
): Promise<Heatmap> {
  const s = periodScope(q);
  const local = localMsSql('started_at', s.plan, s.p);
  // 1970-01-01, day 0, was a Thursday, hence the +3
  const rows = await readRows(
    client,
    `SELECT ${F(`(intDiv(local, ${DAY}) + 3) % 7`)} AS weekday, ${F(`intDiv(local % ${DAY}, ${HOUR})`)} AS hour,
      ${F('uniqExact(visitor_key)')} AS visitors, ${F('count()')} AS visits, ${F('sum(pageviews)')} AS pageviews
    FROM (${scopeVisits(s, `visitor_key, pageviews, ${local} AS local`)})
    GROUP BY weekday, hour`,
    s.p.values,
    options,
  );
  return heatmapFrom(rows);
}

/**
 * Weekly cohorts (heatmap-retention.ts): a visitor belongs to the local week of their first visit
 * in the period, and counts in week k of it when they have a visit k weeks later. One pass: each
 * visitor's weeks, then a count per (cohort, k), each visitor once.
 */
export async function readRetentionCh(
  client: ClickHouseClient,
  q: Q<'retention'>,
  options: ReadOptions,
): Promise<Retention> {
  const s = periodScope(q);
  const slots = bucketSlots('week', q.period, s.plan);
  const cohorts = slots.map((slot, i) => ({
    week: slot.label,
    visitors: 0,
    weeks: new Array<number>(slots.length - i).fill(0),
  }));
  const week = `intDiv(intDiv(${localMsSql('started_at', s.plan, s.p)}, ${DAY}) + 3, 7)`;
  const rows = await readRows(
    client,
    `SELECT ${F('cohort')} AS c, ${F('week - cohort')} AS k, ${F('count()')} AS visitors
    FROM (
      SELECT min(week) AS cohort, groupUniqArray(week) AS weeks
      FROM (${scopeVisits(s, `visitor_key, ${week} AS week`)}) GROUP BY visitor_key
    ) ARRAY JOIN weeks AS week
    GROUP BY cohort, week`,
    s.p.values,
    options,
  );
  const first = slots[0]?.key ?? 0;
  for (const row of rows) {
    const cohort = cohorts[num(row['c']) - first];
    const k = num(row['k']);
    if (!cohort || k >= cohort.weeks.length) continue;
    cohort.weeks[k] = num(row['visitors']);
    if (k === 0) cohort.visitors = num(row['visitors']);
  }
  return { cohorts };
}

/**
 * DuckDB's `quantile_disc(x, q)`: the nearest rank, the ⌈q·n⌉-th smallest sample.
 * `quantileExactWeighted` with weight 1 takes the first value whose running count reaches
 * ⌈q·n⌉; `quantileExact` takes the (⌊q·n⌋+1)-th, another value whenever q·n is whole. NULLs
 * are skipped; no sample gives NULL.
 */
const percentile = (column: Vital, level: 0.5 | 0.75 | 0.9) =>
  `quantileExactWeighted(${level})(${column}, 1)`;
const p75sOf = (r: Row) =>
  Object.fromEntries(VITALS.map((v) => [v, vitalOrNull(r[`${v}_p75`])])) as Record<Vital, number | null>;
/** The most pages and devices a report names (vitals.ts). */
const LIMITS = { page: 50, device: 10 };

/**
 * Web Vitals of a period (vitals.ts readVitals): each metric's percentiles and shares, the p75s
 * per page, device and local day. One read of the period's `vt` events (after filters: those of
 * the visits the filters match, whenever they started; an event of no visit matches none), each
 * event counted in the whole, its page, its device and its day (`ARRAY JOIN`); the pages and
 * devices with the most samples, ties by value.
 */
export async function readVitalsCh(
  client: ClickHouseClient,
  q: Q<'vitals'>,
  options: ReadOptions,
): Promise<VitalsReport> {
  const s = periodScope(q);
  const { p } = s;
  const columns = VITALS.map((v) => {
    const [good, poor] = VITAL_THRESHOLDS[v];
    return `${F(`count(${v})`)} AS ${v}_n, ${percentile(v, 0.5)} AS ${v}_p50, ${percentile(v, 0.75)} AS ${v}_p75,
      ${percentile(v, 0.9)} AS ${v}_p90, ${F(`countIf(${v} <= ${p.add(good, 'Float64')})`)} AS ${v}_good,
      ${F(`countIf(${v} > ${p.add(poor, 'Float64')})`)} AS ${v}_poor`;
  }).join(',\n');
  const filtered =
    q.filters.length === 0
      ? ''
      : `AND visit_start IS NOT NULL AND (visitor_key, assumeNotNull(visit_start)) IN
          (SELECT visitor_key, started_at FROM sessions FINAL WHERE site = ${s.site} AND ${s.where})`;
  const day = `toString(intDiv(${localMsSql('ts', s.plan, p)}, ${DAY}))`;
  const rows = await readRows(
    client,
    `SELECT * FROM (
      SELECT g.1 AS part, g.2 AS value, ${F('count()')} AS samples, ${columns},
        row_number() OVER (PARTITION BY part ORDER BY samples DESC, value) AS rank
      FROM events FINAL
      ARRAY JOIN [tuple('total', ''), tuple('page', toString(path)), tuple('device', toString(device)),
        tuple('day', ${day})] AS g
      WHERE site = ${s.site} AND kind = 'vt' AND ts >= ${s.start} AND ts < ${s.end} ${filtered}
      GROUP BY part, value
    ) WHERE part IN ('total', 'day') OR rank <= if(part = 'page', ${p.add(LIMITS.page, 'UInt32')},
      ${p.add(LIMITS.device, 'UInt32')})
    ORDER BY part, rank`,
    p.values,
    options,
  );
  const totals = rows.find((r) => r['part'] === 'total') ?? {};
  const metrics = vitalSummaries(totals);
  const part = (name: string): VitalRow[] =>
    rows
      .filter((r) => r['part'] === name)
      .map((r) => ({ value: String(r['value']), samples: num(r['samples']), ...p75sOf(r) }));
  return {
    samples: num(totals['samples']),
    metrics,
    pages: part('page'),
    devices: part('device'),
    chart: part('day')
      .map(({ value, ...r }) => ({ day: Number(value), ...r }))
      .sort((a, b) => a.day - b.day)
      .map(({ day, ...r }) => ({ day: new Date(day * DAY).toISOString().slice(0, 10), ...r })),
  };
}

/** The period's visits of the `AI Assistant` channel after filters, per assistant, most visitors first. */
export async function readAssistantsCh(
  client: ClickHouseClient,
  q: Q<'assistants'>,
  options: ReadOptions,
): Promise<AssistantRow[]> {
  const s = periodScope(q);
  const rows = await readRows(
    client,
    `SELECT ${text('assistant')} AS value, ${F('uniqExact(visitor_key)')} AS visitors, ${F('count()')} AS visits
    FROM (${scopeVisits(s, 'visitor_key, assistant, channel')}) WHERE channel = 'AI Assistant'
    GROUP BY assistant ORDER BY visitors DESC, visits DESC, value ASC NULLS LAST LIMIT ${s.p.add(q.limit, 'UInt32')}`,
    s.p.values,
    options,
  );
  return rows.map((r) => ({
    value: str(r['value']),
    visitors: num(r['visitors']),
    visits: num(r['visits']),
  }));
}

/** `multiIf` of the bins a value falls in (their upper bounds, inclusive or not), as the bin's index. */
function binSql(value: string, bins: [number, string][], op: '<=' | '<', p: ChParams): string {
  const arms = bins.flatMap(([max], i) =>
    Number.isFinite(max) ? [`${value} ${op} ${p.add(max, 'Float64')}`, `'${i}'`] : [`'${i}'`],
  );
  return `multiIf(${arms.join(', ')})`;
}

/** A chart card's row of a visit: the card, its bucket (none for the bins) and its value. */
const cardRow = (card: string, bucket: string | null, value: string | null) =>
  `tuple('${card}', ${bucket === null ? NULL_NUM : `toNullable(${bucket})`}, ${value === null ? NULL_TEXT : text(value)})`;

/**
 * The chart cards (charts-sql.ts readCharts) in one statement: each visit of the period with its
 * first visit ever, engaged time and whether it reached a goal (one read of the period's events),
 * then the row it adds to each card, counted per card, bucket and value.
 */
export async function readChartsCh(
  client: ClickHouseClient,
  q: Q<'charts'>,
  options: ReadOptions,
): Promise<Charts> {
  const s = periodScope(q);
  const { p, site, start, end } = s;
  const slots = bucketSlots(q.bucket, q.period, s.plan);
  const bkt = bucketKeySql(q.bucket, 'started_at', localMsSql('started_at', s.plan, p));
  const visits = scopeVisits(
    s,
    `visitor_key, started_at, pageviews, coalesce(channel, 'Direct') AS ch, prev_at IS NOT NULL AS returning,
      ${F(bkt)} AS bkt`,
  );
  // a goal's events are pageviews or custom events; engagement is the `en` events' time
  const goals = q.goals ?? [];
  const reached = goals.length === 0 ? '0' : `(${goals.map((g) => goalMatchSql(g, p)).join(' OR ')})`;
  const perVisit = `SELECT visitor_key, assumeNotNull(visit_start) AS started_at,
      sumIf(engaged_ms, kind = 'en') AS ms, countIf(${reached}) > 0 AS converted
    FROM events FINAL
    WHERE site = ${site} AND visit_start >= ${start} AND visit_start < ${end} AND (kind = 'en' OR ${reached})
    GROUP BY visitor_key, started_at`;
  const cards = [
    cardRow('channel', 'bkt', 'ch'),
    cardRow('new', 'bkt', "if(returning, 'returning', 'first')"),
    cardRow('pages', null, binSql('pageviews', PAGES_BINS, '<=', p)),
    cardRow('engaged', null, binSql('engaged', ENGAGED_BINS, '<', p)),
  ];
  const rows = await readRows(
    client,
    `WITH v AS (${visits})
    SELECT c.1 AS card, c.2 AS b, c.3 AS val, ${F('count()')} AS visits
    FROM (
      SELECT v.bkt AS bkt, v.ch AS ch, v.pageviews AS pageviews, v.returning AS returning,
        coalesce(e.ms, 0) AS engaged, coalesce(e.converted, 0) AS converted
      FROM v LEFT JOIN (${perVisit}) e USING (visitor_key, started_at)
    )
    ARRAY JOIN arrayConcat([${cards.join(', ')}], if(converted, [${cardRow('goal', 'bkt', null)}], [])) AS c
    GROUP BY card, b, val`,
    p.values,
    options,
  );
  // the bucket key is `b` here (`bkt` is a column of v)
  return chartsFrom(
    rows.map((r) => ({ ...r, bkt: r['b'] ?? null })),
    q.bucket,
    slots,
    q.goals !== null,
  );
}

/** A visit's (dimension, value) pairs for some dimensions: one row each with `ARRAY JOIN`. */
const pairs = (columns: Record<string, string>) =>
  `[${Object.entries(columns)
    .map(([name, column]) => `tuple('${name}', ${text(column)})`)
    .join(', ')}]`;

/**
 * A period replayed (moments-sql.ts readMoments): per day or hour its totals and busiest values,
 * the busiest bucket, spikes, and the first visits ever from a referrer, a country or a campaign.
 * The busiest values and the firsts each take every dimension in one pass (`ARRAY JOIN`).
 */
export async function readMomentsCh(
  client: ClickHouseClient,
  q: Q<'moments'>,
  options: ReadOptions,
): Promise<Moments> {
  const s = periodScope(q);
  const { p, site, end, plan } = s;
  const slots = bucketSlots(q.bucket, q.period, plan);
  const bkt = bucketKeySql(q.bucket, 'started_at', localMsSql('started_at', plan, p));
  const visits = scopeVisits(
    s,
    `visitor_key, pageviews, channel, referrer, entry_page, country, utm_campaign, ${F(bkt)} AS bkt`,
  );
  const zero = `${F('0')} AS m, ${F('0')} AS o`;
  const totals = `SELECT 'total' AS part, bkt AS b, ${NULL_TEXT} AS dim, ${NULL_TEXT} AS val,
    ${F('uniqExact(visitor_key)')} AS n, ${F('count()')} AS m, ${F('sum(pageviews)')} AS o FROM v GROUP BY bkt`;
  // ties go to the value that sorts first
  const tops = `SELECT * FROM (
    SELECT 'top' AS part, bkt AS b, CAST(d.1 AS Nullable(String)) AS dim, d.2 AS val, ${F('count()')} AS n, ${zero}
    FROM v ARRAY JOIN ${pairs(TOPS)} AS d WHERE val IS NOT NULL AND val <> ''
    GROUP BY b, dim, val ORDER BY b, dim, n DESC, val LIMIT 1 BY b, dim)`;
  const firstAt = bucketKeySql(q.bucket, 'f.first_at', localMsSql('f.first_at', plan, p));
  const firsts = `SELECT 'first' AS part, x.b AS b, CAST(x.dim AS Nullable(String)) AS dim, x.val AS val,
      ${F('count()')} AS n, ${zero}
    FROM (SELECT bkt AS b, d.1 AS dim, d.2 AS val FROM v ARRAY JOIN ${pairs(FIRST_COLUMNS)} AS d
          WHERE val IS NOT NULL AND val <> '') x
    JOIN (SELECT d.1 AS dim, d.2 AS val, min(started_at) AS first_at
          FROM sessions FINAL ARRAY JOIN ${pairs(FIRST_COLUMNS)} AS d
          WHERE site = ${site} AND started_at < ${end} AND val IS NOT NULL AND val <> ''
          GROUP BY dim, val) f ON f.dim = x.dim AND f.val = x.val
    WHERE x.b = ${F(firstAt)}
    GROUP BY x.b, x.dim, x.val`;
  const rows = await readRows(
    client,
    `WITH v AS (${visits}) ${[totals, tops, firsts].join('\nUNION ALL\n')}`,
    p.values,
    options,
  );
  // the bucket key is `b` here (`bkt` is a column of v)
  return momentsFrom(
    rows.map((r) => ({ ...r, bkt: r['b'] ?? null })),
    q.bucket,
    slots,
  );
}
