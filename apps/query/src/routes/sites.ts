import {
  CONSENT_TEXT_MAX,
  createSite,
  deleteSite,
  listSites,
  MODULES,
  type ModuleName,
  rotateProxyKey,
  type SiteFields,
  scopeAllows,
  updateSite,
} from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { shieldCounts } from '../shields.ts';
import { siteJson } from './views.ts';

const hexColour = (example: string) =>
  v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/, `must be a colour such as ${example}`));

const fields = {
  timezone: v.optional(v.pipe(v.string(), v.maxLength(100))),
  currency: v.optional(v.pipe(v.string(), v.maxLength(10))),
  cookieless: v.optional(v.boolean()),
  city_recording: v.optional(v.boolean()),
  /** an emoji, a letter or a favicon URL */
  icon: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(500)))),
  colour: v.optional(v.nullable(hexColour('#3366ff'))),
  consent_bar: v.optional(v.boolean()),
  /** null (or blank) for the default text; the control plane also refuses control characters */
  consent_text: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(CONSENT_TEXT_MAX)))),
  consent_background: v.optional(v.nullable(hexColour('#1f2937'))),
  consent_foreground: v.optional(v.nullable(hexColour('#ffffff'))),
  /** days of visits kept, or null for the instance's setting; the range is checked with the others */
  retention_days: v.optional(v.nullable(v.number())),
  /** the site's website id in Umami, or null; its shape is checked with the others */
  umami_website_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  /** lists to replace (each optional); their entries are checked by the control plane, naming a bad one */
  shields: v.optional(
    v.strictObject({
      ips: v.optional(v.array(v.string())),
      countries: v.optional(v.array(v.string())),
      pages: v.optional(v.array(v.string())),
      hostnames: v.optional(v.array(v.string())),
    }),
  ),
};
const NewSite = v.strictObject({ domain: v.pipe(v.string(), v.maxLength(2000)), ...fields });
const Modules = v.strictObject(
  Object.fromEntries(MODULES.map((m) => [m, v.optional(v.boolean())])) as Record<
    ModuleName,
    v.OptionalSchema<v.BooleanSchema<undefined>, undefined>
  >,
);
const SitePatch = v.strictObject({
  domain: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  ...fields,
  modules: v.optional(Modules),
});

const toFields = (b: v.InferOutput<typeof SitePatch>): Partial<SiteFields> => {
  const out: Partial<SiteFields> = {};
  if (b.modules !== undefined) out.modules = b.modules;
  if (b.domain !== undefined) out.domain = b.domain;
  if (b.timezone !== undefined) out.timezone = b.timezone;
  if (b.currency !== undefined) out.currency = b.currency;
  if (b.cookieless !== undefined) out.cookieless = b.cookieless;
  if (b.city_recording !== undefined) out.cityRecording = b.city_recording;
  if (b.icon !== undefined) out.icon = b.icon;
  if (b.colour !== undefined) out.colour = b.colour?.toLowerCase() ?? null;
  if (b.consent_bar !== undefined) out.consentBar = b.consent_bar;
  if (b.consent_text !== undefined) out.consentText = b.consent_text;
  if (b.consent_background !== undefined) out.consentBackground = b.consent_background;
  if (b.consent_foreground !== undefined) out.consentForeground = b.consent_foreground;
  if (b.retention_days !== undefined) out.retentionDays = b.retention_days;
  if (b.umami_website_id !== undefined) out.umamiWebsiteId = b.umami_website_id;
  if (b.shields !== undefined) out.shields = b.shields;
  return out;
};

/**
 * Sites: everyone reads the sites they may see (`GET /sites`, `GET /sites/{site}`); owners create,
 * change, delete (with its analytics) and rotate the proxy key.
 */
export function siteRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/sites', (c) => {
      const p = c.get('principal')!;
      const sites = listSites(ctl).filter((s) => scopeAllows(p.scope, s.id));
      return c.json({ sites: sites.map((s) => siteJson(s, p.role === 'owner')) });
    })
    .post('/sites', async (c) => {
      const body = await readJson(c, NewSite);
      const site = await createSite(ctl, { ...toFields(body), domain: body.domain });
      return c.json({ site: siteJson(site, true) }, 201);
    })
    .get('/sites/:site', (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      return c.json({ site: siteJson(site, c.get('principal')?.role === 'owner') });
    })
    .patch('/sites/:site', async (c) => {
      const body = await readJson(c, SitePatch);
      return c.json({ site: siteJson(await updateSite(ctl, c.req.param('site'), toFields(body)), true) });
    })
    .delete('/sites/:site', async (c) => {
      const id = c.req.param('site');
      try {
        await deleteSite(ctl, id, deps.onSiteDeleted);
      } catch (e) {
        if (e instanceof Error && e.name === 'AppError') throw e;
        // the site is gone and its deletion is recorded: the analytics are retried at the next start
        deps.logger.error(
          { err: { message: (e as Error).message }, site: id },
          'analytics of a deleted site not removed yet',
        );
      }
      return c.body(null, 204);
    })
    .post('/sites/:site/proxy-key', async (c) =>
      c.json({ site: siteJson(await rotateProxyKey(ctl, c.req.param('site')), true) }),
    )
    .get('/sites/:site/shields', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const counts = await deps.reads.run(c, () => shieldCounts(deps.analytics.engine, site, deps.now()));
      return c.json({ shields: site.shields, excluded: counts });
    });
}
