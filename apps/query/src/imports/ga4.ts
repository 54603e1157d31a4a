import { setTimeout as sleep } from 'node:timers/promises';
import {
  addImported,
  beginImport,
  type ControlDb,
  finishImport,
  type ImportedDay,
  type ImportedRow,
  removeImport,
  removeImportedFrom,
  type ServiceAccountKey,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { classifyChannel } from '@footfall/ingest/channels';
import { accessToken, call, type GoogleApi, googleError } from '../search-console.ts';
import { keepsDay } from './files.ts';
import type { ImportProgress, ImportSummary } from './run.ts';

/**
 * Google Analytics 4 through its Data API (docs/imports.md): daily aggregates per dimension of a
 * property, read with a service account's key (`runReport`, the `analytics.readonly` scope) and
 * stored as Plausible's are, apart from native data. A month at a time: each month's reports are
 * written whole or not at all, so an import stopped by the API's quota keeps its finished months,
 * and running it again skips the days it holds and goes on where it stopped.
 */
const SCOPE = 'https://www.googleapis.com/auth/analytics.readonly';
/** rows per request (the API allows 250,000; smaller pages keep each answer's memory small) */
const PAGE = 100_000;
/** tries of one request the API answers 429 or 5xx, waiting longer each time */
const TRIES = 5;

const VISIT_METRICS = [
  'totalUsers',
  'sessions',
  'screenPageViews',
  'engagedSessions',
  'averageSessionDuration',
];

type Values = Record<string, string>;
interface Report {
  dimensions: string[];
  metrics: string[];
  rows: (v: Values, day: string) => { day?: ImportedDay; rows?: ImportedRow[] };
}

const num = (s: string | undefined) => {
  const n = Number(s);
  return Number.isFinite(n) && n > 0 ? n : 0;
};
const NONE = new Set(['', '(not set)', '(none)', '(direct)', '(organic)', '(referral)', '(other)']);
const text = (s: string | undefined) => (s === undefined || NONE.has(s.trim()) ? null : s.trim());
/** GA4's visit metrics as Footfall's sums: a bounce is a session GA4 did not call engaged */
const visit = (v: Values, day: string): ImportedDay & { events: number } => {
  const sessions = num(v['sessions']);
  return {
    day,
    visitors: num(v['totalUsers']),
    visits: sessions,
    pageviews: num(v['screenPageViews']),
    bounces: Math.max(0, sessions - num(v['engagedSessions'])),
    duration: Math.round(num(v['averageSessionDuration']) * sessions),
    events: 0,
  };
};
const one = (dimension: ImportedRow['dimension'], value: string | null) => (v: Values, day: string) => ({
  rows: [{ ...visit(v, day), dimension, value }],
});
const SYSTEMS: Record<string, string> = { Macintosh: 'macOS', 'Chrome OS': 'ChromeOS' };
const DEVICES = new Set(['desktop', 'mobile', 'tablet']);
/** Events GA4 records by itself (automatically or by enhanced measurement): not custom events. */
const AUTOMATIC = new Set([
  'page_view',
  'session_start',
  'first_visit',
  'user_engagement',
  'scroll',
  'click',
  'view_search_results',
  'file_download',
  'form_start',
  'form_submit',
  'video_start',
  'video_progress',
  'video_complete',
  'first_open',
  'screen_view',
  'app_remove',
]);
/** mediums of the unpaid, untagged traffic GA4 names itself: not a campaign's utm_medium */
const UNTAGGED = new Set(['organic', 'referral', '(none)', '(not set)']);

const REPORTS: Report[] = [
  { dimensions: ['date'], metrics: VISIT_METRICS, rows: (v, day) => ({ day: visit(v, day) }) },
  {
    dimensions: ['date', 'sessionSource', 'sessionMedium'],
    metrics: VISIT_METRICS,
    rows: (v, day) => {
      const source = text(v['sessionSource']);
      const medium = v['sessionMedium'] ?? '';
      const tagged = !UNTAGGED.has(medium);
      const host = source?.includes('.') ? source.toLowerCase() : null;
      const { channel } = classifyChannel({
        referrerHost: tagged ? null : host,
        utmSource: source,
        utmMedium: tagged ? medium : medium === 'organic' ? 'organic' : null,
        clickId: null,
      });
      const totals = visit(v, day);
      return {
        rows: [
          { ...totals, dimension: 'channel', value: channel },
          // GA4 names a source (`google`, `news.ycombinator.com`): it stands for the referrer
          { ...totals, dimension: 'referrer', value: source },
          { ...totals, dimension: 'source', value: tagged ? source : null },
          { ...totals, dimension: 'medium', value: tagged ? text(medium) : null },
        ],
      };
    },
  },
  {
    dimensions: ['date', 'sessionCampaignName'],
    metrics: VISIT_METRICS,
    rows: (v, day) => one('campaign', text(v['sessionCampaignName']))(v, day),
  },
  {
    dimensions: ['date', 'pagePath'],
    metrics: ['totalUsers', 'sessions', 'screenPageViews'],
    rows: (v, day) => {
      const page = text(v['pagePath']);
      return page === null
        ? {}
        : { rows: [{ ...visit(v, day), bounces: 0, duration: 0, dimension: 'pages', value: page }] };
    },
  },
  {
    dimensions: ['date', 'landingPage'],
    metrics: VISIT_METRICS,
    rows: (v, day) => one('entry_page', text(v['landingPage']))(v, day),
  },
  {
    dimensions: ['date', 'countryId'],
    metrics: VISIT_METRICS,
    rows: (v, day) => {
      const c = text(v['countryId']);
      return one('country', c !== null && /^[A-Z]{2}$/.test(c) ? c : null)(v, day);
    },
  },
  {
    dimensions: ['date', 'deviceCategory'],
    metrics: VISIT_METRICS,
    rows: (v, day) => {
      const d = (v['deviceCategory'] ?? '').toLowerCase();
      return one('device', DEVICES.has(d) ? d : null)(v, day);
    },
  },
  {
    dimensions: ['date', 'browser'],
    metrics: VISIT_METRICS,
    rows: (v, day) => one('browser', text(v['browser']))(v, day),
  },
  {
    dimensions: ['date', 'operatingSystem'],
    metrics: VISIT_METRICS,
    rows: (v, day) => {
      const os = text(v['operatingSystem']);
      return one('os', os === null ? null : (SYSTEMS[os] ?? os))(v, day);
    },
  },
  {
    dimensions: ['date', 'eventName'],
    metrics: ['totalUsers', 'eventCount'],
    rows: (v, day) => {
      const name = text(v['eventName']);
      if (name === null || AUTOMATIC.has(name)) return {};
      const visitors = num(v['totalUsers']);
      // GA4 gives no visits of an event here: its visitors stand for them, as Plausible's do
      return {
        rows: [
          {
            day,
            visitors,
            visits: visitors,
            pageviews: 0,
            bounces: 0,
            duration: 0,
            events: num(v['eventCount']),
            dimension: 'events',
            value: name,
          },
        ],
      };
    },
  },
];

interface RunReportAnswer {
  dimensionHeaders?: { name: string }[];
  metricHeaders?: { name: string }[];
  rows?: { dimensionValues?: { value?: string }[]; metricValues?: { value?: string }[] }[];
  rowCount?: number;
}

/** A GA4 property id: `123456789` or `properties/123456789`. */
export function ga4Property(raw: string): string {
  const m = /^(?:properties\/)?(\d{1,20})$/.exec(raw.trim());
  if (!m)
    throw new AppError('invalid_parameter', 'property must be a GA4 property id such as 123456789', {
      field: 'property',
    });
  return m[1] as string;
}

/** One runReport call, tried again after a 429 or a 5xx (waiting as told, else longer each time). */
async function runReport(
  api: GoogleApi,
  token: string,
  property: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<RunReportAnswer> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    const res = await call(`${api.analyticsUrl}/properties/${property}:runReport`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.ok) return (await res.json()) as RunReportAnswer;
    const why = await googleError(res);
    if (res.status === 403 || res.status === 404) {
      throw new AppError(
        'provider_permission_missing',
        `Google Analytics refused property ${property} (${why}): add the service account as a Viewer of the property`,
        { field: 'property', permission: `Viewer of GA4 property ${property}` },
      );
    }
    if (res.status === 401) {
      throw new AppError('provider_key_rejected', `Google Analytics did not accept the key: ${why}`, {
        field: 'service_account_key',
      });
    }
    // a day's tokens used up is not worth waiting for: the finished months stay, run it again tomorrow
    const daily = res.status === 429 && /per day|tokensPerDay|daily/i.test(why);
    if (daily || (res.status !== 429 && res.status < 500) || attempt >= TRIES) {
      throw new AppError('provider_unreachable', `Google Analytics answered ${why}`, { retryAfter: 3600 });
    }
    const told = Number(res.headers.get('retry-after'));
    await sleep(
      Number.isFinite(told) && told > 0 ? Math.min(told, 60) * 1000 : 2 ** attempt * 500,
      undefined,
      { signal },
    );
  }
}

/** Every row of one report over one range, page by page. */
async function* reportRows(
  api: GoogleApi,
  token: string,
  property: string,
  report: Report,
  range: { from: string; to: string },
  signal?: AbortSignal,
): AsyncGenerator<Values> {
  for (let offset = 0; ; ) {
    const answer = await runReport(
      api,
      token,
      property,
      {
        dateRanges: [{ startDate: range.from, endDate: range.to }],
        dimensions: report.dimensions.map((name) => ({ name })),
        metrics: report.metrics.map((name) => ({ name })),
        limit: PAGE,
        offset,
        keepEmptyRows: false,
      },
      signal,
    );
    const dims = (answer.dimensionHeaders ?? []).map((h) => h.name);
    const mets = (answer.metricHeaders ?? []).map((h) => h.name);
    const rows = answer.rows ?? [];
    for (const r of rows) {
      const v: Values = {};
      dims.forEach((name, i) => {
        v[name] = r.dimensionValues?.[i]?.value ?? '';
      });
      mets.forEach((name, i) => {
        v[name] = r.metricValues?.[i]?.value ?? '';
      });
      yield v;
    }
    // the API may answer fewer rows than asked: the next page starts after the last one read
    offset += rows.length;
    if (rows.length === 0 || offset >= (answer.rowCount ?? 0)) return;
  }
}

/** The months of a range, each clipped to it. */
function months(from: string, to: string): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  let start = from;
  while (start <= to) {
    const d = new Date(`${start.slice(0, 8)}01T00:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() + 1);
    d.setUTCDate(0);
    const end = d.toISOString().slice(0, 10);
    out.push({ from: start, to: end < to ? end : to });
    d.setUTCDate(d.getUTCDate() + 1);
    start = d.toISOString().slice(0, 10);
  }
  return out;
}

const SKIP_NATIVE = 'the site has its own data from that day';
const SKIP_IMPORTED = 'that day is already imported';
const SKIP_QUOTA = 'not imported yet: run the same import again to go on';

/**
 * Imports a property's days `from`..`to` into the site, a month at a time. Days before the site's
 * first native day are kept (through `through` when given), days an earlier import holds skipped.
 * When the API stops it (its quota), the months finished are kept and the summary says so; an
 * error before any month finished leaves nothing.
 */
export async function importGa4(o: {
  control: ControlDb;
  siteId: string;
  api: GoogleApi;
  key: ServiceAccountKey;
  property: string;
  from: string;
  to: string;
  personId: string | null;
  firstNativeDay: string | null;
  through?: string | undefined;
  held: Set<string>;
  now: number;
  progress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
}): Promise<ImportSummary> {
  const property = ga4Property(o.property);
  const token = await accessToken(o.api, o.key, o.now, SCOPE);
  const id = beginImport(o.control, {
    siteId: o.siteId,
    source: 'ga4',
    name: `GA4 property ${property}`,
    personId: o.personId,
  });
  const keep = keepsDay(o);
  const skipped: Record<string, number> = {};
  const skip = (reason: string) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  let rowsRead = 0;
  let monthsDone = 0;
  try {
    for (const month of months(o.from, o.to)) {
      try {
        for (const report of REPORTS) {
          let days: ImportedDay[] = [];
          let rows: ImportedRow[] = [];
          for await (const v of reportRows(o.api, token, property, report, month, o.signal)) {
            rowsRead++;
            const raw = v['date'] ?? '';
            const day = `${raw.slice(0, 4)}-${raw.slice(4, 6)}-${raw.slice(6, 8)}`;
            if (!keep(day)) skip(SKIP_NATIVE);
            else if (o.held.has(day)) skip(SKIP_IMPORTED);
            else {
              const mapped = report.rows(v, day);
              if (mapped.day) days.push(mapped.day);
              if (mapped.rows) rows.push(...mapped.rows);
            }
            if (days.length + rows.length >= 5000) {
              addImported(o.control, id, days, rows);
              days = [];
              rows = [];
            }
          }
          addImported(o.control, id, days, rows);
          o.progress?.({ file: `${month.from.slice(0, 7)} ${report.dimensions.at(-1)}`, rowsRead });
        }
        monthsDone++;
      } catch (error) {
        // the month is written whole or not at all
        removeImportedFrom(o.control, id, month.from);
        if (monthsDone === 0 || !(error instanceof AppError) || error.code !== 'provider_unreachable')
          throw error;
        skipped[`${SKIP_QUOTA} (${error.message})`] = 1;
        break;
      }
    }
    const done = finishImport(o.control, id, { rowsRead, skipped });
    const kept = o.control.raw
      .prepare('SELECT COUNT(*) FROM imported_days WHERE import_id = ?')
      .pluck()
      .get(id);
    return { import: done, events: 0, files: [], ignored: [], rowsRead, days: Number(kept), skipped };
  } catch (error) {
    removeImport(o.control, id);
    throw error;
  }
}
