import { createApiKey, listApiKeys, revokeApiKey } from '@footfall/control';
import { AppError } from '@footfall/http';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import type { QueryDeps } from '../deps.ts';
import { sessionPrincipal } from './auth-helpers.ts';
import { apiKeyJson } from './views.ts';

const NewKey = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  sites: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.minLength(1), v.maxLength(1000))),
});

/**
 * API keys (owners only): read-only, instance-wide or limited to chosen sites. The value is in the creation answer only;
 * the list shows each key's start and last use. Deleting a key revokes it at once.
 */
export function apiKeyRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/api-keys', async (c) => c.json({ api_keys: (await listApiKeys(ctl)).map(apiKeyJson) }))
    .post('/api-keys', async (c) => {
      const body = await readJson(c, NewKey);
      const created = await createApiKey(ctl, {
        name: body.name,
        sites: body.sites,
        createdBy: sessionPrincipal(c).person.id,
      });
      return c.json({ api_key: apiKeyJson(created), key: created.key }, 201);
    })
    .delete('/api-keys/:id', async (c) => {
      if (!(await revokeApiKey(ctl, c.req.param('id')))) throw new AppError('not_found', 'no such API key');
      return c.body(null, 204);
    });
}
