import type { Query } from './duckdb.ts';
import { Params } from './sql-params.ts';

export const CRAWL_GROUPS = ['day', 'robot', 'robotKind', 'path', 'status'] as const;
export type CrawlGroup = (typeof CRAWL_GROUPS)[number];

const CRAWL_COLUMNS: Record<CrawlGroup, string> = {
  day: "strftime(day, '%Y-%m-%d') AS day",
  robot: 'robot',
  robotKind: 'robot_kind AS "robotKind"',
  path: 'path',
  status: 'status_class::INTEGER AS status',
};

/** What to read from the crawler counters: days are the site's local dates, inclusive. */
export interface CrawlCounterQuery {
  site: string;
  from: string;
  to: string;
  /** only this page (the one filter that narrows crawler counts) */
  path?: string;
  /** the keys to sum by; none gives one total row */
  groupBy: readonly CrawlGroup[];
  /** most rows returned, biggest first (default 1000) */
  limit?: number;
}

/**
 * Crawler hits summed by the chosen keys, most hits first. `status` is the status class
 * (2 for 2xx ... 5 for 5xx, 0 when the recipe could not know it).
 */
export function buildCrawlCountersQuery(q: CrawlCounterQuery): Query {
  const p = new Params();
  const keys = CRAWL_GROUPS.filter((g) => q.groupBy.includes(g));
  const select = [...keys.map((k) => CRAWL_COLUMNS[k]), 'sum(hits)::DOUBLE AS hits'].join(', ');
  const path = q.path === undefined ? '' : `AND path = ${p.add(q.path)}`;
  const order = ['hits DESC', ...keys.map((_, i) => `${i + 1}`)].join(', ');
  return p.query(`SELECT ${select} FROM crawl_counters
    WHERE site = ${p.add(q.site)} AND day BETWEEN ${p.add(q.from)}::DATE AND ${p.add(q.to)}::DATE ${path}
    ${keys.length > 0 ? `GROUP BY ${keys.map((_, i) => `${i + 1}`).join(', ')}` : ''}
    ORDER BY ${order} LIMIT ${p.add(q.limit ?? 1000)}`);
}

/** Tracker requests dropped as bots per local day and kind, days in order. */
export function buildBotCountersQuery(site: string, from: string, to: string): Query {
  const p = new Params();
  return p.query(`SELECT strftime(day, '%Y-%m-%d') AS day, kind, hits::DOUBLE AS hits FROM bot_counters
    WHERE site = ${p.add(site)} AND day BETWEEN ${p.add(from)}::DATE AND ${p.add(to)}::DATE
    ORDER BY day, kind`);
}
