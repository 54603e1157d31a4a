import type { ClickHouseClient } from '@clickhouse/client';
import { visitorKeyOf } from '../../visits/model.ts';
import {
  type Anchor,
  ATTRIBUTION_WINDOW_DAYS,
  type CreditedVisit,
  PAYMENT_TIME_PRECISION_MS,
} from '../attribution.ts';
import { CRAWL_GROUPS, type CrawlGroup } from '../counters-sql.ts';
import type { ReadOptions } from '../duckdb.ts';
import type { BotCounterRow, CrawlCounterRow, Engine } from '../engine.ts';
import { DIMENSION_COLUMNS } from '../filters.ts';
import type { FunnelCount } from '../funnels-sql.ts';
import type { GoalCount, GoalMatch, GoalProperty } from '../goals-sql.ts';
import { VISIT_DIMENSIONS, type VisitDimension } from '../report-params.ts';
import { type ChScope, periodScope, scopeVisits } from './period-scope.ts';
import { readRows } from './reads.ts';
import { ChParams, filterSql, goalMatchSql } from './report-sql.ts';

/**
 * Goals, goal properties, funnels, revenue attribution and the crawler and bot counters on
 * ClickHouse: the same answers as DuckDB's (goals-sql.ts, funnels-sql.ts, attribution.ts,
 * counters-sql.ts), read from collapsed rows (`FINAL`) and counted exactly (`uniqExact`).
 */

/** "The event reaches the goal", NULL (an event without props) read as no. */
const reaches = (goal: GoalMatch, p: ChParams) => `ifNull(${goalMatchSql(goal, p)}, 0)`;

/**
 * The activity (pageviews and custom events) of the scope's visits, `columns` of it: the events
 * of the visits that started in the period and match the filters.
 */
const scopeEvents = (s: ChScope, columns: string, where = '1') =>
  `SELECT ${columns} FROM events FINAL
   WHERE site = ${s.site} AND visit_start >= ${s.start} AND visit_start < ${s.end} AND kind IN ('pv', 'ev')
     AND (visitor_key, assumeNotNull(visit_start)) IN (${scopeVisits(s)}) AND ${where}`;

/** Each goal's converting visitors, visits and events (goals-sql.ts readGoals), in one pass. */
export async function readGoalsCh(
  client: ClickHouseClient,
  q: Parameters<Engine['goals']>[0],
  options: ReadOptions,
): Promise<GoalCount[]> {
  if (q.goals.length === 0) return [];
  const s = periodScope(q);
  const marks = q.goals.map((g, i) => `${reaches(g, s.p)} AS g${i}`).join(', ');
  const sums = q.goals
    .map(
      (_, i) => `toFloat64(uniqExactIf(visitor_key, g${i})) AS visitors${i},
        toFloat64(uniqExactIf((visitor_key, visit_start), g${i})) AS visits${i},
        toFloat64(countIf(g${i})) AS conversions${i}`,
    )
    .join(', ');
  const [row] = await readRows<Record<string, number>>(
    client,
    `SELECT ${sums} FROM (${scopeEvents(s, `visitor_key, visit_start, ${marks}`)})`,
    s.p.values,
    options,
  );
  return q.goals.map((_, i) => ({
    visitors: row?.[`visitors${i}`] ?? 0,
    visits: row?.[`visits${i}`] ?? 0,
    conversions: row?.[`conversions${i}`] ?? 0,
  }));
}

/** Most properties, and values of one property, that goal-props lists (as goals-sql.ts). */
const PROPERTY_KEYS = 30;
const PROPERTY_VALUES = 100;

/**
 * An event goal's events by each of their properties' values (goals-sql.ts readGoalProperties):
 * a value as text, a string as itself and a number or boolean as its JSON, as DuckDB's
 * `json_extract_string` gives it.
 */
export async function readGoalPropertiesCh(
  client: ClickHouseClient,
  q: Parameters<Engine['goalProperties']>[0],
  options: ReadOptions,
): Promise<GoalProperty[]> {
  if (q.goal.kind !== 'event') return [];
  const s = periodScope(q);
  const { p } = s;
  const events = scopeEvents(
    s,
    'visitor_key, assumeNotNull(props) AS doc',
    `props IS NOT NULL AND ${reaches(q.goal, p)}`,
  );
  const value = "if(JSONType(doc, key) = 'String', JSONExtractString(doc, key), JSONExtractRaw(doc, key))";
  const rows = await readRows<{ key: string; value: string; visitors: number; conversions: number }>(
    client,
    `SELECT key, value, visitors, conversions FROM (
       SELECT key, value, visitors, conversions,
         row_number() OVER (PARTITION BY key ORDER BY visitors DESC, conversions DESC, value) AS n,
         dense_rank() OVER (ORDER BY key) AS k
       FROM (
         SELECT key, ${value} AS value, toFloat64(uniqExact(visitor_key)) AS visitors,
           toFloat64(count()) AS conversions
         FROM (${events}) ARRAY JOIN JSONExtractKeys(doc) AS key
         GROUP BY key, value))
     WHERE n <= ${p.add(PROPERTY_VALUES, 'UInt32')} AND k <= ${p.add(PROPERTY_KEYS, 'UInt32')}
     ORDER BY key, n`,
    p.values,
    options,
  );
  const out = new Map<string, GoalProperty>();
  for (const r of rows) {
    let entry = out.get(r.key);
    if (!entry) {
      entry = { key: r.key, values: [] };
      out.set(r.key, entry);
    }
    entry.values.push({ value: r.value, visitors: r.visitors, conversions: r.conversions });
  }
  return [...out.values()];
}

/**
 * Visitors through a funnel's steps in order (funnels-sql.ts readFunnel, which says the rules),
 * in one pass: each visit's (or visitor's) events that reach a step, in time order, and each step
 * the first of them after the step before (later in time, or at the same millisecond another
 * event), within the days from the first step. Of events tied in time, the smallest id is taken
 * (DuckDB's `arg_min` takes any of them).
 */
export async function readFunnelCh(
  client: ClickHouseClient,
  q: Parameters<Engine['funnel']>[0],
  options: ReadOptions,
): Promise<FunnelCount> {
  const s = periodScope(q);
  const { p } = s;
  const key = q.withinDays === null ? 'visitor_key, visit_start' : 'visitor_key';
  const marks = `[${q.steps.map((step) => reaches(step, p)).join(', ')}]`;
  const events = scopeEvents(
    s,
    `visitor_key, visit_start, toUnixTimestamp64Milli(ts) AS t, id, ${marks} AS m`,
  );
  const window =
    q.withinDays === null ? '' : `AND e.1 <= evs[i0].1 + ${p.add(q.withinDays * 86_400_000, 'Int64')}`;
  // i<n>: the position in `evs` of step n's event, 0 when the step was not reached
  const steps = q.steps.map((_, i) => {
    if (i === 0) return 'arrayFirstIndex(e -> e.3[1] = 1, evs) AS i0';
    const prev = `evs[i${i - 1}]`;
    return `arrayFirstIndex(e -> i${i - 1} > 0 AND e.3[${i + 1}] = 1
        AND (e.1 > ${prev}.1 OR (e.1 = ${prev}.1 AND e.2 != ${prev}.2)) ${window}, evs) AS i${i}`;
  });
  const counts = q.steps.map((_, i) => `toFloat64(uniqExactIf(vk, i${i} > 0)) AS s${i}`).join(', ');
  const [row] = await readRows<Record<string, number>>(
    client,
    `SELECT ${counts} FROM (
       SELECT vk, ${steps.join(', ')} FROM (
         SELECT any(visitor_key) AS vk, arraySort(groupArray((t, id, m))) AS evs
         FROM (${events}) WHERE has(m, 1) GROUP BY ${key}))`,
    p.values,
    options,
  );
  return q.steps.map((_, i) => row?.[`s${i}`] ?? 0);
}

/** The anchors as a table `a` (idx, visitor, key, at): the sales, numbered from 0. */
function anchorTable(anchors: readonly Anchor[], p: ChParams): string {
  const visitors = p.add(
    anchors.map((a) => a.visitor),
    'Array(String)',
  );
  const keys = p.add(
    anchors.map((a) => visitorKeyOf(a.visitor)),
    'Array(UInt64)',
  );
  // in microseconds, as DuckDB's make_timestamptz takes them
  const ats = p.add(
    anchors.map((a) => Math.round(a.at * 1000)),
    'Array(Int64)',
  );
  return `SELECT toUInt32(n - 1) AS idx, visitor, vkey, fromUnixTimestamp64Micro(at_us, 'UTC') AS at
    FROM (SELECT ${visitors} AS visitor, ${keys} AS vkey, ${ats} AS at_us)
    ARRAY JOIN visitor, vkey, at_us, arrayEnumerate(visitor) AS n`;
}

/** The earliest and latest instants a sale can look at (ms), to read only the days around the sales. */
function anchorSpan(anchors: readonly Anchor[], p: ChParams) {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const { at } of anchors) {
    first = Math.min(first, at);
    last = Math.max(last, at);
  }
  return {
    from: p.time(Math.floor(first) - ATTRIBUTION_WINDOW_DAYS * 86_400_000),
    to: p.time(Math.ceil(last) + PAYMENT_TIME_PRECISION_MS),
  };
}

const BEFORE_SALE = `toIntervalMillisecond(${PAYMENT_TIME_PRECISION_MS})`;
const WINDOW = `toIntervalDay(${ATTRIBUTION_WINDOW_DAYS})`;

/**
 * Sales per statement at most: each is a query parameter, and parameters travel in the request's
 * URL (a server takes 1 MiB of it; the test server 16 KiB, about 180 sales).
 */
const SALES_PER_READ = 100;

/** Answers each sale on its own, so a long list is read in parts of SALES_PER_READ. */
async function inParts<Q extends { anchors: readonly Anchor[] }, T>(
  q: Q,
  read: (part: Q) => Promise<T[]>,
): Promise<T[]> {
  if (q.anchors.length <= SALES_PER_READ) return read(q);
  const out: T[] = [];
  for (let i = 0; i < q.anchors.length; i += SALES_PER_READ) {
    out.push(...(await read({ ...q, anchors: q.anchors.slice(i, i + SALES_PER_READ) })));
  }
  return out;
}

/** The visit credited with each sale (attribution.ts runAttribution, which says the rules). */
export function runAttributionCh(
  client: ClickHouseClient,
  q: Parameters<Engine['attribute']>[0],
  options: ReadOptions,
): Promise<(CreditedVisit | null)[]> {
  return inParts(q, (part) => attributePart(client, part, options));
}

async function attributePart(
  client: ClickHouseClient,
  q: Parameters<Engine['attribute']>[0],
  options: ReadOptions,
): Promise<(CreditedVisit | null)[]> {
  const out: (CreditedVisit | null)[] = q.anchors.map(() => null);
  if (q.anchors.length === 0) return out;
  const p = new ChParams();
  const site = p.add(q.site, 'String');
  const a = anchorTable(q.anchors, p);
  const span = anchorSpan(q.anchors, p);
  // a page or event filter looks at the events of the credited visit, whenever it started (the
  // widest span a DateTime64 holds)
  const bounds = { start: p.time(0), end: p.time(Date.UTC(2299, 11, 31)) };
  const matches = filterSql(q.filters, q.site, bounds, p);
  const last = q.model === 'last';
  const since = last ? `AND started_at > ${span.from}` : '';
  const window = last ? `AND s.started_at > a.at - ${WINDOW}` : '';
  const order = last ? "(s.channel != 'Direct') DESC NULLS LAST, s.started_at DESC" : 's.started_at ASC';
  const read = Object.values(DIMENSION_COLUMNS).join(', ');
  const columns = VISIT_DIMENSIONS.map((d) => `s.${DIMENSION_COLUMNS[d]} AS ${d}`).join(', ');
  const rows = await readRows<Record<string, string | number | boolean | null>>(
    client,
    `WITH a AS (${a})
     SELECT a.idx AS idx, ${columns}, s.matches AS matches
     FROM (SELECT visitor, started_at, session_id, ${read}, toBool(${matches}) AS matches FROM sessions FINAL
           WHERE site = ${site} AND visitor IN (SELECT visitor FROM a) AND started_at < ${span.to} ${since}) AS s
     JOIN a ON s.visitor = a.visitor
     WHERE s.started_at < a.at + ${BEFORE_SALE} ${window}
     ORDER BY idx, ${order}, s.session_id
     LIMIT 1 BY idx`,
    p.values,
    options,
  );
  for (const row of rows) {
    const dims = {} as Record<VisitDimension, string | null>;
    for (const d of VISIT_DIMENSIONS) dims[d] = typeof row[d] === 'string' ? row[d] : null;
    out[Number(row['idx'])] = { dims, matches: row['matches'] === true };
  }
  return out;
}

/** For each sale, the goals its visitor reached before it (attribution.ts runGoalPayers). */
export function runGoalPayersCh(
  client: ClickHouseClient,
  q: Parameters<Engine['goalPayers']>[0],
  options: ReadOptions,
): Promise<number[][]> {
  return inParts(q, (part) => goalPayersPart(client, part, options));
}

async function goalPayersPart(
  client: ClickHouseClient,
  q: Parameters<Engine['goalPayers']>[0],
  options: ReadOptions,
): Promise<number[][]> {
  const out: number[][] = q.anchors.map(() => []);
  if (q.anchors.length === 0 || q.goals.length === 0) return out;
  const p = new ChParams();
  const site = p.add(q.site, 'String');
  const a = anchorTable(q.anchors, p);
  const span = anchorSpan(q.anchors, p);
  const marks = `[${q.goals.map((g) => reaches(g, p)).join(', ')}]`;
  const rows = await readRows<{ idx: number; goals: number[] }>(
    client,
    `WITH a AS (${a})
     SELECT a.idx AS idx, groupUniqArrayArray(e.reached) AS goals
     FROM (SELECT visitor_key, ts, arrayFilter((g, hit) -> hit = 1, range(${q.goals.length}), ${marks}) AS reached
           FROM events FINAL
           WHERE site = ${site} AND kind IN ('pv', 'ev') AND visitor_key IN (SELECT vkey FROM a)
             AND ts > ${span.from} AND ts < ${span.to} AND notEmpty(reached)) AS e
     JOIN a ON e.visitor_key = a.vkey
     WHERE e.ts < a.at + ${BEFORE_SALE} AND e.ts > a.at - ${WINDOW}
     GROUP BY idx`,
    p.values,
    options,
  );
  for (const r of rows) out[r.idx]?.push(...r.goals.map(Number).sort((x, y) => x - y));
  return out;
}

const CRAWL_COLUMNS: Record<CrawlGroup, string> = {
  day: 'toString(day)',
  robot: 'robot',
  robotKind: 'robot_kind',
  path: 'path',
  status: 'status_class',
};

/** Crawler hits summed by the chosen keys, most first (counters-sql.ts buildCrawlCountersQuery). */
export async function readCrawlCountersCh(
  client: ClickHouseClient,
  q: Parameters<Engine['crawlCounters']>[0],
  options: ReadOptions,
): Promise<CrawlCounterRow[]> {
  const p = new ChParams();
  const keys = CRAWL_GROUPS.filter((g) => q.groupBy.includes(g));
  // the keys come back as k_<key>: a column's own name as an alias would stand for it in WHERE
  const select = [...keys.map((k) => `${CRAWL_COLUMNS[k]} AS k_${k}`), 'toFloat64(sum(hits)) AS hits'];
  const path = q.path === undefined ? '' : `AND path = ${p.add(q.path, 'String')}`;
  const rows = await readRows<Record<string, string | number>>(
    client,
    `SELECT ${select.join(', ')} FROM crawl_counters
     WHERE site = ${p.add(q.site, 'String')} AND day BETWEEN ${p.add(q.from, 'Date32')} AND ${p.add(q.to, 'Date32')} ${path}
     ${keys.length > 0 ? `GROUP BY ${keys.map((k) => `k_${k}`).join(', ')}` : ''}
     ORDER BY ${['hits DESC', ...keys.map((k) => `k_${k}`)].join(', ')}
     LIMIT ${p.add(q.limit ?? 1000, 'UInt32')}`,
    p.values,
    options,
  );
  return rows.map((row) => {
    const out: CrawlCounterRow = { hits: Number(row['hits']) };
    for (const key of ['day', 'robot', 'robotKind', 'path'] as const) {
      if (keys.includes(key)) out[key] = String(row[`k_${key}`]);
    }
    if (keys.includes('status')) out.status = Number(row['k_status']);
    return out;
  });
}

/** Tracker requests dropped as bots per local day and kind, days in order (counters-sql.ts). */
export async function readBotCountersCh(
  client: ClickHouseClient,
  q: Parameters<Engine['botCounters']>[0],
  options: ReadOptions,
): Promise<BotCounterRow[]> {
  const p = new ChParams();
  const rows = await readRows<{ day_text: string; kind: string; hits: number }>(
    client,
    `SELECT toString(day) AS day_text, kind, toFloat64(sum(hits)) AS hits FROM bot_counters
     WHERE site = ${p.add(q.site, 'String')} AND day BETWEEN ${p.add(q.from, 'Date32')} AND ${p.add(q.to, 'Date32')}
     GROUP BY day_text, kind ORDER BY day_text, kind`,
    p.values,
    options,
  );
  return rows.map((r) => ({ day: r.day_text, kind: r.kind, hits: r.hits }));
}
