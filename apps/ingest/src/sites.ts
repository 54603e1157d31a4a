import { bareHost } from '@footfall/config';
import {
  type ConsentBar,
  compileShields,
  consentBarOf,
  type ShieldCheck,
  type Site,
} from '@footfall/control';

/** What the gateway needs to know about a site. */
export interface SiteInfo {
  id: string;
  /** the domain as page hosts are compared with it (`bareHost`: lower case, no `www.`) */
  domain: string;
  timezone: string;
  cookieless: boolean;
  proxyKey: string;
  cityRecording: boolean;
  /** The consent bar its tracker shows, defaults filled in; absent when the site has it off. */
  consentBar?: ConsentBar;
  /** whether it has a Paddle connection: its tracker carries the Paddle.js add-on */
  paddle?: boolean;
  /** its shields, compiled; absent when it has none */
  shield?: ShieldCheck;
}

/** The gateway's view of a stored site; a domain stored before `www.` was dropped compares all the same. */
export function siteInfo(site: Site | undefined, paddle = false): SiteInfo | undefined {
  if (site === undefined) return undefined;
  const { id, domain, timezone, cookieless, proxyKey, cityRecording } = site;
  const consentBar = consentBarOf(site);
  const shield = compileShields(site.shields);
  return {
    id,
    domain: bareHost(domain),
    timezone,
    cookieless,
    proxyKey,
    cityRecording,
    ...(consentBar ? { consentBar } : {}),
    ...(paddle ? { paddle } : {}),
    ...(shield ? { shield } : {}),
  };
}

/** Finds a site by id (or by its domain, for Plausible's Events API), fast: the gateway asks on every event. */
export interface SiteDirectory {
  get(id: string): SiteInfo | undefined;
  /** the site whose domain is this bare host (`bareHost`), if any */
  byDomain(domain: string): SiteInfo | undefined;
  /** the site with this Umami website id (lower case), if any */
  byUmamiId(umamiId: string): SiteInfo | undefined;
}

/** One lookup's short-lived answers (hits and misses alike). */
class ShortCache {
  readonly #entries = new Map<string, { site: SiteInfo | undefined; at: number }>();
  constructor(
    private readonly load: (key: string) => SiteInfo | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get(key: string): SiteInfo | undefined {
    const now = this.now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && now - hit.at < this.ttlMs) return hit.site;
    const site = this.load(key);
    if (this.#entries.size > 10_000) this.#entries.clear(); // unknown keys must not grow it forever
    this.#entries.set(key, { site, at: now });
    return site;
  }
}

/**
 * Caches lookups for a short time (hits and misses alike) so the gateway reads SQLite at most once
 * per site every `ttlMs`, while a new, changed or deleted site is seen within that time.
 */
export class CachedSites implements SiteDirectory {
  readonly #byId: ShortCache;
  readonly #byDomain: ShortCache;
  readonly #byUmamiId: ShortCache;

  constructor(
    load: (id: string) => SiteInfo | undefined,
    options: {
      ttlMs?: number;
      now?: () => number;
      byDomain?: (domain: string) => SiteInfo | undefined;
      byUmamiId?: (umamiId: string) => SiteInfo | undefined;
    } = {},
  ) {
    const ttl = options.ttlMs ?? 2000;
    const now = options.now ?? Date.now;
    this.#byId = new ShortCache(load, ttl, now);
    this.#byDomain = new ShortCache(options.byDomain ?? (() => undefined), ttl, now);
    this.#byUmamiId = new ShortCache(options.byUmamiId ?? (() => undefined), ttl, now);
  }

  get(id: string): SiteInfo | undefined {
    return this.#byId.get(id);
  }

  byDomain(domain: string): SiteInfo | undefined {
    return this.#byDomain.get(domain);
  }

  byUmamiId(umamiId: string): SiteInfo | undefined {
    return this.#byUmamiId.get(umamiId);
  }
}
