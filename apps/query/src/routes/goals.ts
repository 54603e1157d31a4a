import { createGoal, deleteGoal, type Goal, listGoals, updateGoal } from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead, siteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { requireModule } from './modules.ts';

const Prop = v.nullable(
  v.strictObject({
    key: v.pipe(v.string(), v.maxLength(200)),
    value: v.pipe(v.string(), v.maxLength(2000)),
  }),
);
const Kind = v.picklist(['page', 'event']);
const NewGoal = v.strictObject({
  name: v.pipe(v.string(), v.maxLength(500)),
  kind: Kind,
  match: v.pipe(v.string(), v.maxLength(4000)),
  prop: v.optional(Prop),
});
const GoalPatch = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.maxLength(500))),
  kind: v.optional(Kind),
  match: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  prop: v.optional(Prop),
});

/** A goal as the API answers it. */
export const goalJson = (g: Goal) => ({
  id: g.id,
  name: g.name,
  kind: g.kind,
  match: g.match,
  prop: g.prop,
  created_at: new Date(g.createdAt).toISOString(),
});

/**
 * A site's goals (packages/control/src/goals.ts): anyone who reads the site reads them, owners
 * create, change and delete them. The report counts each one's conversions.
 */
export function goalRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/sites/:site/goals', siteRead(), async (c) => {
      requireModule(c.get('site'), 'goals');
      return c.json({ goals: (await listGoals(ctl, c.get('site').id)).map(goalJson) });
    })
    .post('/sites/:site/goals', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'goals');
      const body = await readJson(c, NewGoal);
      return c.json({ goal: goalJson(await createGoal(ctl, site.id, body)) }, 201);
    })
    .patch('/sites/:site/goals/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'goals');
      const body = await readJson(c, GoalPatch);
      return c.json({ goal: goalJson(await updateGoal(ctl, site.id, c.req.param('id'), body)) });
    })
    .delete('/sites/:site/goals/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'goals');
      await deleteGoal(ctl, site.id, c.req.param('id'));
      return c.body(null, 204);
    });
}
