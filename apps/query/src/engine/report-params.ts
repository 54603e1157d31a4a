import * as v from 'valibot';
import type { GoalMatch } from './goals-sql.ts';
import { NAMED_PERIODS, resolveNamedPeriod } from './named-periods.ts';

/** Visit-level dimensions: taken from the visit's first pageview (see apps/query/src/visits/engine.ts). */
export const VISIT_DIMENSIONS = [
  'channel',
  'referrer',
  'entry_page',
  'exit_page',
  'campaign',
  'source',
  'medium',
  'term',
  'content',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'language',
] as const;
export type VisitDimension = (typeof VISIT_DIMENSIONS)[number];

/**
 * `page` and `event` select visits that contain such a pageview / custom event, `hostname` visits
 * with a pageview on that host (its host key: lower case, no `www.`); `prop` (written
 * `prop:<key>:<value>`) visits with a custom event whose property has that value; `goal` (a goal's
 * name) visits that reached the goal, once the route has resolved it (`Filter.goal`).
 */
export const FILTER_DIMENSIONS = [...VISIT_DIMENSIONS, 'page', 'event', 'hostname', 'prop', 'goal'] as const;
export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];

export const BUCKETS = ['hour', 'day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];

/** One `f=dim:value` filter; `value` null (written `f=dim:`) matches visits without a value. */
export interface Filter {
  dim: FilterDimension;
  value: string | null;
  /** a `goal` filter's goal, as the route found it by name */
  goal?: GoalMatch;
}

/** Dates are `YYYY-MM-DD` in the site's time zone, both ends inclusive. */
export interface Period {
  from: string;
  to: string;
}

/** Validated report parameters. */
export interface ReportParams {
  period: Period;
  compare: Period | null;
  bucket: Bucket;
  filters: Filter[];
  /** per-day breakdowns */
  daily: boolean;
  /** adds exit pages, regions and cities */
  deep: boolean;
  /** rows per breakdown (per day with daily) */
  limit: number;
  /**
   * only these breakdowns (visit dimensions, `pages`, `events`), when a caller needs a few: the
   * report of several sites (routes/reports.ts). Undefined: all of them.
   */
  only?: readonly string[];
}

/** A report parameter that is missing, malformed or out of range; `param` names it. */
export class ReportParamError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(`${param}: ${message}`);
    this.name = 'ReportParamError';
  }
}

const DAY_MS = 86_400_000;
/** Longest period a report reads. */
export const MAX_PERIOD_DAYS = 3 * 366;
/** Most chart buckets in one answer (an hourly chart covers up to 31 days). */
export const MAX_BUCKETS = 31 * 24 + 2;
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 1000;
/** Most `f` filters in one request: each is a condition on every visit of the period. */
export const MAX_FILTERS = 20;
/** With `daily=1`, most rows per breakdown over all days (days × limit). */
export const MAX_DAILY_ROWS = 40_000;
/** Report dates lie in this range (both ends included). */
export const FIRST_DATE = '1970-01-01';
export const LAST_DATE = '9999-12-31';

const date = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  // valibot runs this check even after the regex failed: an unparseable date must not throw
  v.check((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
  }, 'is not a real date'),
  v.check((s) => s >= FIRST_DATE && s <= LAST_DATE, `must be between ${FIRST_DATE} and ${LAST_DATE}`),
);
const flag = v.picklist(['0', '1'], 'must be 0 or 1');
/** The raw query string shape; unknown parameters are left to the caller. */
const RawSchema = v.object({
  period: v.optional(v.picklist(NAMED_PERIODS, `must be one of ${NAMED_PERIODS.join(', ')}`)),
  from: v.optional(date),
  to: v.optional(date),
  compare: v.optional(v.picklist(['previous', 'year', 'custom'], 'must be previous, year or custom')),
  cfrom: v.optional(date),
  cto: v.optional(date),
  bucket: v.optional(v.picklist(BUCKETS, 'must be hour, day, week or month')),
  f: v.optional(v.array(v.string())),
  daily: v.optional(flag),
  deep: v.optional(flag),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, 'must be a whole number'),
      v.transform(Number),
      v.minValue(1, 'must be at least 1'),
      v.maxValue(MAX_LIMIT, `must be at most ${MAX_LIMIT}`),
    ),
  ),
});

export type RawReportQuery = Record<string, string | string[] | undefined>;

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
/** A day number kept within the dates reports accept. */
const clampDay = (n: number) => Math.min(Math.max(n, dayNumber(FIRST_DATE)), dayNumber(LAST_DATE));

/** Today's date in a time zone; throws ReportParamError for an unknown zone. */
export function todayIn(timeZone: string, nowMs: number): string {
  try {
    return new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(nowMs);
  } catch {
    throw new ReportParamError('timezone', `unknown time zone ${JSON.stringify(timeZone)}`);
  }
}

function shiftYear(d: string, years: number): string {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  return `${String(y + years).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
}

/** One `f` value (`dim:value`) as a filter; throws ReportParamError naming `f`. */
export function parseFilter(raw: string): Filter {
  const colon = raw.indexOf(':');
  const dim = colon < 0 ? raw : raw.slice(0, colon);
  if (colon < 0 || !(FILTER_DIMENSIONS as readonly string[]).includes(dim)) {
    throw new ReportParamError('f', `must be dim:value with dim one of ${FILTER_DIMENSIONS.join(', ')}`);
  }
  const value = raw.slice(colon + 1);
  if (value.length > 2048) throw new ReportParamError('f', 'value is too long');
  if (dim === 'prop' && value.indexOf(':') < 1) {
    throw new ReportParamError('f', 'a property filter is prop:<key>:<value>');
  }
  if (dim === 'goal' && value === '')
    throw new ReportParamError('f', "a goal filter is goal:<the goal's name>");
  return { dim: dim as FilterDimension, value: value === '' ? null : value };
}

/** The default bucket for a period of `days` days. */
export function defaultBucket(days: number): Bucket {
  if (days <= 2) return 'hour';
  if (days <= 92) return 'day';
  if (days <= 366) return 'week';
  return 'month';
}

/**
 * Validates report query parameters. The days are `period` (named-periods.ts) or `from`/`to`,
 * which default to the last 30 days ending today in the site's zone. Throws ReportParamError
 * naming the first bad parameter.
 *
 * @example
 * parseReportParams({ from: '2026-03-01', to: '2026-03-31', f: ['channel:Email'] }, 'Europe/Berlin', Date.now());
 */
export function parseReportParams(input: RawReportQuery, timeZone: string, nowMs: number): ReportParams {
  const single: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (key === 'f') single[key] = Array.isArray(value) ? value : [value];
    else if (!Array.isArray(value)) single[key] = value;
    else if (value.length === 1 && value[0] !== undefined) single[key] = value[0];
    else throw new ReportParamError(key, 'must be given once');
  }
  const parsed = v.safeParse(RawSchema, single);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue.path?.[0]?.key;
    throw new ReportParamError(typeof key === 'string' ? key : 'query', issue.message);
  }
  const raw = parsed.output;
  const today = todayIn(timeZone, nowMs);
  if (raw.period && (raw.from || raw.to)) {
    throw new ReportParamError('period', 'give either period or from and to, not both');
  }
  const named = raw.period && resolveNamedPeriod(raw.period, today);
  const to =
    named?.to ??
    raw.to ??
    (raw.from && dayNumber(raw.from) + 29 < dayNumber(today)
      ? dayString(clampDay(dayNumber(raw.from) + 29))
      : today);
  const from = named?.from ?? raw.from ?? dayString(clampDay(dayNumber(to) - 29));
  const days = dayNumber(to) - dayNumber(from) + 1;
  if (days < 1) throw new ReportParamError('to', 'must not be before from');
  if (days > MAX_PERIOD_DAYS)
    throw new ReportParamError('from', `period is longer than ${MAX_PERIOD_DAYS} days`);

  let compare: Period | null = null;
  if (raw.compare === 'previous') {
    compare = { from: dayString(dayNumber(from) - days), to: dayString(dayNumber(from) - 1) };
  } else if (raw.compare === 'year') {
    compare = { from: shiftYear(from, -1), to: shiftYear(to, -1) };
  } else if (raw.compare === 'custom') {
    if (!raw.cfrom) throw new ReportParamError('cfrom', 'is required when compare is custom');
    if (!raw.cto) throw new ReportParamError('cto', 'is required when compare is custom');
    if (raw.cto < raw.cfrom) throw new ReportParamError('cto', 'must not be before cfrom');
    if (dayNumber(raw.cto) - dayNumber(raw.cfrom) + 1 > MAX_PERIOD_DAYS) {
      throw new ReportParamError('cfrom', `period is longer than ${MAX_PERIOD_DAYS} days`);
    }
    compare = { from: raw.cfrom, to: raw.cto };
  } else if (raw.cfrom || raw.cto) {
    throw new ReportParamError(raw.cfrom ? 'cfrom' : 'cto', 'needs compare=custom');
  }

  if (compare && compare.from < FIRST_DATE) {
    throw new ReportParamError('compare', `the compared period would start before ${FIRST_DATE}`);
  }

  const bucket = raw.bucket ?? defaultBucket(days);
  if (bucket === 'hour' && days * 24 > MAX_BUCKETS) {
    throw new ReportParamError('bucket', 'hour buckets cover at most 31 days');
  }
  if (
    bucket === 'hour' &&
    compare &&
    (dayNumber(compare.to) - dayNumber(compare.from) + 1) * 24 > MAX_BUCKETS
  ) {
    throw new ReportParamError('bucket', 'hour buckets cover at most 31 days (the compared period too)');
  }
  const f = raw.f ?? [];
  if (f.length > MAX_FILTERS) throw new ReportParamError('f', `at most ${MAX_FILTERS} filters`);
  const limit = raw.limit ?? DEFAULT_LIMIT;
  if (raw.daily === '1' && days * limit > MAX_DAILY_ROWS) {
    throw new ReportParamError(
      'daily',
      `daily=1 answers at most ${MAX_DAILY_ROWS} rows per breakdown (days × limit): shorten the period or lower limit`,
    );
  }
  return {
    period: { from, to },
    compare,
    bucket,
    filters: f.map(parseFilter),
    daily: raw.daily === '1',
    deep: raw.deep === '1',
    limit,
  };
}
