import {
  checkProperty,
  checkServiceAccountKey,
  deleteSearchConsole,
  type SearchConsoleConnection,
  saveSearchConsole,
  searchConsoleOf,
} from '@footfall/control';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { googleApi, pullSearchClicks, searchDays } from '../search-console.ts';
import { requireModule } from './modules.ts';

const Connect = v.strictObject({
  property: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
  service_account_key: v.pipe(v.string(), v.minLength(1), v.maxLength(20_000)),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A connection as owners see it: never the key, only the account's address. */
const connectionJson = (c: SearchConsoleConnection | undefined) =>
  c === undefined
    ? null
    : {
        property: c.property,
        client_email: c.clientEmail,
        connected_at: new Date(c.connectedAt).toISOString(),
        synced_at: iso(c.syncedAt),
        last_error:
          c.lastError === null
            ? null
            : { at: new Date(c.lastError.at).toISOString(), message: c.lastError.message },
      };

/**
 * A site's Google Search Console connection (docs/api.md, Search Console): owners give a
 * property and a service-account key; the server pulls search clicks per page per day with it,
 * for the AI & search report's "not read" flag. Owners only, reads included: only an owner may
 * make the server use a key. Part of the `crawlers` module (AI & search).
 */
export function searchConsoleRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  const api = googleApi(deps.config.unsafe.googleApi);
  const siteOf = (c: Parameters<typeof requireSiteRead>[0]) => {
    const site = requireSiteRead(c, c.req.param('site') ?? '');
    requireModule(site, 'crawlers');
    return site;
  };
  return new Hono<AuthEnv>()
    .get('/sites/:site/search-console', (c) => {
      const site = siteOf(c);
      return c.json({ connection: connectionJson(searchConsoleOf(ctl, site.id)) });
    })
    .put('/sites/:site/search-console', async (c) => {
      const site = siteOf(c);
      const body = await readJson(c, Connect);
      const property = checkProperty(body.property);
      const key = checkServiceAccountKey(body.service_account_key);
      // the first pull proves the key and the access to the property; nothing is stored before it
      const clicks = await pullSearchClicks(
        api,
        key,
        property,
        site.domain,
        searchDays(deps.now()),
        deps.now(),
      );
      const connection = saveSearchConsole(ctl, site.id, property, key, clicks);
      return c.json({
        connection: connectionJson(connection),
        pages: new Set(clicks.map((x) => x.path)).size,
      });
    })
    .delete('/sites/:site/search-console', (c) => {
      const site = siteOf(c);
      deleteSearchConsole(ctl, site.id);
      return c.body(null, 204);
    });
}
