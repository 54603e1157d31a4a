import { AppError } from '@footfall/http';
import {
  type Connection,
  connectProvider,
  createConnection,
  disconnectProvider,
  erasePayer,
  findPayer,
  getConnection,
  listConnections,
  PROVIDERS,
  ProviderError,
  type ProviderId,
  readSigningSecret,
  renameConnection,
  rotateSecret,
  SYNC_MAX_DAYS,
  setSigningSecret,
  syncConnection,
} from '@footfall/payments';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { publicOrigin } from './auth-helpers.ts';
import { requireModule } from './modules.ts';

const name = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
const pasted = v.pipe(v.string(), v.minLength(1), v.maxLength(1000));
const NewConnection = v.strictObject({
  provider: v.picklist(PROVIDERS),
  name: v.optional(name),
  mode: v.optional(v.picklist(['automatic', 'manual'])),
  api_key: v.optional(pasted),
  signing_secret: v.optional(pasted),
  environment: v.optional(v.picklist(['live', 'sandbox'])),
});
const ConnectionPatch = v.strictObject({ name: v.optional(name), signing_secret: v.optional(pasted) });
const SyncRequest = v.strictObject({
  days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SYNC_MAX_DAYS))),
});
const DataRequest = v.strictObject({
  email: v.pipe(v.string(), v.trim(), v.email('must be an e-mail address'), v.maxLength(320)),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A provider's refusal as the API answers it: which of the three, with the provider's words. */
function providerFailure(error: unknown): never {
  if (!(error instanceof ProviderError)) throw error;
  const f = error.failure;
  if (f.reason === 'key_rejected')
    throw new AppError('provider_key_rejected', f.message, { field: 'api_key' });
  if (f.reason === 'missing_permission') {
    throw new AppError('provider_permission_missing', f.message, {
      field: 'api_key',
      permission: f.permission,
    });
  }
  throw new AppError('provider_unreachable', f.message, { retryAfter: 60 });
}

/** Which fields a set-up takes: a field that does not belong to it is refused, naming it. */
function refuse(field: string, why: string): never {
  throw new AppError('invalid_body', `${field}: ${why}`, { field });
}

/** What an erasure did, in a sentence for the person who asked. */
/** `count` things, named in the singular or the plural. */
const n = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;

/** What a data request would erase, in a sentence. */
function findingMessage(e: { payloads: number; sites: string[]; payments: number }): string {
  if (e.payloads === 0) return 'Nothing stored names this e-mail address: there is nothing to erase.';
  return (
    `${n(e.payloads, 'stored payment webhook')} on ${n(e.sites.length, 'site')} hold this person's personal data ` +
    `(e-mail, name, customer and subscription ids, visitor id), about ${n(e.payments, 'payment')}. ` +
    'Erasing removes it; the amounts stay in revenue, no longer tied to a person or a visit.'
  );
}

function erasureMessage(e: { payloads: number; sites: string[]; payments: number }): string {
  if (e.payloads === 0) return 'Nothing stored names this e-mail address: nothing was erased.';
  return (
    `Removed the personal data of ${n(e.payloads, 'stored payment webhook')} on ${n(e.sites.length, 'site')}. ` +
    `${n(e.payments, 'payment')} of this person stay in revenue, no longer tied to a person or a visit (unattributed).`
  );
}

/**
 * Payment connections of a site (owners only, like every route that can show a secret). Three
 * ways in (docs/payments.md): a provider set up automatically with an API key, a provider set up
 * by hand (the owner pastes the webhook URL at the provider and its signing secret here), and the
 * custom webhook, whose secret Footfall issues and answers once.
 */
export function paymentRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  const apis = deps.config.unsafe.paymentApis as Partial<Record<ProviderId, string>>;
  const webhookUrl = (c: Context, provider: string, id: string) =>
    `${publicOrigin(c, deps.config.baseUrl)}/webhooks/${provider}/${id}`;
  const json = (c: Context, x: Connection) => ({
    id: x.id,
    provider: x.provider,
    name: x.name,
    mode: x.setup,
    environment: x.environment,
    webhook_url: webhookUrl(c, x.provider, x.id),
    has_signing_secret: x.hasSecret,
    reconciles: x.hasApiKey,
    created_at: iso(x.createdAt),
    last_event_at: iso(x.lastEventAt),
    waiting: x.waiting,
    last_waiting_at: iso(x.lastWaitingAt),
    reconciliation: {
      attempted_at: iso(x.syncAttemptedAt),
      succeeded_at: iso(x.syncedAt),
      error: x.syncError,
    },
  });
  const base = '/sites/:site/payments/connections';
  /** the site of the URL, while its revenue module is on (404 otherwise, like the site) */
  const revenueSite = (c: Context<AuthEnv>) => {
    const site = requireSiteRead(c, c.req.param('site') ?? '');
    requireModule(site, 'revenue');
    return site;
  };
  return (
    new Hono<AuthEnv>()
      .get(base, (c) => {
        const site = revenueSite(c);
        return c.json({ connections: listConnections(ctl, site.id).map((x) => json(c, x)) });
      })
      .post(base, async (c) => {
        const site = revenueSite(c);
        const body = await readJson(c, NewConnection);
        const { provider } = body;
        let made: { connection: Connection; signingSecret: string | null };
        if (provider === 'custom') {
          if (body.mode === 'automatic') refuse('mode', 'the custom webhook is set up by hand');
          if (body.api_key !== undefined) refuse('api_key', 'the custom webhook takes no API key');
          if (body.signing_secret !== undefined) refuse('signing_secret', 'Footfall issues this secret');
          made = createConnection(ctl, {
            siteId: site.id,
            provider,
            name: body.name,
            setup: 'manual',
            environment: body.environment ?? 'live',
          });
        } else if ((body.mode ?? (body.api_key === undefined ? 'manual' : 'automatic')) === 'automatic') {
          if (body.api_key === undefined) refuse('api_key', 'paste an API key, or choose "mode": "manual"');
          if (body.signing_secret !== undefined)
            refuse('signing_secret', 'the provider issues it when Footfall creates the endpoint');
          if (body.environment !== undefined) refuse('environment', 'the API key decides live or sandbox');
          try {
            const connection = await connectProvider(ctl, {
              siteId: site.id,
              provider,
              apiKey: body.api_key,
              name: body.name,
              webhookUrl: (id) => webhookUrl(c, provider, id),
              base: apis[provider],
            });
            made = { connection, signingSecret: null };
          } catch (error) {
            providerFailure(error);
          }
        } else {
          if (body.api_key !== undefined)
            refuse(
              'api_key',
              'a manual connection takes no API key; leave out "mode" to connect with the key',
            );
          made = createConnection(ctl, {
            siteId: site.id,
            provider,
            name: body.name,
            setup: 'manual',
            environment: body.environment ?? 'live',
          });
          if (body.signing_secret !== undefined) {
            made.connection = setSigningSecret(ctl, site.id, made.connection.id, body.signing_secret);
          }
        }
        // the first connection is when the instance starts wanting exchange rates: fetch them now
        void deps.exchangeRates?.refresh();
        // an automatic connection reads what the provider already has, without waiting six hours
        if (made.connection.hasApiKey) void deps.paymentsSync?.now(made.connection.id);
        const answer = json(c, made.connection);
        return c.json(
          made.signingSecret === null ? answer : { ...answer, signing_secret: made.signingSecret },
          201,
        );
      })
      .patch(`${base}/:id`, async (c) => {
        const site = revenueSite(c);
        const body = await readJson(c, ConnectionPatch);
        if (body.name === undefined && body.signing_secret === undefined) {
          throw new AppError('invalid_body', 'give a name or a signing_secret to change');
        }
        const id = c.req.param('id');
        getConnection(ctl, site.id, id);
        if (body.signing_secret !== undefined) setSigningSecret(ctl, site.id, id, body.signing_secret);
        if (body.name !== undefined) renameConnection(ctl, site.id, id, body.name);
        return c.json(json(c, getConnection(ctl, site.id, id)));
      })
      // owners only (the access table answers 403 before this looks the connection up)
      .get(`${base}/:id/secret`, (c) => {
        const site = revenueSite(c);
        return c.json({ signing_secret: readSigningSecret(ctl, site.id, c.req.param('id')) });
      })
      .post(`${base}/:id/secret`, (c) => {
        const site = revenueSite(c);
        const made = rotateSecret(ctl, site.id, c.req.param('id'));
        return c.json({ ...json(c, made.connection), signing_secret: made.signingSecret });
      })
      .post(`${base}/:id/sync`, async (c) => {
        const site = revenueSite(c);
        const body = await readJson(c, SyncRequest);
        const x = getConnection(ctl, site.id, c.req.param('id'));
        if (!x.hasApiKey) {
          throw new AppError(
            'conflict',
            'this connection was set up by hand, without an API key: nothing to reconcile',
          );
        }
        const result = await syncConnection(ctl, x.id, { days: body.days, apis });
        if (result.error !== null)
          throw new AppError('provider_sync_failed', result.error, { retryAfter: 60 });
        return c.json({
          read: result.read,
          added: result.added,
          connection: json(c, getConnection(ctl, site.id, x.id)),
        });
      })
      .delete(`${base}/:id`, async (c) => {
        const site = revenueSite(c);
        const id = c.req.param('id');
        const { endpointError } = await disconnectProvider(ctl, site.id, id, (p) => apis[p]);
        if (endpointError !== null) {
          deps.logger.warn(
            { connection: id, reason: endpointError },
            'could not remove the provider webhook endpoint',
          );
        }
        return c.body(null, 204);
      })
      // a data request: what Footfall holds about a person by e-mail is in payment webhooks only
      // (visits carry no e-mail); their personal fields are removed, the amounts stay
      // what a data request would erase, changing nothing (the dashboard shows it before asking)
      .post('/data-requests/find', async (c) => {
        const body = await readJson(c, DataRequest);
        const found = await findPayer(ctl, body.email);
        return c.json({
          payloads: found.payloads,
          sites: found.sites,
          payments: found.payments,
          message: findingMessage(found),
        });
      })
      .post('/data-requests/erase', async (c) => {
        const body = await readJson(c, DataRequest);
        const erased = await erasePayer(ctl, body.email);
        deps.logger.info(
          { payloads: erased.payloads, sites: erased.sites, payments: erased.payments },
          'erased a payer for a data request',
        );
        return c.json({
          payloads: erased.payloads,
          sites: erased.sites,
          unattributed_payments: erased.payments,
          message: erasureMessage(erased),
        });
      })
  );
}
