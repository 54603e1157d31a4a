import type { Anchor, AttributionModel, CreditedVisit } from './attribution.ts';
import type { Charts } from './charts-sql.ts';
import type { CrawlCounterQuery, CrawlGroup } from './counters-sql.ts';
import type { FunnelCount, FunnelQuery } from './funnels-sql.ts';
import type { GoalCount, GoalMatch, GoalProperty } from './goals-sql.ts';
import type { Lifetime } from './lifetime.ts';
import type { Batch, BatchRecord, BatchResult } from './loader.ts';
import type { Moments } from './moments-sql.ts';
import type { WindowTotals } from './reads.ts';
import type { Bucket, Filter, Period, ReportParams } from './report-params.ts';
import type { BreakdownAnswer, BreakdownName, Report } from './report-types.ts';
import type { ExportCounts, ExportQuery } from './site-export.ts';
import type { AssistantRow, VitalsReport } from './vitals.ts';

/**
 * The analytics engine behind the query service: the only thing the tailer and the API call.
 * DuckDB implements it today (duckdb-engine.ts); a ClickHouse engine could implement it later
 * without the API noticing (DESIGN.md, "Beyond one machine").
 *
 * Invariants every implementation keeps:
 * - applyBatch is atomic with the stream positions it advances, skips records at or below a
 *   stream's stored position, and stores an event id once within the dedupe window;
 * - reads never see half a batch;
 * - numbers are exact (no sampling, no approximate distinct counts).
 */
/** A batch being loaded: `add` each slice of records in order, then `commit` (or `abort`). */
export interface BatchWriter {
  add(records: readonly BatchRecord[]): Promise<void>;
  /** writes the batch and its streams' positions in one transaction */
  commit(): Promise<BatchResult>;
  /** forgets the batch: nothing of it is written */
  abort(): void;
}

/** Loads a whole batch through `begin`: added at once, committed, or aborted when anything fails. */
export async function applyWhole(begin: () => Promise<BatchWriter>, batch: Batch): Promise<BatchResult> {
  const writer = await begin();
  try {
    await writer.add(batch.records);
    return await writer.commit();
  } catch (error) {
    writer.abort();
    throw error;
  }
}

export interface Engine {
  /** Loads a batch of WAL records; calls are serialised internally. */
  applyBatch(batch: Batch): Promise<BatchResult>;
  /**
   * Starts a batch that takes its records in slices (the tailer's way: a backlog in large batches
   * without holding them all in memory). It holds the writer until it commits or aborts.
   */
  beginBatch(): Promise<BatchWriter>;
  /** The last applied sequence number of every stream (resume after it; lag = WAL last seq - this). */
  positions(): Promise<Map<string, bigint>>;
  /** Committed batches since open: a report cache keyed by it never serves numbers older than a commit. */
  readonly generation: number;
  /**
   * The engine's own pre-aggregation work since open (DuckDB: day rollups, built for the days
   * reports ask for): days waiting to be built, days built, builds that failed.
   */
  readonly rollupWork: { queuedDays: number; builtDays: number; failedBuilds: number };
  /**
   * Says which sites reports will be asked for, and in which zone: the engine may prepare ahead
   * what makes them fast (DuckDB: rolls up every day of their history that is over and not rolled
   * up yet, and drops what it rolled up for a zone the site no longer has). Resolves once the work
   * is queued, with how many units (days) were queued.
   */
  prepare(sites: readonly { site: string; timeZone: string }[]): Promise<number>;
  /** The period reads (report, heatmap, retention) share connections of their own. */
  report(q: SiteQuery & { params: ReportParams } & ReadControl): Promise<Report>;
  /** One breakdown in full (rows containing `search` only, when given), with the totals. */
  breakdown(
    q: SiteQuery & { params: ReportParams; name: BreakdownName; search?: string | undefined } & ReadControl,
  ): Promise<BreakdownAnswer>;
  /** Distinct visitors of each local day of a period, unfiltered. */
  dailyVisitors(q: SiteQuery & { period: Period } & ReadControl): Promise<number[]>;
  /** The visit credited with each sale (revenue attribution, at query time). */
  attribute(
    q: {
      site: string;
      anchors: readonly Anchor[];
      model: AttributionModel;
      filters: readonly Filter[];
    } & ReadControl,
  ): Promise<(CreditedVisit | null)[]>;
  /** For each sale, the goals its visitor reached before it (indices into `goals`). */
  goalPayers(
    q: { site: string; anchors: readonly Anchor[]; goals: readonly GoalMatch[] } & ReadControl,
  ): Promise<number[][]>;
  heatmap(q: PeriodQuery & ReadControl): Promise<Heatmap>;
  retention(q: PeriodQuery & ReadControl): Promise<Retention>;
  /** Web Vitals of the period: percentiles and shares per metric, p75s per page, device and day. */
  vitals(q: PeriodQuery & ReadControl): Promise<VitalsReport>;
  /** Each goal's converting visitors, visits and events in the period (filters applied). */
  goals(q: PeriodQuery & ReadControl & { goals: readonly GoalMatch[] }): Promise<GoalCount[]>;
  /** Visitors who went through a funnel's steps in order (filters applied), per step. */
  funnel(q: PeriodQuery & ReadControl & FunnelQuery): Promise<FunnelCount>;
  /** One event goal's events by each of their properties' values (filters applied). */
  goalProperties(q: PeriodQuery & ReadControl & { goal: GoalMatch }): Promise<GoalProperty[]>;
  /** Visits AI assistants sent in the period (filters applied), per assistant. */
  assistants(q: PeriodQuery & ReadControl & { limit: number }): Promise<AssistantRow[]>;
  /** The live reads never wait behind a period read. */
  now(q: { site: string; limit?: number } & ReadControl): Promise<NowNumbers>;
  recentEvents(q: { site: string; limit: number } & ReadControl): Promise<LiveEvent[]>;
  journey(q: { site: string; visitor: string; limit?: number } & ReadControl): Promise<Journey>;
  /** When the site's first visit began and its last activity was (unix ms), null before any. */
  status(q: { site: string } & ReadControl): Promise<{ firstVisit: number | null; lastSeen: number | null }>;
  /** Visitors, visits and pageviews of the visits that started in [from, to), and per bucket. */
  windowTotals(
    q: { site: string; from: number; to: number; buckets: number } & ReadControl,
  ): Promise<WindowTotals>;
  /** The chart cards' data: channels and new visits over time, pages per visit, engaged time, conversions. */
  charts(
    q: PeriodQuery & ReadControl & { bucket: Bucket; goals: readonly GoalMatch[] | null },
  ): Promise<Charts>;
  /** The period replayed: per day or hour its totals and busiest values, and what happened when. */
  moments(q: PeriodQuery & ReadControl & { bucket: 'day' | 'hour' }): Promise<Moments>;
  /** Lifetime visitors, pageviews and countries up to the end of a day in the site's time zone. */
  lifetime(q: { site: string; timeZone: string; day: string } & ReadControl): Promise<Lifetime>;
  /** Events stored, and those of the last seven days. */
  storage(q?: ReadControl): Promise<{ events: number; lastSevenDays: number }>;
  crawlCounters(q: CrawlCounterQuery): Promise<CrawlCounterRow[]>;
  botCounters(q: { site: string; from: string; to: string }): Promise<BotCounterRow[]>;
  /**
   * Deletes a site's visits that started before `before` (unix ms), with their events, the events
   * of no visit from before it, what was rolled up of those days, and the visitor records of those
   * whose every visit went (they come back as new visitors). Counters stay (retention.ts).
   */
  expire(q: { site: string; before: number }): Promise<Expired>;
  /**
   * Writes a site's stored events, visits and robot counters to files, as stored (`footfall
   * export`, docs/export.md): each engine writes the same columns in the same order.
   */
  exportSite(q: ExportQuery): Promise<ExportCounts>;
  /** Removes every event, visit and counter of a site (stream positions stay). */
  deleteSite(site: string): Promise<void>;
  /**
   * A consistent copy of the database for a backup: with no batch being applied, the database is
   * checkpointed and copied to `target`, then `during` runs with the stream positions the copy
   * holds (the backup links the write-ahead log from there). Reads go on meanwhile. An engine
   * whose data lives on a server of its own (ClickHouse) copies nothing: `schema` is null, and
   * `during` gets the positions the server holds, so the backup keeps the log not applied yet.
   */
  snapshot(
    target: string,
    during: (positions: Map<string, bigint>) => Promise<void>,
  ): Promise<{ schema: number | null; positions: Map<string, bigint> }>;
  close(): Promise<void>;
}

/** What a retention pass deleted of one site. */
export interface Expired {
  visits: number;
  events: number;
}

/**
 * What every read takes besides its own parameters. A read whose signal is aborted stops (its
 * statement is interrupted) and rejects with QueryAbortedError; a read that would wait behind too
 * many others rejects at once with EngineBusyError.
 */
export interface ReadControl {
  signal?: AbortSignal | undefined;
}

export interface SiteQuery {
  site: string;
  /** the site's IANA time zone, in which dates are read */
  timeZone: string;
}

export interface PeriodQuery extends SiteQuery {
  period: Period;
  filters: readonly Filter[];
}

/** Hour by weekday of visit starts in the site's zone: `[weekday][hour]`, Monday first. */
export interface Heatmap {
  weekdays: readonly ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  visitors: number[][];
  visits: number[][];
  pageviews: number[][];
}

/** Weekly cohorts; `weeks[k]` = visitors of the cohort who visited k weeks after (weeks[0] = cohort size). */
export interface Retention {
  cohorts: { week: string; visitors: number; weeks: number[] }[];
}

export interface NowPerson {
  /** 'active' when seen in the last 5 minutes, else 'recent' */
  kind: 'active' | 'recent';
  visitor: string;
  /** last seen, ISO 8601 */
  seen: string;
  visit_start: string | null;
  path: string | null;
  pageviews: number;
  channel: string | null;
  referrer: string | null;
  entry_page: string | null;
  country: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
}

export interface NowNumbers {
  visitors_5m: number;
  visitors_30m: number;
  pageviews_30m: number;
  recent: NowPerson[];
  /** people seen in the last 30 minutes left out of `recent`; absent when 0 */
  more?: number;
}

export interface LiveEvent {
  id: string;
  /** ISO 8601 */
  at: string;
  kind: string;
  name: string | null;
  props: Record<string, string | number | boolean> | null;
  host: string;
  path: string;
  visitor: string;
  visit: string | null;
  referrer: string | null;
  channel: string;
  country: string | null;
  region: string | null;
  city: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  language: string | null;
  engaged_ms: number | null;
}

export interface JourneyVisit {
  visit: string;
  started: string;
  ended: string;
  duration_seconds: number;
  pageviews: number;
  events: LiveEvent[];
  channel: string | null;
  referrer: string | null;
  entry_page: string | null;
  exit_page: string | null;
  campaign: string | null;
  source: string | null;
  medium: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  language: string | null;
}

/** One visitor's visits, newest first, each with its events in time order. */
export interface Journey {
  visitor: string;
  visits: JourneyVisit[];
}

export type CrawlCounterRow = Partial<Record<Exclude<CrawlGroup, 'status'>, string>> & {
  status?: number;
  hits: number;
};

export interface BotCounterRow {
  day: string;
  kind: string;
  hits: number;
}
