import {
  type Connection,
  createConnection,
  deleteConnection,
  erasePayer,
  listConnections,
  PROVIDERS,
  renameConnection,
  rotateSecret,
} from '@footfall/payments';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import { CLIENT_PROTO_HEADER } from '../auth/cookies.ts';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';

const name = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
const NewConnection = v.strictObject({
  provider: v.picklist(PROVIDERS),
  name: v.optional(name),
  mode: v.optional(v.picklist(['live', 'sandbox'])),
});
const ConnectionPatch = v.strictObject({ name });
const DataRequest = v.strictObject({
  email: v.pipe(v.string(), v.trim(), v.email('must be an e-mail address'), v.maxLength(320)),
});

/** The address people reach Footfall at: FOOTFALL_BASE_URL, else the request's own origin. */
function publicOrigin(c: Context, baseUrl: string | undefined): string {
  if (baseUrl) return baseUrl.replace(/\/+$/, '');
  const proto = c.req.header(CLIENT_PROTO_HEADER) === 'https' ? 'https' : 'http';
  return `${proto}://${c.req.header('host') ?? 'localhost'}`;
}

/**
 * Payment connections of a site (owners only, like every route that can show a signing secret).
 * The signing secret is answered once, when created or rotated; it is stored sealed.
 */
export function paymentRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  const json = (c: Context, x: Connection) => ({
    id: x.id,
    provider: x.provider,
    name: x.name,
    mode: x.mode,
    webhook_url: `${publicOrigin(c, deps.config.baseUrl)}/webhooks/${x.provider}/${x.id}`,
    has_signing_secret: x.hasSecret,
    created_at: new Date(x.createdAt).toISOString(),
    last_event_at: x.lastEventAt === null ? null : new Date(x.lastEventAt).toISOString(),
  });
  const base = '/sites/:site/payments/connections';
  return (
    new Hono<AuthEnv>()
      .get(base, (c) => {
        const site = requireSiteRead(c, c.req.param('site'));
        return c.json({ connections: listConnections(ctl, site.id).map((x) => json(c, x)) });
      })
      .post(base, async (c) => {
        const site = requireSiteRead(c, c.req.param('site'));
        const body = await readJson(c, NewConnection);
        const made = createConnection(ctl, { siteId: site.id, ...body });
        // the first connection is when the instance starts wanting exchange rates: fetch them now
        void deps.exchangeRates?.refresh();
        return c.json({ ...json(c, made.connection), signing_secret: made.signingSecret }, 201);
      })
      .patch(`${base}/:id`, async (c) => {
        const site = requireSiteRead(c, c.req.param('site'));
        const body = await readJson(c, ConnectionPatch);
        return c.json(json(c, renameConnection(ctl, site.id, c.req.param('id'), body.name)));
      })
      .post(`${base}/:id/secret`, (c) => {
        const site = requireSiteRead(c, c.req.param('site'));
        const made = rotateSecret(ctl, site.id, c.req.param('id'));
        return c.json({ ...json(c, made.connection), signing_secret: made.signingSecret });
      })
      .delete(`${base}/:id`, (c) => {
        const site = requireSiteRead(c, c.req.param('site'));
        deleteConnection(ctl, site.id, c.req.param('id'));
        return c.body(null, 204);
      })
      // a data request: what Footfall holds about a person by e-mail is in payment webhooks only
      // (visits carry no e-mail); their personal fields are removed, the amounts stay
      .post('/data-requests/erase', async (c) => {
        const body = await readJson(c, DataRequest);
        const erased = erasePayer(ctl, body.email);
        deps.logger.info(
          { payloads: erased.payloads, sites: erased.sites },
          'erased a payer for a data request',
        );
        return c.json({ payloads: erased.payloads, sites: erased.sites });
      })
  );
}
