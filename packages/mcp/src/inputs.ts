import { z } from 'zod';

/** The inputs every report tool takes: the site, its period and filters. */
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
  .describe("YYYY-MM-DD in the site's time zone");
export const period = {
  site: z.string().min(1).max(100).describe('the site id (from list_sites)'),
  from: date.optional().describe("first day, YYYY-MM-DD in the site's time zone (inclusive)"),
  to: date.optional().describe("last day, YYYY-MM-DD in the site's time zone (inclusive)"),
  days: z
    .number()
    .int()
    .min(1)
    .max(1098)
    .optional()
    .describe('the last N days ending today (used when from/to are not given); default 30'),
  filters: z
    .array(z.string().min(3).max(300))
    .max(20)
    .optional()
    .describe(
      'filters "dimension:value", all must hold, e.g. ["channel:Organic Search", "country:DE", "page:/pricing"]; see the footfall://docs/dimensions resource',
    ),
  segment: z
    .string()
    .min(1)
    .max(120)
    .optional()
    .describe(
      'a saved segment\'s name (a named set of filters people shared on the site, e.g. "Paid traffic from Germany"): its filters apply, with `filters` too; an unknown name answers the names there are',
    ),
};

export type PeriodInput = {
  site: string;
  from?: string;
  to?: string;
  days?: number;
  filters?: string[];
  segment?: string;
};
