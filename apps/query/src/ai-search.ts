import type { Engine, Filter, Period } from './engine/index.ts';

/** The channel of visits an AI assistant sent (apps/ingest/src/enrich/channels.ts). */
export const AI_CHANNEL = 'AI Assistant';
/** A page read this often by AI crawlers that no assistant sent a visitor to is "no credit". */
export const NO_CREDIT_READS = 10;
/** A page with this many search-engine clicks that no AI robot read is "not read". */
export const NOT_READ_CLICKS = 5;
/** Rows of each list. */
const LIMIT = 100;

export type AiPageFlag = 'no_credit' | 'not_read';

/**
 * The AI & search report of a period (spec, "AI and search report"): the visitors AI assistants
 * sent (every filter applies, as to any visit) with the assistants and referrers they came from;
 * the AI robots that read the site; and per page `read` (AI crawler reads: assistants fetching a
 * page for a person, and training crawlers), `sent` (visitors whose first page it was, sent by an
 * assistant) and `flag`:
 * - `no_credit`: read at least NO_CREDIT_READS times and no visitor sent;
 * - `not_read`: at least NOT_READ_CLICKS search-engine clicks in the period (Google Search Console,
 *   when the site is connected) and no AI crawler read, shown only once any robot has ever been
 *   reported for the site (before that, "not read" would say nothing).
 * Only a page filter narrows the crawler counts; other filters describe visits, which robots do
 * not make.
 */
export async function aiSearchReport(
  engine: Engine,
  q: { site: string; timeZone: string; period: Period; filters: readonly Filter[]; signal?: AbortSignal },
  /** the site's Search Console connection and its clicks per page in the period; null without one */
  search: { property: string; syncedAt: number | null; clicks: Map<string, number> } | null = null,
) {
  const { from, to } = q.period;
  const page = q.filters.find((f) => f.dim === 'page')?.value ?? undefined;
  const crawl = { site: q.site, from, to, ...(page === undefined ? {} : { path: page }) };
  const params = {
    period: q.period,
    compare: null,
    bucket: 'day' as const,
    filters: [...q.filters, { dim: 'channel' as const, value: AI_CHANNEL }],
    daily: false,
    deep: false,
    limit: LIMIT,
  };
  const visits = (name: 'referrer' | 'entry_page', limit = LIMIT) =>
    engine.breakdown({
      site: q.site,
      timeZone: q.timeZone,
      params: { ...params, limit },
      name,
      signal: q.signal,
    });
  const [assistants, referrers, entries, robots, read, everReported] = await Promise.all([
    engine.assistants({
      site: q.site,
      timeZone: q.timeZone,
      period: q.period,
      filters: params.filters,
      limit: LIMIT,
      signal: q.signal,
    }),
    visits('referrer'),
    visits('entry_page', 1000),
    engine.crawlCounters({ ...crawl, groupBy: ['robot', 'robotKind'], limit: LIMIT }),
    engine.crawlCounters({ ...crawl, groupBy: ['path', 'robotKind'], limit: 20_000 }),
    search === null
      ? Promise.resolve([])
      : engine.crawlCounters({ site: q.site, from: '1970-01-01', to, groupBy: ['robotKind'], limit: 1 }),
  ]);
  const isAi = (kind: string | undefined) => kind === 'ai_assistant' || kind === 'ai_training';

  const pages = new Map<string, { read: number; sent: number; clicks: number }>();
  const row = (path: string) => {
    let r = pages.get(path);
    if (r === undefined) {
      r = { read: 0, sent: 0, clicks: 0 };
      pages.set(path, r);
    }
    return r;
  };
  for (const r of read) if (isAi(r.robotKind) && r.path) row(r.path).read += r.hits;
  for (const r of entries.rows) if (r.value !== null) row(r.value).sent += r.visitors;
  // with Search Console, a page search engines send people to is a row even when nothing else is
  for (const [path, clicks] of search?.clicks ?? []) {
    if (page !== undefined && path !== page) continue;
    if (clicks >= NOT_READ_CLICKS || pages.has(path)) row(path).clicks += clicks;
  }
  const robotsReported = everReported.length > 0;
  const pageRows = [...pages]
    .map(([path, r]) => ({
      path,
      read: r.read,
      sent: r.sent,
      clicks: search === null ? null : r.clicks,
      flag: (r.read >= NO_CREDIT_READS && r.sent === 0
        ? 'no_credit'
        : robotsReported && r.clicks >= NOT_READ_CLICKS && r.read === 0
          ? 'not_read'
          : null) as AiPageFlag | null,
    }))
    .sort(
      (a, b) =>
        b.read + b.sent - (a.read + a.sent) ||
        (b.clicks ?? 0) - (a.clicks ?? 0) ||
        a.path.localeCompare(b.path),
    )
    .slice(0, LIMIT);
  const named = (rows: typeof referrers.rows) =>
    rows.map((r) => ({ value: r.value, visitors: r.visitors, visits: r.visits }));
  const aiRobots = robots.filter((r) => isAi(r.robotKind));
  return {
    period: q.period,
    page: page ?? null,
    visitors: referrers.kpis.visitors,
    visits: referrers.kpis.visits,
    assistants,
    referrers: named(referrers.rows),
    robots: aiRobots.map((r) => ({
      robot: r.robot!,
      kind: r.robotKind as 'ai_assistant' | 'ai_training',
      hits: r.hits,
    })),
    reads: read.filter((r) => isAi(r.robotKind)).reduce((n, r) => n + r.hits, 0),
    pages: pageRows,
    search_console:
      search === null
        ? null
        : {
            property: search.property,
            synced_at: search.syncedAt === null ? null : new Date(search.syncedAt).toISOString(),
            robots_reported: robotsReported,
          },
  };
}
