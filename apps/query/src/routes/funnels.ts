import { createFunnel, deleteFunnel, type Funnel, listFunnels, updateFunnel } from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead, siteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { requireModule } from './modules.ts';

const Step = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.maxLength(500))),
  kind: v.picklist(['page', 'event']),
  match: v.pipe(v.string(), v.maxLength(4000)),
  prop: v.optional(
    v.nullable(
      v.strictObject({
        key: v.pipe(v.string(), v.maxLength(200)),
        value: v.pipe(v.string(), v.maxLength(2000)),
      }),
    ),
  ),
});
const Steps = v.pipe(v.array(Step), v.maxLength(20));
const WithinDays = v.nullable(v.number());
const NewFunnel = v.strictObject({
  name: v.pipe(v.string(), v.maxLength(500)),
  steps: Steps,
  within_days: v.optional(WithinDays),
});
const FunnelPatch = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.maxLength(500))),
  steps: v.optional(Steps),
  within_days: v.optional(WithinDays),
});

/** A funnel as the API answers it. */
export const funnelJson = (f: Funnel) => ({
  id: f.id,
  name: f.name,
  steps: f.steps,
  within_days: f.withinDays,
  created_at: new Date(f.createdAt).toISOString(),
});

/**
 * A funnel with its counts: per step the visitors who reached it in order, how many of the step
 * before did not (`dropped`), and the share of step one's visitors who got this far (`rate`, 0..1).
 */
export function funnelReport(f: Funnel, counts: readonly number[]) {
  const first = counts[0] ?? 0;
  return {
    ...funnelJson(f),
    steps: f.steps.map((s, i) => {
      const visitors = counts[i] ?? 0;
      return {
        ...s,
        visitors,
        dropped: i === 0 ? 0 : (counts[i - 1] ?? 0) - visitors,
        rate: first === 0 ? 0 : Math.round((visitors / first) * 10_000) / 10_000,
      };
    }),
  };
}

/**
 * A site's funnels (packages/control/src/funnels.ts): anyone who reads the site reads them, owners
 * create, change and delete them; `…/report/funnels` counts them.
 */
export function funnelRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  const input = (body: v.InferOutput<typeof FunnelPatch>) => ({
    name: body.name,
    steps: body.steps,
    withinDays: body.within_days,
  });
  return new Hono<AuthEnv>()
    .get('/sites/:site/funnels', siteRead(), async (c) => {
      requireModule(c.get('site'), 'funnels');
      return c.json({ funnels: (await listFunnels(ctl, c.get('site').id)).map(funnelJson) });
    })
    .post('/sites/:site/funnels', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'funnels');
      const body = await readJson(c, NewFunnel);
      return c.json(
        {
          funnel: funnelJson(
            await createFunnel(ctl, site.id, { ...input(body), name: body.name, steps: body.steps }),
          ),
        },
        201,
      );
    })
    .patch('/sites/:site/funnels/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'funnels');
      const body = await readJson(c, FunnelPatch);
      return c.json({ funnel: funnelJson(await updateFunnel(ctl, site.id, c.req.param('id'), input(body))) });
    })
    .delete('/sites/:site/funnels/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'funnels');
      await deleteFunnel(ctl, site.id, c.req.param('id'));
      return c.body(null, 204);
    });
}
