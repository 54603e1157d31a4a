import { randomBytes } from 'node:crypto';
import { AppError, parseInput } from '@footfall/http';
import { type IngestEvent, IngestEventSchema, LIMITS, type WalBotDrop } from '@footfall/schema';
import type { IngestDeps } from './deps.ts';
import { classifyBot } from './enrich/bots.ts';
import { addressKey } from './enrich/ip.ts';
import { hostKey, isSameSite, pageUrlProblem, parseUrl } from './enrich/referrer.ts';
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
import type { SiteInfo } from './sites.ts';

/**
 * `POST /api/e`: one tracker or server event. Resolves once an accepted event is fsynced into the
 * WAL (the caller then answers 202). Bots, Do Not Track and Global Privacy Control resolve the same
 * way and store nothing (bots only a per-day counter). Throws an AppError for anything refused.
 */
export async function acceptEvent(deps: IngestDeps, r: IngestRequest): Promise<void> {
  await acceptIngestEvent(deps, r, parseInput(IngestEventSchema, r.body));
}

/**
 * Accepts one event already read as `POST /api/e`'s body (the compatible endpoints translate
 * theirs into it, compat.ts): every check, rule and enrichment of `/api/e`. `acceptLanguage`
 * stands for the header when the sender names the visitor's language itself.
 */
export async function acceptIngestEvent(
  deps: IngestDeps,
  r: IngestRequest,
  parsed: IngestEvent,
  options: { acceptLanguage?: string | undefined } = {},
): Promise<void> {
  const event = wellFormed(parsed);
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

  const page = pageOn(site, event.u, deps.config.unsafe.anyHost);
  const userAgent = header(r, 'user-agent') ?? '';
  const bot = classifyBot(userAgent, r.headers);
  const receivedAt = deps.now();
  if (bot !== null) {
    deps.stats.bots[bot]++;
    return countDrop(deps, site, receivedAt, bot);
  }
  const record = enrichEvent(
    {
      site,
      event,
      id: event.i ?? newEventId(),
      page,
      address,
      userAgent,
      acceptLanguage: options.acceptLanguage ?? header(r, 'accept-language'),
      receivedAt,
    },
    deps,
  );
  const shielded = site.shield?.({
    address,
    host: page.hostname.toLowerCase(),
    path: page.pathname,
    country: record.country ?? null,
  });
  if (shielded) {
    // the owner's rule: answered as accepted, nothing kept but the day's count (never the address)
    deps.stats.shielded[shielded]++;
    return countDrop(deps, site, receivedAt, `shield_${shielded}`);
  }
  limit(deps, 'visitor', `${site.id}:${record.visitor}`, 'visitor');
  await deps.eventLog.append([record]);
  deps.stats.accepted++;
}

/**
 * Counts a dropped request (a bot, or a site's shield) in the WAL as the site's day and kind,
 * nothing else of it: a counter is never worth an error to the sender.
 */
async function countDrop(deps: IngestDeps, site: SiteInfo, receivedAt: number, kind: WalBotDrop['kind']) {
  const drop: WalBotDrop = { t: 'bot', site: site.id, day: siteDay(receivedAt, site.timezone), kind };
  await deps.eventLog.append([drop]).catch(() => {});
}

/**
 * The page of an event or crawl hit, parsed: an http(s) URL with a DNS host on the site's domain
 * or a subdomain of it (any host with FOOTFALL_UNSAFE_ANY_HOST). Else a 400 naming `u`.
 */
export function pageOn(site: SiteInfo, u: string, anyHost: boolean): URL {
  const page = parseUrl(u);
  const problem = page === null ? 'must be an absolute URL' : pageUrlProblem(page);
  if (problem !== undefined) throw new AppError('invalid_body', `u: ${problem}`, { field: 'u' });
  if (!anyHost && !isSameSite(hostKey(page!.hostname), site.domain)) {
    throw new AppError('invalid_body', `the page is not on ${site.domain} or a subdomain of it`, {
      field: 'u',
    });
  }
  return page!;
}

/** An id for an event sent without `i` (a server sender's): random, so its retries count again. */
const newEventId = () => randomBytes(12).toString('base64url');

/**
 * The event with its free text made well-formed: a lone UTF-16 surrogate (an emoji cut in half by
 * a sender's `slice`) becomes U+FFFD, as UTF-8 storage would make it anyway, so the WAL record and
 * the stored event are the same. URLs need nothing: the URL parser percent-encodes them.
 */
function wellFormed(event: IngestEvent): IngestEvent {
  if (event.n !== undefined && !event.n.isWellFormed()) event.n = event.n.toWellFormed();
  if (event.p !== undefined) {
    for (const key in event.p) {
      const value = event.p[key];
      if (typeof value === 'string' && !value.isWellFormed()) event.p[key] = value.toWellFormed();
      if (!key.isWellFormed()) {
        const fixed = key.toWellFormed();
        if (!Object.hasOwn(event.p, fixed)) event.p[fixed] = event.p[key]!;
        delete event.p[key];
      }
    }
  }
  return event;
}
