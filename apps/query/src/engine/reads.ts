import { bucketSlots } from './buckets.ts';
import type { DuckDb, ReadOptions, Row } from './duckdb.ts';
import type {
  Heatmap,
  Journey,
  JourneyVisit,
  LiveEvent,
  NowNumbers,
  NowPerson,
  PeriodQuery,
  Retention,
} from './engine.ts';
import { buildHeatmapQuery, buildRetentionQuery } from './heatmap-retention.ts';
import {
  buildJourneyEventsQuery,
  buildJourneyVisitsQuery,
  buildNowPeopleQuery,
  buildNowTotalsQuery,
  buildRecentEventsQuery,
} from './live-sql.ts';
import { instant, readTimePlan } from './time-plan.ts';

/** Row field readers: SQL rows are parsed, never cast. */
export const num = (v: unknown): number =>
  typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const iso = (v: unknown): string => new Date(num(v)).toISOString();
const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : iso(v));

function props(v: unknown): LiveEvent['props'] {
  if (typeof v !== 'string') return null;
  const parsed: unknown = JSON.parse(v);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      out[key] = value;
  }
  return out;
}

export function liveEvent(row: Row): LiveEvent {
  return {
    id: str(row['id']) ?? '',
    at: iso(row['at']),
    kind: str(row['kind']) ?? '',
    name: str(row['name']),
    props: props(row['props']),
    host: str(row['host']) ?? '',
    path: str(row['path']) ?? '',
    visitor: str(row['visitor']) ?? '',
    visit: str(row['visit']),
    referrer: str(row['referrer']),
    channel: str(row['channel']) ?? '',
    country: str(row['country']),
    region: str(row['region']),
    city: str(row['city']),
    device: str(row['device']) ?? '',
    browser: str(row['browser']),
    os: str(row['os']),
    language: str(row['language']),
    engaged_ms: row['engaged_ms'] === null ? null : num(row['engaged_ms']),
  };
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
const grid = () => Array.from({ length: 7 }, () => new Array<number>(24).fill(0));

export async function readHeatmap(db: DuckDb, q: PeriodQuery, options: ReadOptions): Promise<Heatmap> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  return heatmapFrom(await db.read(buildHeatmapQuery(q.site, plan, q.filters), options));
}

/** The heatmap from rows of weekday (0 = Monday), hour and the three counts (both engines read them). */
export function heatmapFrom(rows: Row[]): Heatmap {
  const heatmap: Heatmap = { weekdays: WEEKDAYS, visitors: grid(), visits: grid(), pageviews: grid() };
  for (const row of rows) {
    const w = num(row['weekday']);
    const h = num(row['hour']);
    heatmap.visitors[w]![h] = num(row['visitors']);
    heatmap.visits[w]![h] = num(row['visits']);
    heatmap.pageviews[w]![h] = num(row['pageviews']);
  }
  return heatmap;
}

/** Every week of the period is a cohort row, with zeros when nobody came: never null. */
export async function readRetention(db: DuckDb, q: PeriodQuery, options: ReadOptions): Promise<Retention> {
  const plan = await readTimePlan(db, q.timeZone, q.period, options);
  const slots = bucketSlots('week', q.period, plan);
  const cohorts = slots.map((slot, i) => ({
    week: slot.label,
    visitors: 0,
    weeks: new Array<number>(slots.length - i).fill(0),
  }));
  const first = slots[0]?.key ?? 0;
  for (const row of await db.read(buildRetentionQuery(q.site, plan, q.filters), options)) {
    const cohort = cohorts[num(row['cohort']) - first];
    const k = num(row['k']);
    if (!cohort || k >= cohort.weeks.length) continue;
    cohort.weeks[k] = num(row['visitors']);
    if (k === 0) cohort.visitors = num(row['visitors']);
  }
  return { cohorts };
}

export async function readNow(
  db: DuckDb,
  site: string,
  nowMs: number,
  limit: number,
  options: ReadOptions,
): Promise<NowNumbers> {
  const [totals, people] = await Promise.all([
    db.read(buildNowTotalsQuery(site, nowMs), options),
    db.read(buildNowPeopleQuery(site, nowMs, limit), options),
  ]);
  return nowAnswer(totals[0] ?? {}, people, nowMs);
}

/**
 * The right-now answer from its totals row (visitors5, visitors30, pageviews30) and people rows
 * (seen and visit_start in ms, the visit's columns, and `people`: how many in all), as both
 * engines read them.
 */
export function nowAnswer(t: Row, people: Row[], nowMs: number): NowNumbers {
  const recent = people.map(
    (row): NowPerson => ({
      kind: num(row['seen']) >= nowMs - 5 * 60_000 ? 'active' : 'recent',
      visitor: str(row['visitor']) ?? '',
      seen: iso(row['seen']),
      visit_start: isoOrNull(row['visit_start']),
      path: str(row['path']),
      pageviews: num(row['pageviews']),
      channel: str(row['channel']),
      referrer: str(row['referrer']),
      entry_page: str(row['entry_page']),
      country: str(row['country']),
      city: str(row['city']),
      device: str(row['device']),
      browser: str(row['browser']),
      os: str(row['os']),
    }),
  );
  const more = num(people[0]?.['people']) - recent.length;
  return {
    visitors_5m: num(t['visitors5']),
    visitors_30m: num(t['visitors30']),
    pageviews_30m: num(t['pageviews30']),
    recent,
    ...(more > 0 ? { more } : {}),
  };
}

export async function readRecentEvents(
  db: DuckDb,
  site: string,
  limit: number,
  nowMs: number,
  options: ReadOptions,
): Promise<LiveEvent[]> {
  return (await db.read(buildRecentEventsQuery(site, limit, nowMs), options)).map(liveEvent);
}

export async function readJourney(
  db: DuckDb,
  site: string,
  visitor: string,
  limit: number,
  options: ReadOptions,
): Promise<Journey> {
  const visitRows = await db.read(buildJourneyVisitsQuery(site, visitor, limit), options);
  const visits = visitRows.map(journeyVisit);
  const oldest = visitRows.at(-1);
  if (oldest) {
    const byVisit = new Map(visits.map((v) => [v.visit, v]));
    for (const row of await db.read(
      buildJourneyEventsQuery(site, visitor, num(oldest['started'])),
      options,
    )) {
      const event = liveEvent(row);
      if (event.visit) byVisit.get(event.visit)?.events.push(event);
    }
  }
  return { visitor, visits };
}

/** A journey's visit from its row (as both engines read it), its events to be added. */
export function journeyVisit(row: Row): JourneyVisit {
  return {
    visit: str(row['visit']) ?? '',
    started: iso(row['started']),
    ended: iso(row['ended']),
    duration_seconds: num(row['duration']),
    pageviews: num(row['pageviews']),
    events: [],
    channel: str(row['channel']),
    referrer: str(row['referrer']),
    entry_page: str(row['entry_page']),
    exit_page: str(row['exit_page']),
    campaign: str(row['utm_campaign']),
    source: str(row['utm_source']),
    medium: str(row['utm_medium']),
    country: str(row['country']),
    region: str(row['region']),
    city: str(row['city']),
    device: str(row['device']),
    browser: str(row['browser']),
    os: str(row['os']),
    language: str(row['language']),
  };
}

/** When a site's first visit started and its last activity was, unix ms, or nulls before any visit. */
export async function readStatus(
  db: DuckDb,
  site: string,
  options: ReadOptions,
): Promise<{ firstVisit: number | null; lastSeen: number | null }> {
  const [row] = await db.read(
    {
      sql: `SELECT epoch_ms(min(started_at))::DOUBLE AS first, epoch_ms(max(ended_at))::DOUBLE AS last
            FROM sessions WHERE site = $1`,
      params: [site],
    },
    options,
  );
  const first = row?.['first'];
  const last = row?.['last'];
  return { firstVisit: first == null ? null : num(first), lastSeen: last == null ? null : num(last) };
}

/**
 * A site's last activity, unix ms, knowing it was at least `since`: only visits that ended since
 * are read (the zone maps of `ended_at` skip the rest), or `since` when none did.
 */
export async function readLastSeen(
  db: DuckDb,
  site: string,
  since: number,
  options: ReadOptions,
): Promise<number> {
  const [row] = await db.read(
    {
      sql: 'SELECT epoch_ms(max(ended_at))::DOUBLE AS last FROM sessions WHERE site = $1 AND ended_at >= $2',
      params: [site, instant(since)],
    },
    options,
  );
  const last = row?.['last'];
  return last == null ? since : Math.max(since, num(last));
}

/** Events stored, and those of the last seven days (for how long the disk lasts at that rate). */
export async function readStorage(
  db: DuckDb,
  nowMs: number,
  options: ReadOptions,
): Promise<{ events: number; lastSevenDays: number }> {
  const [row] = await db.read(
    {
      sql: 'SELECT count(*)::DOUBLE AS events, count(*) FILTER (WHERE ts >= $1)::DOUBLE AS recent FROM events',
      params: [instant(nowMs - 7 * 86_400_000)],
    },
    options,
  );
  return { events: num(row?.['events']), lastSevenDays: num(row?.['recent']) };
}

/** Visitors, visits and pageviews of visits that started in a window, in whole and per bucket. */
export interface WindowTotals {
  visitors: number;
  visits: number;
  pageviews: number;
  /** `buckets` slices of equal length from `from`, each with its own distinct visitors */
  series: { visitors: number; visits: number; pageviews: number }[];
}

/**
 * The totals of the visits that started in [from, to) (unix ms), and per equal bucket: what the
 * share cards draw (a rolling 24 hours, 7 or 30 days ending now).
 */
export async function readWindowTotals(
  db: DuckDb,
  q: { site: string; from: number; to: number; buckets: number },
  options: ReadOptions,
): Promise<WindowTotals> {
  const size = (q.to - q.from) / q.buckets;
  const rows = await db.read(
    {
      sql: `SELECT b, count(DISTINCT visitor_key)::DOUBLE AS visitors, count(*)::DOUBLE AS visits,
          coalesce(sum(pageviews), 0)::DOUBLE AS pageviews
        FROM (
          SELECT visitor_key, pageviews, least(floor((epoch_ms(started_at) - $2) / $4)::INTEGER, $5 - 1) AS b
          FROM sessions WHERE site = $1 AND started_at >= $6 AND started_at < $3
        )
        GROUP BY GROUPING SETS ((b), ())`,
      params: [q.site, q.from, instant(q.to), size, q.buckets, instant(q.from)],
    },
    options,
  );
  return windowTotalsFrom(rows, q.buckets);
}

/** Window totals from rows of bucket `b` (null: the whole window) and its counts (both engines read them). */
export function windowTotalsFrom(rows: Row[], buckets: number): WindowTotals {
  const out: WindowTotals = {
    visitors: 0,
    visits: 0,
    pageviews: 0,
    series: Array.from({ length: buckets }, () => ({ visitors: 0, visits: 0, pageviews: 0 })),
  };
  for (const r of rows) {
    const counts = { visitors: num(r['visitors']), visits: num(r['visits']), pageviews: num(r['pageviews']) };
    if (r['b'] === null || r['b'] === undefined) Object.assign(out, counts);
    else out.series[Number(r['b'])] = counts;
  }
  return out;
}
