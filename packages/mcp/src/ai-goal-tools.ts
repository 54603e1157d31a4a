import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiGet, ApiImage } from './api.ts';
import { type PeriodInput, period } from './inputs.ts';
import type { Report, Site } from './summaries.ts';

/** What the tools here share with the rest of the server (server.ts). */
export interface ToolKit {
  get: ApiGet;
  /** the site as the API answers it for the caller (a refusal when they may not read it) */
  site: (id: string) => Promise<Site>;
  siteBase: (id: string) => string;
  periodQuery: (input: PeriodInput) => Promise<{ query: URLSearchParams; site: Site }>;
  answer: (
    run: () => Promise<{ summary: string; data: Record<string, unknown>; image?: ApiImage }>,
  ) => Promise<CallToolResult>;
}

/**
 * The tools about what AI does with a site and what visits convert: `get_ai_robots`,
 * `get_goals`, `get_funnels` and `get_ai_search`, each reading its `/api/v1` route with the
 * caller's key.
 */
export function registerAiAndGoalTools(server: McpServer, kit: ToolKit): void {
  const { get, siteBase, periodQuery, answer } = kit;
  server.registerTool(
    'get_ai_robots',
    {
      title: 'AI and search robots',
      description:
        'Which AI assistants, AI crawlers and search bots read the site in a period, as its server reports them: page reads by class, the robots and the pages they read most, reads per day, and tracker requests dropped as robots. A "page:<path>" filter narrows it to one page; other filters do not apply to robots.',
      inputSchema: period,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        const r = (await get(`${siteBase(input.site)}/report/crawlers`, query)) as {
          period: { from: string; to: string };
          page: string | null;
          totals: { hits: number; by_kind: Record<string, number> };
          robots: { robot: string; kind: string; hits: number }[];
          pages: { path: string; hits: number }[];
          chart: Record<string, unknown>[];
          bots_dropped: { total: number };
        };
        const data = {
          site: s.domain,
          period: r.period,
          page: r.page,
          totals: r.totals,
          robots: r.robots.slice(0, 20),
          pages: r.pages.slice(0, 20),
          chart: r.chart,
          bots_dropped: r.bots_dropped.total,
        };
        const k = r.totals.by_kind;
        const top = r.robots[0];
        const summary =
          r.totals.hits === 0
            ? `${s.domain}: no robot reported from ${r.period.from} to ${r.period.to}.`
            : `${s.domain}, ${r.period.from} to ${r.period.to}: ${r.totals.hits} page reads by robots (AI assistants ${k.ai_assistant ?? 0}, AI crawlers ${k.ai_training ?? 0}, search bots ${k.search ?? 0})${top ? `; most by ${top.robot} (${top.hits})` : ''}${r.pages[0] ? `; most read ${r.pages[0].path}` : ''}.`;
        return { summary, data };
      }),
  );

  server.registerTool(
    'get_goals',
    {
      title: 'Goals and conversions',
      description:
        "The site's goals (a page path or a custom event that counts as a conversion) with, for the period and filters, the visitors who reached each, the visits, the conversions and the conversion rate (visitors / all visitors). With a goal's name, also that goal's events broken down by their properties (which plan, which button...).",
      inputSchema: {
        ...period,
        goal: z
          .string()
          .min(1)
          .max(120)
          .optional()
          .describe("a goal's name: add its breakdown by event properties"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        query.set('limit', '1');
        const report = (await get(`${siteBase(input.site)}/report`, query)) as Report & {
          goals:
            | {
                name: string;
                visitors: number;
                visits: number;
                conversions: number;
                conversion_rate: number;
              }[]
            | null;
        };
        let properties: unknown = null;
        if (input.goal) {
          const q = new URLSearchParams(query);
          q.delete('limit');
          q.set('goal', input.goal);
          properties = (
            (await get(`${siteBase(input.site)}/report/goal-props`, q)) as { properties: unknown }
          ).properties;
        }
        const goals = report.goals ?? [];
        const data = {
          site: s.domain,
          period: report.period,
          visitors: report.kpis.visitors,
          goals,
          properties,
        };
        const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;
        const summary =
          report.goals === null
            ? `${s.domain}: goals are switched off for this site.`
            : goals.length === 0
              ? `${s.domain} has no goals yet.`
              : `${s.domain}, ${report.period.from} to ${report.period.to}: ${goals
                  .map(
                    (g) =>
                      `${g.name} ${g.visitors} visitors (${pct(g.conversion_rate)}), ${g.conversions} conversions`,
                  )
                  .join('; ')}.`;
        return { summary, data };
      }),
  );

  server.registerTool(
    'get_funnels',
    {
      title: 'Funnels',
      description:
        "The site's funnels (ordered steps: pages or custom events) for the period and filters: per step the visitors who reached it, those of the step before who dropped, and the share of step one's visitors still there. A funnel counts its steps within one visit, or across visits within its `within_days`.",
      inputSchema: period,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        const r = (await get(`${siteBase(input.site)}/report/funnels`, query)) as {
          period: { from: string; to: string };
          funnels: {
            name: string;
            within_days: number | null;
            steps: {
              name?: string;
              kind: string;
              match: string;
              visitors: number;
              dropped: number;
              rate: number;
            }[];
          }[];
        };
        const funnels = r.funnels.map((f) => ({
          name: f.name,
          within_days: f.within_days,
          steps: f.steps.map(({ name, kind, match, visitors, dropped, rate }) => ({
            name: name ?? match,
            kind,
            match,
            visitors,
            dropped,
            rate,
          })),
        }));
        const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;
        const summary =
          funnels.length === 0
            ? `${s.domain} has no funnels yet.`
            : `${s.domain}, ${r.period.from} to ${r.period.to}: ${funnels
                .map(
                  (f) =>
                    `${f.name} ${f.steps.map((step) => step.visitors).join(' → ')} visitors (${pct(f.steps.at(-1)?.rate ?? 0)} through)`,
                )
                .join('; ')}.`;
        return { summary, data: { site: s.domain, period: r.period, funnels } };
      }),
  );

  server.registerTool(
    'get_ai_search',
    {
      title: 'AI & search',
      description:
        'What AI assistants do with the site in a period: the visitors they sent and from which assistant, the AI robots that read it, and per page how often AI robots read it against the visitors assistants sent there as first page, and (when the site is connected to Google Search Console) the search-engine clicks it got. A page flagged "no_credit" was read at least 10 times and no visitor was sent to it; "not_read" got at least 5 search clicks and no AI robot read it. Filters apply to the visitors; only a "page:<path>" filter narrows the robot reads.',
      inputSchema: period,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        const r = (await get(`${siteBase(input.site)}/report/ai-search`, query)) as {
          period: { from: string; to: string };
          page: string | null;
          visitors: number;
          visits: number;
          assistants: { value: string | null; visitors: number }[];
          referrers: { value: string | null; visitors: number }[];
          robots: { robot: string; kind: string; hits: number }[];
          reads: number;
          pages: { path: string; read: number; sent: number; clicks: number | null; flag: string | null }[];
          search_console: { property: string; synced_at: string | null; robots_reported: boolean } | null;
        };
        const data = {
          site: s.domain,
          period: r.period,
          page: r.page,
          visitors: r.visitors,
          visits: r.visits,
          assistants: r.assistants.slice(0, 20),
          referrers: r.referrers.slice(0, 20),
          robots: r.robots.slice(0, 20),
          reads: r.reads,
          pages: r.pages.slice(0, 30),
          search_console: r.search_console,
        };
        const noCredit = r.pages.filter((p) => p.flag === 'no_credit');
        const notRead = r.pages.filter((p) => p.flag === 'not_read');
        const list = (pages: typeof r.pages) =>
          pages
            .slice(0, 3)
            .map((p) => p.path)
            .join(', ');
        const top = r.assistants[0];
        const summary = `${s.domain}, ${r.period.from} to ${r.period.to}: AI assistants sent ${r.visitors} visitors${top ? ` (most from ${top.value ?? 'an unknown assistant'}, ${top.visitors})` : ''}; AI robots read pages ${r.reads} times${
          noCredit.length > 0
            ? `; ${noCredit.length} pages read often and never credited with a visitor (${list(noCredit)})`
            : ''
        }${
          notRead.length > 0
            ? `; ${notRead.length} pages with search clicks that no AI robot read (${list(notRead)})`
            : ''
        }${r.search_console === null ? '' : `; search clicks from Search Console (${r.search_console.property})`}.`;
        return { summary, data };
      }),
  );
}
