import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { registerAiAndGoalTools } from './ai-goal-tools.ts';
import { type ApiGet, type ApiImage, FootfallApiError } from './api.ts';
import { registerCardTool } from './card-tool.ts';
import { DIMENSIONS_DOC } from './dimensions.ts';
import { type PeriodInput, period } from './inputs.ts';
import {
  type AllSitesReport,
  allSitesSummary,
  type Kpis,
  type Report,
  type Row,
  reportSummary,
  revenueSummary,
  rowsSummary,
  type Site,
  timeseriesSummary,
} from './summaries.ts';
import { registerTimelineTools } from './timeline-tools.ts';

/** The breakdowns of the report; the deep ones need `deep=1`. */
export const BREAKDOWNS = [
  'channel',
  'referrer',
  'entry_page',
  'campaign',
  'source',
  'medium',
  'country',
  'device',
  'browser',
  'os',
  'language',
  'pages',
  'events',
  'exit_page',
  'term',
  'content',
  'region',
  'city',
] as const;
/** What `get_breakdown` can break down: the report's breakdowns and the pages' hosts. */
const ONE_BREAKDOWN = [...BREAKDOWNS, 'hostname'] as const;
const DEEP = new Set(['exit_page', 'term', 'content', 'region', 'city']);
/** What `get_report` answers when no breakdown is named: the ones people ask about first. */
const DEFAULT_BREAKDOWNS = ['channel', 'referrer', 'pages', 'country', 'device'];
/** The visit dimensions that carry revenue, for `get_revenue`. */
const REVENUE_DIMENSIONS = ['channel', 'referrer', 'campaign', 'entry_page'] as const;

const compare = z
  .enum(['previous', 'year'])
  .optional()
  .describe('compare with the period before (same length) or a year earlier');
const attribution = z
  .enum(['last', 'first'])
  .optional()
  .describe('which visit earns a sale: last (the last non-direct visit within 90 days, default) or first');

/** The day `days - 1` before today, and today, in a time zone. */
function lastDays(days: number, timeZone: string, now = new Date()): { from: string; to: string } {
  const day = (t: Date) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(t);
  const to = day(now);
  const start = new Date(`${to}T12:00:00Z`);
  start.setUTCDate(start.getUTCDate() - (days - 1));
  return { from: start.toISOString().slice(0, 10), to };
}

/**
 * The read-only MCP server: tools and resources over Footfall's own API, called with the caller's
 * credential. Every tool answers compact JSON (as structured content and as text) after a short
 * summary in words. Nothing here writes.
 */
export function createFootfallMcpServer(get: ApiGet, version: string): McpServer {
  const server = new McpServer(
    { name: 'footfall', title: 'Footfall web analytics', version },
    {
      instructions:
        'Footfall is a self-hosted web analytics service. Start with list_sites to find a site id. ' +
        "Periods are days in the site's time zone (from/to, or the last N days); numbers are exact. " +
        'Rates are fractions 0..1, durations seconds, money integer minor units of the site currency.',
    },
  );

  const site = async (id: string): Promise<Site> =>
    ((await get(`/api/v1/sites/${encodeURIComponent(id)}`)) as { site: Site }).site;
  const siteBase = (id: string) => `/api/v1/sites/${encodeURIComponent(id)}`;

  /** The query of a period: from/to as given, else the last `days` (30) in the site's zone. */
  async function periodQuery(input: PeriodInput): Promise<{ query: URLSearchParams; site: Site }> {
    const s = await site(input.site);
    const query = new URLSearchParams();
    if (input.from || input.to) {
      if (input.from) query.set('from', input.from);
      if (input.to) query.set('to', input.to);
    } else {
      const { from, to } = lastDays(input.days ?? 30, s.timezone);
      query.set('from', from);
      query.set('to', to);
    }
    if (input.segment !== undefined) {
      for (const f of await segmentFilters(input.site, input.segment)) query.append('f', f);
    }
    for (const f of input.filters ?? []) query.append('f', f);
    return { query, site: s };
  }

  /** A saved segment's filters by its name (any case), from the segments the key may read. */
  async function segmentFilters(siteId: string, name: string): Promise<string[]> {
    const { segments } = (await get(`${siteBase(siteId)}/segments`)) as {
      segments: { name: string; filters: string[] }[];
    };
    const found = segments.find((x) => x.name.toLowerCase() === name.trim().toLowerCase());
    if (found) return found.filters;
    const names = segments.map((x) => `"${x.name}"`).join(', ');
    throw new FootfallApiError(
      404,
      'not_found',
      `no segment named "${name}" on this site; ${names ? `its segments are ${names}` : 'it has no shared segment'}`,
    );
  }

  /**
   * A tool's answer: the summary, then the JSON (and an image the tool drew, after them); an API
   * refusal as a tool error in its words.
   */
  const answer = async (
    run: () => Promise<{ summary: string; data: Record<string, unknown>; image?: ApiImage }>,
  ): Promise<CallToolResult> => {
    try {
      const { summary, data, image } = await run();
      return {
        content: [
          { type: 'text', text: summary },
          { type: 'text', text: JSON.stringify(data) },
          ...(image ? [{ type: 'image' as const, data: image.data, mimeType: image.mimeType }] : []),
        ],
        structuredContent: data,
      };
    } catch (error) {
      if (!(error instanceof FootfallApiError)) throw error;
      return {
        isError: true,
        content: [
          { type: 'text', text: `Footfall refused (${error.status} ${error.code}): ${error.message}` },
        ],
      };
    }
  };

  const listSites = async () => {
    const { sites } = (await get('/api/v1/sites')) as { sites: Site[] };
    return sites.map((s) => ({ id: s.id, domain: s.domain, timezone: s.timezone, currency: s.currency }));
  };

  server.registerTool(
    'list_sites',
    {
      title: 'List sites',
      description:
        'The sites this key may read: id, domain, time zone and currency. Use the id in the other tools.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      answer(async () => {
        const sites = await listSites();
        const summary =
          sites.length === 0
            ? 'No site is visible to this key.'
            : `${sites.length} site${sites.length === 1 ? '' : 's'}: ${sites.map((s) => `${s.domain} (${s.id})`).join(', ')}.`;
        return { summary, data: { sites } };
      }),
  );

  server.registerTool(
    'get_report',
    {
      title: 'Traffic report',
      description:
        'Visitors, visits, pageviews, views per visit, bounce rate and visit duration of a period, optionally compared, with the top rows of chosen breakdowns (default: channel, referrer, pages, country, device). Filters narrow everything to matching visits. Revenue figures appear when the site has a payment connection.',
      inputSchema: {
        ...period,
        compare,
        breakdowns: z
          .array(z.enum(BREAKDOWNS))
          .max(BREAKDOWNS.length)
          .optional()
          .describe('which breakdowns to include'),
        limit: z.number().int().min(1).max(100).optional().describe('rows per breakdown, default 10'),
        attribution,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        const wanted = input.breakdowns ?? DEFAULT_BREAKDOWNS;
        if (input.compare) query.set('compare', input.compare);
        if (wanted.some((b) => DEEP.has(b))) query.set('deep', '1');
        query.set('limit', String(input.limit ?? 10));
        if (input.attribution) query.set('attr', input.attribution);
        const report = (await get(`${siteBase(input.site)}/report`, query)) as Report;
        const breakdowns: Record<string, Row[]> = {};
        for (const b of wanted) breakdowns[b] = report.breakdowns[b] ?? [];
        const data = {
          site: s.domain,
          period: report.period,
          compare: report.compare,
          kpis: report.kpis,
          compare_kpis: report.compare_kpis,
          breakdowns,
          revenue: report.revenue,
        };
        return { summary: reportSummary(s, report, breakdowns), data };
      }),
  );

  server.registerTool(
    'get_all_sites_report',
    {
      title: 'Every site at once',
      description:
        'The report of several sites together (all this key may read unless `sites` names some): summed visitors, visits and pageviews, bounce rate and duration weighted by visits, each site with its share of the visitors and its change, and the top rows of chosen breakdowns added across sites (pages stay one row per site). Each site counts its own days in its own time zone. No revenue: ask get_report per site.',
      inputSchema: {
        sites: z
          .array(z.string().min(1).max(100))
          .min(1)
          .max(200)
          .optional()
          .describe('site ids (from list_sites); default all'),
        period: z
          .enum(['today', 'yesterday', '7d', '28d', '30d', '91d', 'month', 'lastmonth', 'year', '12mo'])
          .optional()
          .describe(
            'a named period in each site’s time zone: 7d is the last 7 days, month this month so far; default 30d',
          ),
        compare,
        filters: period.filters,
        breakdowns: z
          .array(z.enum(BREAKDOWNS))
          .max(BREAKDOWNS.length)
          .optional()
          .describe('which breakdowns to include (default channel, referrer, pages, country, device)'),
        limit: z.number().int().min(1).max(100).optional().describe('rows per breakdown, default 10'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const query = new URLSearchParams({
          period: input.period ?? '30d',
          limit: String(input.limit ?? 10),
        });
        if (input.sites) query.set('sites', input.sites.join(','));
        if (input.compare) query.set('compare', input.compare);
        for (const f of input.filters ?? []) query.append('f', f);
        const wanted = input.breakdowns ?? DEFAULT_BREAKDOWNS;
        if (wanted.some((b) => DEEP.has(b))) query.set('deep', '1');
        query.set('breakdowns', wanted.join(','));
        const report = (await get('/api/v1/report', query)) as AllSitesReport;
        const breakdowns: Record<string, Row[]> = {};
        for (const b of wanted) breakdowns[b] = report.breakdowns[b] ?? [];
        const data = {
          period: report.period,
          compare: report.compare,
          time_zones: report.time_zones,
          kpis: report.kpis,
          compare_kpis: report.compare_kpis,
          sites: report.sites,
          breakdowns,
        };
        return { summary: allSitesSummary(report, breakdowns), data };
      }),
  );

  server.registerTool(
    'get_breakdown',
    {
      title: 'One breakdown',
      description:
        'One breakdown in full (up to 1000 rows), e.g. every referrer or every page of a period, ordered by visitors, with an optional search within its values.',
      inputSchema: {
        ...period,
        dimension: z.enum(ONE_BREAKDOWN).describe('the breakdown (hostname: the hosts of the pages viewed)'),
        limit: z.number().int().min(1).max(1000).optional().describe('rows, default 100'),
        search: z.string().min(1).max(200).optional().describe('keep values containing this (any case)'),
        attribution,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        query.set('dim', input.dimension);
        query.set('limit', String(input.limit ?? 100));
        if (input.search) query.set('search', input.search);
        if (input.attribution) query.set('attr', input.attribution);
        const b = (await get(`${siteBase(input.site)}/report/breakdown`, query)) as {
          dimension: string;
          period: { from: string; to: string };
          kpis: Kpis;
          rows: Row[];
        };
        const { rows } = b;
        const data = { site: s.domain, dimension: b.dimension, period: b.period, kpis: b.kpis, rows };
        return { summary: rowsSummary(s, b.dimension, b.period, rows), data };
      }),
  );

  server.registerTool(
    'get_timeseries',
    {
      title: 'Traffic over time',
      description:
        'Visitors, visits, pageviews and bounce rate per hour, day, week or month of a period (revenue too with a payment connection), optionally with the compared period.',
      inputSchema: {
        ...period,
        compare,
        bucket: z
          .enum(['hour', 'day', 'week', 'month'])
          .optional()
          .describe('default: hour up to 2 days, day up to 92, week up to 366, month beyond'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        if (input.compare) query.set('compare', input.compare);
        if (input.bucket) query.set('bucket', input.bucket);
        query.set('limit', '1');
        const report = (await get(`${siteBase(input.site)}/report`, query)) as Report;
        const point = (p: Record<string, unknown>) => {
          const { start: _start, ...rest } = p;
          return rest;
        };
        const data = {
          site: s.domain,
          period: report.period,
          bucket: report.bucket,
          points: report.chart.map(point),
          compare: report.compare,
          compare_points: report.compare_chart?.map(point) ?? null,
        };
        return { summary: timeseriesSummary(s, report), data };
      }),
  );

  server.registerTool(
    'get_live',
    {
      title: 'Right now',
      description:
        'Who is on the site now: visitors in the last 5 and 30 minutes, pageviews in the last 30 minutes, and the pages, referrers and countries of the people seen (no visitor ids).',
      inputSchema: { site: period.site },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const s = await site(input.site);
        const now = (await get(`${siteBase(input.site)}/now`, new URLSearchParams({ limit: '200' }))) as {
          visitors_5m: number;
          visitors_30m: number;
          pageviews_30m: number;
          recent: { kind: string; path: string | null; referrer: string | null; country: string | null }[];
          more?: number;
        };
        const count = (pick: (r: (typeof now.recent)[number]) => string | null) => {
          const counts = new Map<string, number>();
          for (const r of now.recent) {
            const v = pick(r) ?? '(none)';
            counts.set(v, (counts.get(v) ?? 0) + 1);
          }
          return [...counts]
            .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
            .slice(0, 10)
            .map(([value, people]) => ({ value, people }));
        };
        const data = {
          site: s.domain,
          visitors_5m: now.visitors_5m,
          visitors_30m: now.visitors_30m,
          pageviews_30m: now.pageviews_30m,
          pages: count((r) => r.path),
          referrers: count((r) => r.referrer),
          countries: count((r) => r.country),
        };
        const top = data.pages[0];
        const summary = `${s.domain} right now: ${now.visitors_5m} visitor${now.visitors_5m === 1 ? '' : 's'} in the last 5 minutes, ${now.visitors_30m} in the last 30 (${now.pageviews_30m} pageviews)${top ? `; most on ${top.value}` : ''}.`;
        return { summary, data };
      }),
  );

  server.registerTool(
    'get_revenue',
    {
      title: 'Revenue and attribution',
      description:
        'Revenue of a period from the payment providers (net of refunds and lost disputes), customers and revenue per visitor, and which channels, referrers, campaigns and entry pages earned it (each sale credited to one visit). Money in integer minor units of the site currency.',
      inputSchema: {
        ...period,
        compare,
        attribution,
        test_payments: z.boolean().optional().describe('show test and sandbox payments instead of live ones'),
        limit: z.number().int().min(1).max(100).optional().describe('rows per dimension, default 10'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        if (input.attribution) query.set('attr', input.attribution);
        if (input.test_payments) query.set('payments', 'test');
        const reportQuery = new URLSearchParams(query);
        if (input.compare) reportQuery.set('compare', input.compare);
        reportQuery.set('limit', '1');
        const report = (await get(`${siteBase(input.site)}/report`, reportQuery)) as Report;
        if (!report.revenue) {
          const data = { site: s.domain, period: report.period, revenue: null };
          return {
            summary: `Footfall shows no revenue for ${s.domain}: it has no payment connection, or its revenue module is off.`,
            data,
          };
        }
        const by: Record<string, Row[]> = {};
        await Promise.all(
          REVENUE_DIMENSIONS.map(async (dim) => {
            const q = new URLSearchParams(query);
            q.set('dim', dim);
            q.set('limit', '1000');
            const b = (await get(`${siteBase(input.site)}/report/breakdown`, q)) as { rows: Row[] };
            by[dim] = b.rows
              .filter((r) => typeof r.revenue === 'number' && r.revenue !== 0)
              .sort((a, b) => Number(b.revenue) - Number(a.revenue))
              .slice(0, input.limit ?? 10)
              .map((r) => ({
                value: r.value,
                revenue: r.revenue,
                customers: r.customers,
                visitors: r.visitors,
              }));
          }),
        );
        const pick = (k: Kpis | null | undefined) =>
          k
            ? {
                revenue: k.revenue,
                customers: k.customers,
                revenue_per_visitor: k.revenue_per_visitor,
                visitors: k.visitors,
              }
            : null;
        const data = {
          site: s.domain,
          period: report.period,
          compare: report.compare,
          revenue: report.revenue,
          kpis: pick(report.kpis),
          compare_kpis: pick(report.compare_kpis),
          by,
        };
        return { summary: revenueSummary(s, report, by), data };
      }),
  );

  const kit = { get, site, siteBase, periodQuery, answer };
  registerAiAndGoalTools(server, kit);
  registerTimelineTools(server, kit);
  registerCardTool(server, kit);

  server.registerResource(
    'sites',
    'footfall://sites',
    { title: 'Sites', description: 'The sites this key may read', mimeType: 'application/json' },
    async (uri) => ({
      contents: [
        { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ sites: await listSites() }) },
      ],
    }),
  );
  server.registerResource(
    'dimensions',
    'footfall://docs/dimensions',
    {
      title: 'Dimensions, filters and metrics',
      description: 'What each breakdown, filter and number of the report means',
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: DIMENSIONS_DOC }] }),
  );
  return server;
}
