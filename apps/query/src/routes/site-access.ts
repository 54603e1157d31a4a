import { listSiteAccess, setSiteAccess } from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { accessJson } from './views.ts';

const Access = v.strictObject({
  sites: v.union([v.literal('all'), v.pipe(v.array(v.pipe(v.string(), v.maxLength(40))), v.maxLength(5000))]),
});

/**
 * `GET /api/v1/site-access` (every viewer and the sites they see) and
 * `PUT /api/v1/site-access/{person id}` with `{ "sites": "all" | ["<site id>", ...] }`. Owners only.
 */
export function siteAccessRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/site-access', async (c) => c.json({ viewers: (await listSiteAccess(ctl)).map(accessJson) }))
    .put('/site-access/:id', async (c) => {
      const body = await readJson(c, Access);
      return c.json(accessJson(await setSiteAccess(ctl, c.req.param('id'), body.sites)));
    });
}
