import { getSite, getSiteLayout, listSites, saveSiteLayout, scopeAllows } from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';

const ids = v.pipe(v.array(v.pipe(v.string(), v.maxLength(40))), v.maxLength(5000));
const Layout = v.strictObject({
  order: ids,
  pins: ids,
  groups: v.pipe(
    v.array(
      v.strictObject({ name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(60)), sites: ids }),
    ),
    v.maxLength(200),
  ),
});

/**
 * `GET/PUT /api/v1/site-layout`: the account-wide order, pins and named groups of sites. Everyone
 * reads it (limited to the sites they may see, and to the groups holding one of them); owners save
 * it. Unknown site ids are dropped.
 */
export function siteLayoutRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/site-layout', async (c) => {
      const scope = c.get('principal')!.scope;
      const layout = await getSiteLayout(
        ctl,
        (id) => scopeAllows(scope, id) && getSite(ctl, id) !== undefined,
      );
      // a group's name is the owners' words: someone limited to some sites sees only the groups
      // holding one of them (whoever reads every site sees every group, empty ones too)
      if (scope !== 'all') layout.groups = layout.groups.filter((g) => g.sites.length > 0);
      return c.json(layout);
    })
    .put('/site-layout', async (c) => {
      const body = await readJson(c, Layout);
      const known = new Set(listSites(ctl).map((s) => s.id));
      const keep = (list: string[]) => [...new Set(list)].filter((id) => known.has(id));
      const layout = {
        order: keep(body.order),
        pins: keep(body.pins),
        groups: body.groups.map((g) => ({ name: g.name, sites: keep(g.sites) })),
      };
      await saveSiteLayout(ctl, layout);
      return c.json(layout);
    });
}
