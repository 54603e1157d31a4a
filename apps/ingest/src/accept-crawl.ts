import { AppError, parseInput } from '@footfall/http';
import { CrawlHitSchema, type WalCrawl } from '@footfall/schema';
import { pageOn } from './accept-event.ts';
import type { IngestDeps } from './deps.ts';
import { addressKey } from './enrich/ip.ts';
import { pageOf } from './enrich/referrer.ts';
import { classifyRobot } from './enrich/robots.ts';
import { siteDay } from './enrich/visitor-hash.ts';
import { type IngestRequest, limit, proxyKeyStatus, siteOf, visitorAddress } from './ingest-request.ts';

/**
 * `POST /api/crawl`: one robot request, reported by the site owner's server or CDN with the site's
 * proxy key. Only robot, page, day and status are kept; a user agent that is not a known robot is
 * discarded (202 all the same).
 */
export async function acceptCrawl(deps: IngestDeps, r: IngestRequest): Promise<void> {
  const hit = parseInput(CrawlHitSchema, r.body);
  const site = siteOf(deps, hit.s);
  const key = proxyKeyStatus(r, site);
  if (key === 'none') throw new AppError('unauthorized', 'X-Footfall-Proxy-Key is required');
  if (key === 'wrong') throw new AppError('forbidden', 'wrong X-Footfall-Proxy-Key for this site');
  limit(deps, 'crawl', addressKey(visitorAddress(r, deps, false)), 'address');
  const url = pageOn(site, hit.u, deps.config.unsafe.anyHost);
  const robot = classifyRobot(hit.ua);
  if (robot === null) return;
  const record: WalCrawl = {
    t: 'crawl',
    site: site.id,
    day: siteDay(deps.now(), site.timezone),
    robot: robot.robot,
    robotKind: robot.kind,
    path: pageOf(url).path,
    status: hit.st,
  };
  await deps.eventLog.append([record]);
  deps.stats.crawlHits++;
}
