import {
  ALERT_KINDS,
  type AlertDestination,
  createAlertDestination,
  deleteAlertDestination,
  getAlertDestination,
  listAlertDestinations,
  updateAlertDestination,
} from '@footfall/control';
import { AppError, BlockedDestination, checkDestination } from '@footfall/http';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';

const Kinds = v.pipe(v.array(v.picklist(ALERT_KINDS)), v.maxLength(ALERT_KINDS.length));
const NewDestination = v.variant('channel', [
  v.strictObject({
    channel: v.literal('webhook'),
    url: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(2000)),
    kinds: v.optional(Kinds),
  }),
  v.strictObject({
    channel: v.literal('email'),
    email: v.pipe(v.string(), v.trim(), v.email('must be an e-mail address'), v.maxLength(320)),
    kinds: v.optional(Kinds),
  }),
]);
const DestinationPatch = v.strictObject({ kinds: Kinds });

/** Every kind but Milestone reached, which is off unless asked for (spec). */
const DEFAULT_KINDS = ALERT_KINDS.filter((k) => k !== 'milestone');

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A destination as the API answers it (owners only: the URL may itself be a secret). */
export const destinationJson = (d: AlertDestination) => ({
  id: d.id,
  channel: d.channel,
  target: d.target,
  host: d.host,
  kinds: d.kinds,
  created_at: new Date(d.createdAt).toISOString(),
  last_sent_at: iso(d.lastSentAt),
  last_failure:
    d.lastFailure === null
      ? null
      : { at: new Date(d.lastFailure.at).toISOString(), message: d.lastFailure.message },
});

/**
 * A site's alert destinations (docs/alerts.md): owners list, add, change and remove them and send
 * a test alert; viewers and API keys never read them (the access table). A webhook URL is checked
 * before it is stored: http or https, no credentials, and never a private or internal address in
 * any spelling (outbound.ts); it is checked again, on the address DNS answers, at every delivery.
 */
export function alertRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/sites/:site/alerts', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      return c.json({
        destinations: (await listAlertDestinations(ctl, site.id)).map(destinationJson),
        email_ready: deps.alerts?.mailReady ?? false,
      });
    })
    .post('/sites/:site/alerts', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const body = await readJson(c, NewDestination);
      let target: string;
      let host: string;
      if (body.channel === 'webhook') {
        try {
          const url = await checkDestination(body.url, deps.alerts?.guard);
          target = url.toString();
          host = url.host;
        } catch (error) {
          if (!(error instanceof BlockedDestination)) throw error;
          throw new AppError('destination_refused', `url: ${error.message}`, { field: 'url' });
        }
      } else {
        if (!deps.alerts?.mailReady) {
          throw new AppError(
            'mail_not_configured',
            'e-mail alerts need FOOTFALL_SMTP_URL on the server; add a webhook instead',
            { field: 'email' },
          );
        }
        target = body.email;
        host = body.email.slice(body.email.lastIndexOf('@') + 1).toLowerCase();
      }
      const { destination, secret } = await createAlertDestination(ctl, site.id, {
        channel: body.channel,
        target,
        host,
        kinds: body.kinds ?? DEFAULT_KINDS,
      });
      return c.json({ destination: destinationJson(destination), secret }, 201);
    })
    .patch('/sites/:site/alerts/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const body = await readJson(c, DestinationPatch);
      return c.json({
        destination: destinationJson(
          await updateAlertDestination(ctl, site.id, c.req.param('id'), body.kinds),
        ),
      });
    })
    .delete('/sites/:site/alerts/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      await deleteAlertDestination(ctl, site.id, c.req.param('id'));
      return c.body(null, 204);
    })
    .post('/sites/:site/alerts/:id/test', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      await getAlertDestination(ctl, site.id, c.req.param('id'));
      if (!deps.alerts) throw new AppError('unavailable', 'alerts are not running');
      const error = await deps.alerts.test(site, c.req.param('id'));
      const destination = destinationJson(await getAlertDestination(ctl, site.id, c.req.param('id')));
      return c.json({ delivered: error === null, error, destination });
    });
}
