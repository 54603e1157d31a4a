import { bucketSlots, dayNumber, dayString } from './buckets.ts';
import type { DuckDb, ReadOptions, Row } from './duckdb.ts';
import {
  buildHostnamesQuery,
  buildPageEngagementQuery,
  buildRolledEngagementQuery,
  engagementByKey,
  engagementKey,
  type HostnamesInput,
  NO_ENGAGEMENT,
  type PageEngagement,
  type PageEngagementInput,
} from './page-engagement.ts';
import {
  type Bucket,
  type Period,
  type ReportParams,
  VISIT_DIMENSIONS,
  type VisitDimension,
} from './report-params.ts';
import { buildReportQuery, type ReportSqlInput } from './report-sql.ts';
import type {
  BreakdownAnswer,
  BreakdownName,
  Breakdowns,
  ChartPoint,
  DailyBreakdowns,
  Metrics,
  Report,
} from './report-types.ts';
import { daysToBuild, isWholeDay, type RolledDay, rolledDaysQuery } from './rollups.ts';
import type { TimePlan } from './time-plan.ts';
import { localDay, readTimePlan } from './time-plan.ts';

/** Dimensions shown only with `deep=1`. */
export const DEEP_DIMENSIONS: readonly VisitDimension[] = ['exit_page', 'term', 'content', 'region', 'city'];

interface Sums {
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  durationMs: number;
  hits: number;
}

const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value ?? 0));
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const sums = (row: Row): Sums => ({
  visitors: num(row['visitors']),
  visits: num(row['visits']),
  pageviews: num(row['pageviews']),
  bounces: num(row['bounces']),
  durationMs: num(row['duration_ms']),
  hits: num(row['hits']),
});

const ZERO: Sums = { visitors: 0, visits: 0, pageviews: 0, bounces: 0, durationMs: 0, hits: 0 };

/** Turns sums into the shown metrics. */
export function metrics(s: Sums): Metrics {
  return {
    visitors: s.visitors,
    visits: s.visits,
    pageviews: s.pageviews,
    views_per_visit: s.visits === 0 ? 0 : s.pageviews / s.visits,
    bounce_rate: s.visits === 0 ? 0 : s.bounces / s.visits,
    visit_duration: s.visits === 0 ? 0 : s.durationMs / s.visits / 1000,
  };
}

function chart(rows: Row[], bucket: Bucket, period: Period, timePlan: TimePlan): ChartPoint[] {
  const byKey = new Map<number, Sums>();
  for (const row of rows) if (row['section'] === 'chart') byKey.set(num(row['bkt']), sums(row));
  return bucketSlots(bucket, period, timePlan).map((slot) => ({
    bucket: slot.label,
    start: new Date(slot.startMs).toISOString(),
    ...metrics(byKey.get(slot.key) ?? ZERO),
  }));
}

function emptyBreakdowns(dimensions: readonly VisitDimension[]): Breakdowns {
  const breakdowns: Breakdowns = { pages: [], events: [] };
  for (const dim of dimensions) breakdowns[dim] = [];
  return breakdowns;
}

/** Scroll depth and time on page by engagementKey (page-engagement.ts). */
type Engagements = Map<string, PageEngagement>;

/**
 * Rows come ordered by visitors then value per section (and day): keep that order. Page rows
 * take their scroll depth and time on page from `engagements`.
 */
function addRow(into: Breakdowns, section: string, row: Row, engagements: Engagements): void {
  const s = sums(row);
  const value = text(row['val']);
  if (section === 'pages') {
    const day = row['day'] === null || row['day'] === undefined ? null : num(row['day']);
    const engagement = engagements.get(engagementKey(day, value ?? '')) ?? NO_ENGAGEMENT;
    into.pages.push({
      value: value ?? '',
      visitors: s.visitors,
      visits: s.visits,
      pageviews: s.hits,
      ...engagement,
    });
  } else if (section === 'events') {
    into.events.push({ value, visitors: s.visitors, visits: s.visits, events: s.hits });
  } else {
    const { views_per_visit: _, ...m } = metrics(s);
    into[section as VisitDimension]?.push({ value, ...m });
  }
}

const byVisitorsThenValue = (a: Row, b: Row): number => {
  const d = num(b['visitors']) - num(a['visitors']);
  if (d !== 0) return d;
  const x = text(a['val']);
  const y = text(b['val']);
  if (x === y) return 0;
  if (x === null) return 1;
  if (y === null) return -1;
  return x < y ? -1 : 1;
};

let slowReports = false;

/** What reports need of the engine's day rollups (rollups.ts). */
export interface RollupAccess {
  /** the clock that says which local days are over */
  now(): number;
  /**
   * Asks for these local days (over, not rolled up) of a site in a zone to be rolled up, later:
   * `ahead` (a report waits; the default) puts them first in the queue, otherwise they go last.
   */
  request(site: string, timeZone: string, days: number[], ahead?: boolean): void;
  /**
   * Asks for the site's local day in progress to be rolled up so far (rollups.ts): at most
   * every few minutes, after the queue's other work.
   */
  requestSoFar(site: string, timeZone: string): void;
}

/**
 * How many report statements read day rollups, how many rolled days in all, and how many
 * engagement statements read them (tests read it).
 */
export const rollupReads = { statements: 0, days: 0, engagement: 0 };

/**
 * Reads a report statement's rows, over the day rollups where it can (rollup-sql.ts): the fast
 * way (no filter) with day, week or month buckets reads the rolled days' rows and only the other
 * days' raw ones. The rolled days are read first; when the statement's own snapshot lists fewer
 * (a batch changed one in between) it is asked again, at most three times, then without rollups.
 * Days that are over but not rolled up are asked for (built later, on the writer).
 */
async function readReportRows(
  db: DuckDb,
  input: ReportSqlInput,
  timeZone: string,
  options: ReadOptions,
  rollups: RollupAccess | undefined,
): Promise<Row[]> {
  if (!rollups || !input.fast || input.filters.length > 0 || input.bucket === 'hour') {
    return db.read(buildReportQuery(input), options);
  }
  const { plan } = input;
  const first = localDay(plan, plan.startMs);
  const last = localDay(plan, plan.endMs - 1);
  for (let attempt = 0; attempt < 3; attempt++) {
    const listed: RolledDay[] = (
      await db.read(rolledDaysQuery(input.site, timeZone, first, last), options)
    ).map((row) => ({ day: num(row['day']), through: num(row['through']) }));
    const whole = listed.filter((d) => isWholeDay(plan, d));
    const partial = listed.filter((d) => !isWholeDay(plan, d));
    if (attempt === 0) {
      const now = rollups.now();
      const over = daysToBuild(plan, first, last, new Set(whole.map((d) => d.day)), now);
      if (over.length > 0) rollups.request(input.site, timeZone, over);
      if (now < plan.endMs) rollups.requestSoFar(input.site, timeZone);
    }
    const rolled = { timeZone, days: listed.map((d) => d.day), partial };
    const rows = await db.read(buildReportQuery({ ...input, rolled }), options);
    if (listed.length === 0) return rows;
    const check = rows.find((row) => row['section'] === 'check');
    if (num(check?.['visits']) === listed.length) {
      rollupReads.statements++;
      rollupReads.days += listed.length;
      return rows.filter((row) => row['section'] !== 'check');
    }
  }
  return db.read(buildReportQuery(input), options);
}

/**
 * Reads the engagement of a report's pages, over the day rollups' `engagement` section where it
 * can (unfiltered): the listed days are read first, and the statement is asked again (at most
 * three times, then raw) when its own snapshot lists fewer, as readReportRows does.
 */
async function readEngagementRows(
  db: DuckDb,
  input: PageEngagementInput,
  options: ReadOptions,
  rollups: RollupAccess | undefined,
): Promise<Row[]> {
  if (!rollups || slowReports || input.filters.length > 0)
    return db.read(buildPageEngagementQuery(input), options);
  const { plan } = input;
  const first = localDay(plan, plan.startMs);
  const last = localDay(plan, plan.endMs - 1);
  for (let attempt = 0; attempt < 3; attempt++) {
    const listed: RolledDay[] = (
      await db.read(rolledDaysQuery(input.site, plan.timeZone, first, last), options)
    ).map((row) => ({ day: num(row['day']), through: num(row['through']) }));
    if (listed.length === 0) break;
    const rolled = {
      timeZone: plan.timeZone,
      days: listed.map((d) => d.day),
      partial: listed.filter((d) => !isWholeDay(plan, d)),
    };
    const rows = await db.read(buildRolledEngagementQuery(input, rolled), options);
    const check = rows.find((row) => num(row['day']) === -1 && row['val'] === null);
    if (num(check?.['scroll']) === listed.length) {
      rollupReads.engagement++;
      return rows.filter((row) => row !== check);
    }
  }
  return db.read(buildPageEngagementQuery(input), options);
}

/** Test seam: answer every report the slow way (repeat visitors), to compare both ways. */
export function useSlowReports(on: boolean): void {
  slowReports = on;
}

/**
 * The whole dashboard report of one site for validated parameters, in the site's zone.
 * Runs at most four statements: the period's (and compared period's) time plan, then the
 * period's report and the compared totals and chart side by side.
 */
export function runReport(
  db: DuckDb,
  site: string,
  timeZone: string,
  params: ReportParams,
  options: ReadOptions = {},
  rollups?: RollupAccess,
): Promise<Report> {
  return reportFrom(duckDbSource(db, rollups), site, timeZone, params, options);
}

/**
 * Where a report's rows come from: an engine's time plans and report statements
 * (ReportSqlInput's rows: section, day, bkt, val and the sums, top rows per section and day).
 */
export interface ReportSource {
  plan(timeZone: string, period: Period, options: ReadOptions): Promise<TimePlan>;
  rows(input: ReportSqlInput, timeZone: string, options: ReadOptions): Promise<Row[]>;
  /** Rows of val, day, scroll and ms (page-engagement.ts buildPageEngagementQuery). */
  engagement(input: PageEngagementInput, options: ReadOptions): Promise<Row[]>;
  /** Rows of val, visitors, visits and pageviews (page-engagement.ts buildHostnamesQuery). */
  hostnames(input: HostnamesInput, options: ReadOptions): Promise<Row[]>;
}

/** The engagement of the pages among a report's rows (none asked when it lists no page). */
async function engagementsOf(
  source: ReportSource,
  input: Omit<PageEngagementInput, 'paths'>,
  rows: readonly Row[],
  options: ReadOptions,
): Promise<Engagements> {
  const paths = new Set<string>();
  for (const row of rows) if (row['section'] === 'pages') paths.add(text(row['val']) ?? '');
  if (paths.size === 0) return new Map();
  return engagementByKey(await source.engagement({ ...input, paths: [...paths] }, options));
}

/** DuckDB's: its report statements, over the day rollups where they can. */
function duckDbSource(db: DuckDb, rollups: RollupAccess | undefined): ReportSource {
  return {
    plan: (timeZone, period, options) => readTimePlan(db, timeZone, period, options),
    rows: (input, timeZone, options) => readReportRows(db, input, timeZone, options, rollups),
    engagement: (input, options) => readEngagementRows(db, input, options, rollups),
    hostnames: (input, options) => db.read(buildHostnamesQuery(input), options),
  };
}

/** The report from an engine's rows (see runReport). */
export async function reportFrom(
  source: ReportSource,
  site: string,
  timeZone: string,
  params: ReportParams,
  options: ReadOptions = {},
): Promise<Report> {
  const dimensions = VISIT_DIMENSIONS.filter(
    (d) => (params.deep || !DEEP_DIMENSIONS.includes(d)) && (!params.only || params.only.includes(d)),
  );
  const pagesAndEvents = !params.only || params.only.includes('pages') || params.only.includes('events');
  const compare = params.compare;
  const [mainPlan, comparePlan] = await Promise.all([
    source.plan(timeZone, params.period, options),
    compare ? source.plan(timeZone, compare, options) : Promise.resolve(null),
  ]);
  // unfiltered, the stored previous visits count visitors (report-sql.ts, `fast`)
  const fast = !slowReports;
  const base = { site, bucket: params.bucket, filters: params.filters, limit: params.limit, fast };
  const [rows, compareRows] = await Promise.all([
    source.rows(
      { ...base, plan: mainPlan, dimensions, pagesAndEvents, daily: params.daily },
      timeZone,
      options,
    ),
    comparePlan
      ? source.rows(
          { ...base, plan: comparePlan, dimensions: [], pagesAndEvents: false, daily: false },
          timeZone,
          options,
        )
      : Promise.resolve(null),
  ]);
  rows.sort(byVisitorsThenValue);
  const engagements = await engagementsOf(
    source,
    { site, plan: mainPlan, filters: params.filters, daily: params.daily },
    rows,
    options,
  );

  const total = (r: Row[]) => metrics(sums(r.find((row) => row['section'] === 'total') ?? {}));
  const breakdowns = emptyBreakdowns(dimensions);
  const byDay = new Map<number, Breakdowns>();
  let daily: DailyBreakdowns[] | null = null;
  if (params.daily) {
    daily = [];
    for (let d = dayNumber(params.period.from); d <= dayNumber(params.period.to); d++) {
      const entry = { day: dayString(d), breakdowns: emptyBreakdowns(dimensions) };
      byDay.set(d, entry.breakdowns);
      daily.push(entry);
    }
  }
  for (const row of rows) {
    const section = String(row['section']);
    if (section === 'total' || section === 'chart') continue;
    const day = row['day'];
    if (day === null || day === undefined) addRow(breakdowns, section, row, engagements);
    else {
      const into = byDay.get(num(day));
      if (into) addRow(into, section, row, engagements);
    }
  }
  return {
    time_zone: timeZone,
    period: params.period,
    bucket: params.bucket,
    compare,
    kpis: total(rows),
    compare_kpis: compareRows ? total(compareRows) : null,
    chart: chart(rows, params.bucket, params.period, mainPlan),
    compare_chart:
      compare && compareRows && comparePlan ? chart(compareRows, params.bucket, compare, comparePlan) : null,
    breakdowns,
    daily,
  };
}

/**
 * One breakdown of a period in full (up to `params.limit` rows), optionally only the values that
 * contain `search`, with the period's totals: what a panel shows when opened on its own. Filters,
 * period and bucket are the report's.
 */
export function runBreakdown(
  db: DuckDb,
  q: BreakdownQuery,
  options: ReadOptions = {},
  rollups?: RollupAccess,
): Promise<BreakdownAnswer> {
  return breakdownFrom(duckDbSource(db, rollups), q, options);
}

export interface BreakdownQuery {
  site: string;
  timeZone: string;
  params: ReportParams;
  name: BreakdownName;
  search?: string | undefined;
}

/** One breakdown from an engine's rows (see runBreakdown). */
export async function breakdownFrom(
  source: ReportSource,
  q: BreakdownQuery,
  options: ReadOptions = {},
): Promise<BreakdownAnswer> {
  const { params, name } = q;
  const timePlan = await source.plan(q.timeZone, params.period, options);
  const pagesAndEvents = name === 'pages' || name === 'events';
  const hostname = name === 'hostname';
  const [rows, hosts] = await Promise.all([
    source.rows(
      {
        site: q.site,
        plan: timePlan,
        bucket: params.bucket,
        filters: params.filters,
        dimensions: pagesAndEvents || hostname ? [] : [name],
        pagesAndEvents,
        daily: false,
        limit: params.limit,
        fast: !slowReports,
        ...(q.search === undefined ? {} : { search: q.search }),
      },
      q.timeZone,
      options,
    ),
    hostname
      ? source.hostnames(
          { site: q.site, plan: timePlan, filters: params.filters, limit: params.limit, search: q.search },
          options,
        )
      : Promise.resolve([]),
  ]);
  const kpis = metrics(sums(rows.find((row) => row['section'] === 'total') ?? {}));
  if (hostname) {
    return {
      dimension: name,
      period: params.period,
      kpis,
      rows: hosts.map((r) => ({
        value: String(r['val']),
        visitors: num(r['visitors']),
        visits: num(r['visits']),
        pageviews: num(r['pageviews']),
      })),
    };
  }
  rows.sort(byVisitorsThenValue);
  const engagements =
    name === 'pages'
      ? await engagementsOf(
          source,
          { site: q.site, plan: timePlan, filters: params.filters, daily: false },
          rows,
          options,
        )
      : new Map();
  const into = emptyBreakdowns(pagesAndEvents ? [] : [name as VisitDimension]);
  for (const row of rows) {
    const section = String(row['section']);
    if (section === name) addRow(into, section, row, engagements);
  }
  return {
    dimension: name,
    period: params.period,
    kpis,
    rows: (into as Record<string, BreakdownAnswer['rows']>)[name] ?? [],
  };
}

/** Distinct visitors per local day of a period (the chart of an unfiltered daily report). */
export function runDailyVisitors(
  db: DuckDb,
  q: { site: string; timeZone: string; period: Period },
  options: ReadOptions = {},
  rollups?: RollupAccess,
): Promise<number[]> {
  return dailyVisitorsFrom(duckDbSource(db, rollups), q, options);
}

/** Distinct visitors per local day from an engine's rows (see runDailyVisitors). */
export async function dailyVisitorsFrom(
  source: ReportSource,
  q: { site: string; timeZone: string; period: Period },
  options: ReadOptions = {},
): Promise<number[]> {
  const timePlan = await source.plan(q.timeZone, q.period, options);
  const rows = await source.rows(
    {
      site: q.site,
      plan: timePlan,
      bucket: 'day',
      filters: [],
      dimensions: [],
      pagesAndEvents: false,
      daily: false,
      limit: 1,
      fast: !slowReports,
    },
    q.timeZone,
    options,
  );
  return chart(rows, 'day', q.period, timePlan).map((point) => point.visitors);
}
