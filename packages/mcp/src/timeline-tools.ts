import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolKit } from './ai-goal-tools.ts';
import { period } from './inputs.ts';

interface MomentsAnswer {
  period: { from: string; to: string };
  bucket: 'day' | 'hour';
  buckets: {
    bucket: string;
    visitors: number;
    visits: number;
    top: Record<string, { value: string } | null>;
  }[];
  moments: { bucket: string; kind: string; value: string | null; count: number }[];
}

const MOMENT_WORDS: Record<string, (m: MomentsAnswer['moments'][number]) => string> = {
  peak: (m) => `busiest ${m.bucket} (${m.count} visitors)`,
  spike: (m) => `a spike on ${m.bucket} (${m.count} visitors)`,
  first_referrer: (m) => `first visits from ${m.value} on ${m.bucket} (${m.count})`,
  first_country: (m) => `first visitor from ${m.value} on ${m.bucket}`,
  first_campaign: (m) => `campaign ${m.value} began on ${m.bucket}`,
};

/**
 * The tools about what happened when: `get_moments` (a period replayed by day or hour) and
 * `get_milestones` (what the site reached), each reading its `/api/v1` route with the caller's key.
 */
export function registerTimelineTools(server: McpServer, kit: ToolKit): void {
  const { get, siteBase, periodQuery, answer } = kit;
  server.registerTool(
    'get_moments',
    {
      title: 'What happened',
      description:
        'A period replayed, for "what happened last month?": per day (or hour) the visitors, visits and busiest channel, referrer, entry page and country, and the moments: the busiest day, spikes above the usual, and the first visits ever from a referrer, a country or a campaign. Aggregates only.',
      inputSchema: {
        ...period,
        bucket: z.enum(['day', 'hour']).optional().describe('day (default) or hour (31 days at most)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const { query, site: s } = await periodQuery(input);
        query.set('bucket', input.bucket ?? 'day');
        const r = (await get(`${siteBase(input.site)}/moments`, query)) as MomentsAnswer;
        const data = {
          site: s.domain,
          period: r.period,
          bucket: r.bucket,
          moments: r.moments,
          buckets: r.buckets.filter((b) => b.visits > 0),
        };
        const summary =
          r.moments.length === 0
            ? `${s.domain}, ${r.period.from} to ${r.period.to}: nothing stood out.`
            : `${s.domain}, ${r.period.from} to ${r.period.to}: ${r.moments
                .slice(0, 8)
                .map((m) => MOMENT_WORDS[m.kind]?.(m) ?? m.kind)
                .join('; ')}${r.moments.length > 8 ? `; and ${r.moments.length - 8} more` : ''}.`;
        return { summary, data };
      }),
  );

  server.registerTool(
    'get_milestones',
    {
      title: 'Milestones',
      description:
        "What the site has reached, newest first: round numbers of lifetime visitors, pageviews, countries and revenue, record days, its first goal and first sale, each with the day it was reached (checked once per finished day in the site's time zone).",
      inputSchema: { site: period.site },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const r = (await get(`${siteBase(input.site)}/milestones`, new URLSearchParams())) as {
          checked_day: string | null;
          milestones: { kind: string; step: string; value: number; day: string; title: string }[];
        };
        const milestones = r.milestones.map(({ kind, step, value, day, title }) => ({
          kind,
          step,
          value,
          day,
          title,
        }));
        const summary =
          milestones.length === 0
            ? `No milestone reached yet${r.checked_day ? ` (last checked ${r.checked_day})` : ''}.`
            : milestones
                .slice(0, 5)
                .map((m) => `${m.title} (${m.day})`)
                .join('; ');
        return { summary, data: { checked_day: r.checked_day, milestones } };
      }),
  );
}
