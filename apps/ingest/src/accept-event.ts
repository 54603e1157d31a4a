import { AppError, parseInput } from '@footfall/http';
import { IngestEventSchema, LIMITS, type WalBotDrop } from '@footfall/schema';
import type { IngestDeps } from './deps.ts';
import { classifyBot } from './enrich/bots.ts';
import { addressKey } from './enrich/ip.ts';
import { hostKey, isSameSite, parseUrl } from './enrich/referrer.ts';
import { siteDay } from './enrich/visitor-hash.ts';
import {
  header,
  type IngestRequest,
  limit,
  proxyKeyStatus,
  siteOf,
  visitorAddress,
} from './ingest-request.ts';
import { enrichEvent } from './pipeline.ts';

/**
 * `POST /api/e`: one tracker or server event. Resolves once an accepted event is fsynced into the
 * WAL (the caller then answers 202). Bots, Do Not Track and Global Privacy Control resolve the same
 * way and store nothing (bots only a per-day counter). Throws an AppError for anything refused.
 */
export async function acceptEvent(deps: IngestDeps, r: IngestRequest): Promise<void> {
  const event = parseInput(IngestEventSchema, r.body);
  if (event.k === 'ev' && event.n === undefined) {
    throw new AppError('invalid_body', 'n is required for custom events (k = ev)', { field: 'n' });
  }
  if ((event.a ?? 0) > LIMITS.maxEventAgeMs) {
    throw new AppError('invalid_body', 'the event is older than 25 hours', { field: 'a' });
  }
  if (header(r, 'dnt') === '1' || header(r, 'sec-gpc') === '1') {
    deps.stats.declined++;
    return;
  }
  const site = siteOf(deps, event.s);
  const key = proxyKeyStatus(r, site);
  if (key === 'wrong') throw new AppError('forbidden', 'wrong X-Footfall-Proxy-Key for this site');
  const address = visitorAddress(r, deps, key === 'valid');
  limit(deps, 'address', addressKey(address), 'address');

  const page = parseUrl(event.u);
  if (page === null || (!deps.config.unsafe.anyHost && !isSameSite(hostKey(page.hostname), site.domain))) {
    throw new AppError('invalid_body', `the page is not on ${site.domain} or a subdomain of it`, {
      field: 'u',
    });
  }
  const userAgent = header(r, 'user-agent') ?? '';
  const bot = classifyBot(userAgent, r.headers);
  const receivedAt = deps.now();
  if (bot !== null) {
    deps.stats.bots[bot]++;
    const drop: WalBotDrop = { t: 'bot', site: site.id, day: siteDay(receivedAt, site.timezone), kind: bot };
    await deps.eventLog.append([drop]).catch(() => {}); // a counter: never worth an error to a bot
    return;
  }
  const record = enrichEvent(
    { site, event, page, address, userAgent, acceptLanguage: header(r, 'accept-language'), receivedAt },
    deps,
  );
  limit(deps, 'visitor', `${site.id}:${record.visitor}`, 'visitor');
  await deps.eventLog.append([record]);
  deps.stats.accepted++;
}
