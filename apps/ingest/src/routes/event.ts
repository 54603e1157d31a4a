import { AppError, parseInput } from '@footfall/http';
import { IngestEventSchema, LIMITS, type WalBotDrop } from '@footfall/schema';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { IngestDeps } from '../deps.ts';
import { classifyBot } from '../enrich/bots.ts';
import { isSameSite, pageOf, parseUrl } from '../enrich/referrer.ts';
import { siteDay } from '../enrich/visitor-hash.ts';
import { enrichEvent } from '../pipeline.ts';
import {
  addressKey,
  type GatewayContext,
  type GatewayEnv,
  limit,
  proxyKeyStatus,
  readJson,
  siteOf,
  visitorAddress,
} from './request.ts';

/** The size cap of ingest bodies: 413 as soon as it is passed, without reading further. */
export const ingestBodyLimit = bodyLimit({
  maxSize: LIMITS.ingestBodyBytes,
  onError: () => {
    throw new AppError('payload_too_large', `the body is over ${LIMITS.ingestBodyBytes} bytes`);
  },
});

/**
 * `POST /api/e`: one tracker or server event. Accepted events are fsynced into the WAL before
 * the 202. Bots, Do Not Track and Global Privacy Control get the same 202 and store nothing
 * (bots only bump a per-day counter).
 */
export function eventRoutes(deps: IngestDeps) {
  return new Hono<GatewayEnv>()
    .use(
      '/api/e',
      cors({
        origin: '*',
        allowMethods: ['POST'],
        allowHeaders: ['Content-Type'],
        exposeHeaders: ['Retry-After'],
        maxAge: 86400,
      }),
    )
    .post('/api/e', ingestBodyLimit, async (c) => {
      try {
        return await acceptEvent(c, deps);
      } catch (e) {
        deps.stats.rejected++;
        throw e;
      }
    });
}

async function acceptEvent(c: GatewayContext, deps: IngestDeps): Promise<Response> {
  const event = parseInput(IngestEventSchema, await readJson(c));
  if (event.k === 'ev' && event.n === undefined) {
    throw new AppError('invalid_body', 'n is required for custom events (k = ev)', { field: 'n' });
  }
  if ((event.a ?? 0) > LIMITS.maxEventAgeMs) {
    throw new AppError('invalid_body', 'the event is older than 25 hours', { field: 'a' });
  }
  if (c.req.header('dnt') === '1' || c.req.header('sec-gpc') === '1') {
    deps.stats.declined++;
    return c.body(null, 202);
  }
  const site = siteOf(deps, event.s);
  const key = proxyKeyStatus(c, site);
  if (key === 'wrong') throw new AppError('forbidden', 'wrong X-Footfall-Proxy-Key for this site');
  const address = visitorAddress(c, deps, key === 'valid');
  limit(deps, 'address', addressKey(address), 'address');

  const page = parseUrl(event.u);
  if (page === null || (!deps.config.unsafe.anyHost && !isSameSite(pageOf(page).host, site.domain))) {
    throw new AppError('invalid_body', `the page is not on ${site.domain} or a subdomain of it`, {
      field: 'u',
    });
  }
  const userAgent = c.req.header('user-agent') ?? '';
  const bot = classifyBot(userAgent, c.env.incoming.headers);
  const receivedAt = deps.now();
  if (bot !== null) {
    deps.stats.bots[bot]++;
    const drop: WalBotDrop = { t: 'bot', site: site.id, day: siteDay(receivedAt, site.timezone), kind: bot };
    await deps.eventLog.append([drop]).catch(() => {}); // a counter: never worth an error to a bot
    return c.body(null, 202);
  }
  const record = enrichEvent(
    { site, event, address, userAgent, acceptLanguage: c.req.header('accept-language'), receivedAt },
    deps,
  );
  limit(deps, 'visitor', `${site.id}:${record.visitor}`, 'visitor');
  await deps.eventLog.append([record]);
  deps.stats.accepted++;
  return c.body(null, 202);
}
