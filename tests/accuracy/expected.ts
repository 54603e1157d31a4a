import { addDays, startOfDay } from '../support/zones.ts';
import { goalsOf } from './expected-goals.ts';
import {
  breakdown,
  chartSlots,
  DEEP,
  DIMENSIONS,
  type Group,
  group,
  hitBreakdown,
  inPeriod,
  type ModelFilter,
  matches,
  pageEngagement,
  type Slot,
  type Visit,
} from './model.ts';
import { ACCURACY_GOALS } from './stack.ts';

/** A mean visit duration (seconds) known to lie between two bounds. */
export class Bounds {
  constructor(
    readonly lo: number,
    readonly hi: number,
  ) {}
}

/** A report request as the model reads it (the same parameters go to the API). */
export interface ModelQuery {
  timeZone: string;
  from: string;
  to: string;
  bucket: 'hour' | 'day';
  compare?: boolean;
  filters?: ModelFilter[];
  daily?: boolean;
  deep?: boolean;
  limit: number;
}

/** The query string for a ModelQuery. */
export function queryString(q: ModelQuery): string {
  const s = new URLSearchParams({ from: q.from, to: q.to, bucket: q.bucket, limit: String(q.limit) });
  if (q.compare) s.set('compare', 'previous');
  if (q.daily) s.set('daily', '1');
  if (q.deep) s.set('deep', '1');
  for (const [dim, value] of q.filters ?? []) s.append('f', `${dim}:${value ?? ''}`);
  return s.toString();
}

const duration = (g: Group) =>
  g.visits === 0 ? 0 : new Bounds(g.durLo / g.visits / 1000, g.durHi / g.visits / 1000);

function metrics(g: Group) {
  return {
    visitors: g.visitors,
    visits: g.visits,
    pageviews: g.pageviews,
    views_per_visit: g.visits === 0 ? 0 : g.pageviews / g.visits,
    bounce_rate: g.visits === 0 ? 0 : g.bounces / g.visits,
    visit_duration: duration(g),
  };
}

const row = (g: Group) => {
  const { views_per_visit: _, ...m } = metrics(g);
  return { value: g.value, ...m };
};

function breakdowns(visits: readonly Visit[], q: ModelQuery) {
  const out: Record<string, unknown> = {};
  for (const dim of DIMENSIONS) {
    if (q.deep || !DEEP.includes(dim)) out[dim] = breakdown(visits, dim, q.limit).map(row);
  }
  out.pages = hitBreakdown(visits, 'pv', q.limit).map((g) => {
    const engagement = pageEngagement(visits, g.value ?? '');
    return {
      value: g.value,
      visitors: g.visitors,
      visits: g.visits,
      pageviews: g.pageviews,
      scroll_depth: engagement.scrollDepth,
      time_on_page: engagement.timeOnPage,
    };
  });
  out.events = hitBreakdown(visits, 'ev', q.limit).map((g) => ({
    value: g.value,
    visitors: g.visitors,
    visits: g.visits,
    events: g.events,
  }));
  return out;
}

const chart = (slots: Slot[]) =>
  slots.map((s) => ({
    bucket: s.label,
    start: new Date(s.startMs).toISOString(),
    ...metrics(groupOf(s.visits)),
  }));

const groupOf = (visits: readonly Visit[]): Group => group(null, visits);

/** The compared period of `compare=previous`: as many days, just before. */
export function previousPeriod(from: string, to: string): { from: string; to: string } {
  const days = Math.round((startOfDay(to, 'UTC') - startOfDay(from, 'UTC')) / 86_400_000) + 1;
  return { from: addDays(from, -days), to: addDays(from, -1) };
}

/** The whole report the API must answer for `q`, durations as Bounds. */
export function expectedReport(all: readonly Visit[], q: ModelQuery) {
  const selected = all.filter((v) => matches(v, q.filters ?? []));
  const visits = inPeriod(selected, q.timeZone, q.from, q.to);
  const cmp = q.compare ? previousPeriod(q.from, q.to) : null;
  const cmpVisits = cmp ? inPeriod(selected, q.timeZone, cmp.from, cmp.to) : [];
  const daily: { day: string; breakdowns: Record<string, unknown> }[] = [];
  for (let d = q.from; d <= q.to; d = addDays(d, 1)) {
    daily.push({ day: d, breakdowns: breakdowns(inPeriod(visits, q.timeZone, d, d), q) });
  }
  const kpiVisitors = new Set(visits.map((v) => v.identity)).size;
  return {
    time_zone: q.timeZone,
    period: { from: q.from, to: q.to },
    bucket: q.bucket,
    compare: cmp,
    kpis: metrics(groupOf(visits)),
    compare_kpis: cmp ? metrics(groupOf(cmpVisits)) : null,
    chart: chart(chartSlots(visits, q.timeZone, q.from, q.to, q.bucket)),
    compare_chart: cmp ? chart(chartSlots(cmpVisits, q.timeZone, cmp.from, cmp.to, q.bucket)) : null,
    breakdowns: breakdowns(visits, q),
    daily: q.daily ? daily : null,
    // the scripted sites have no payment connection (revenue has its own accuracy test:
    // apps/query/src/revenue.test.ts); their goals (stack.ts) count among the filtered visits, the
    // ids are the server's (expectReport takes them from the answer)
    revenue: null,
    // no import holds the scripted days (docs/imports.md)
    imported: null,
    goals: goalsOf(visits).map((g, i) => {
      const { kind, match, prop } = ACCURACY_GOALS[i]!;
      return {
        id: '',
        ...g,
        kind,
        match,
        prop,
        conversion_rate: kpiVisitors === 0 ? 0 : g.visitors / kpiVisitors,
      };
    }),
  };
}

/**
 * `expected` with each Bounds replaced by the actual number when that lies within the bounds,
 * so one `toEqual` checks counts exactly and durations within what the send allows; a duration
 * outside its bounds stays a Bounds and shows up in the diff.
 */
export function settle(expected: unknown, actual: unknown): unknown {
  if (expected instanceof Bounds) {
    const ok = typeof actual === 'number' && actual >= expected.lo - 1e-9 && actual <= expected.hi + 1e-9;
    return ok ? actual : expected;
  }
  if (Array.isArray(expected)) {
    return expected.map((e, i) => settle(e, Array.isArray(actual) ? actual[i] : undefined));
  }
  if (expected !== null && typeof expected === 'object') {
    const a = (actual ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, settle(v, a[k])]));
  }
  return expected;
}
