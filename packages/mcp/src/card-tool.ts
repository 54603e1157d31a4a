import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolKit } from './ai-goal-tools.ts';
import type { ApiImage } from './api.ts';
import { period } from './inputs.ts';

const WINDOWS = { '24h': 'the last 24 hours', '7d': 'the last 7 days', '30d': 'the last 30 days' } as const;

/**
 * `get_card`: the site's chart card (`GET …/card`), a 1200 × 630 PNG of one number over a rolling
 * window, as MCP image content beside a line saying what it shows: for an assistant to show or
 * post. The numbers themselves are the report tools' job.
 */
export function registerCardTool(server: McpServer, kit: ToolKit): void {
  const { get, site, siteBase, answer } = kit;
  server.registerTool(
    'get_card',
    {
      title: 'Chart card (PNG)',
      description:
        'A 1200 × 630 PNG card of one number of the site (visitors, visits or pageviews) over the last 24 hours, 7 days or 30 days ending now, with its line and the change on the window before, light or dark, for showing or posting. Answers the image with a line saying what it shows; for the numbers themselves use get_report or get_timeseries.',
      inputSchema: {
        site: period.site,
        kind: z
          .enum(['visitors', 'visits', 'pageviews'])
          .optional()
          .describe('the number shown; default visitors'),
        window: z.enum(['24h', '7d', '30d']).optional().describe('the rolling window ending now; default 7d'),
        theme: z.enum(['light', 'dark']).optional().describe('default light'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      answer(async () => {
        const s = await site(input.site);
        const kind = input.kind ?? 'visitors';
        const window = input.window ?? '7d';
        const theme = input.theme ?? 'light';
        const query = new URLSearchParams({ kind, period: window, theme });
        const image = (await get(`${siteBase(input.site)}/card`, query)) as ApiImage;
        return {
          summary: `The card of ${s.domain}: ${kind} of ${WINDOWS[window]}, ${theme}, 1200 × 630 PNG.`,
          data: { site: s.domain, kind, window, theme, width: 1200, height: 630, mime_type: image.mimeType },
          image,
        };
      }),
  );
}
