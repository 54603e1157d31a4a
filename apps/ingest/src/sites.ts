import { bareHost } from '@footfall/config';
import { type ConsentBar, consentBarOf, type Site } from '@footfall/control';

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
}

/** The gateway's view of a stored site; a domain stored before `www.` was dropped compares all the same. */
export function siteInfo(site: Site | undefined, paddle = false): SiteInfo | undefined {
  if (site === undefined) return undefined;
  const { id, domain, timezone, cookieless, proxyKey, cityRecording } = site;
  const consentBar = consentBarOf(site);
  return {
    id,
    domain: bareHost(domain),
    timezone,
    cookieless,
    proxyKey,
    cityRecording,
    ...(consentBar ? { consentBar } : {}),
    ...(paddle ? { paddle } : {}),
  };
}

/** Finds a site by id, fast: the gateway asks on every event. */
export interface SiteDirectory {
  get(id: string): SiteInfo | undefined;
}

/**
 * Caches lookups for a short time (hits and misses alike) so the gateway reads SQLite at most once
 * per site every `ttlMs`, while a new, changed or deleted site is seen within that time.
 */
export class CachedSites implements SiteDirectory {
  readonly #cache = new Map<string, { site: SiteInfo | undefined; at: number }>();
  readonly #load: (id: string) => SiteInfo | undefined;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    load: (id: string) => SiteInfo | undefined,
    options: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.#load = load;
    this.#ttlMs = options.ttlMs ?? 2000;
    this.#now = options.now ?? Date.now;
  }

  get(id: string): SiteInfo | undefined {
    const now = this.#now();
    const hit = this.#cache.get(id);
    if (hit !== undefined && now - hit.at < this.#ttlMs) return hit.site;
    const site = this.#load(id);
    if (this.#cache.size > 10_000) this.#cache.clear(); // ids of unknown sites must not grow it forever
    this.#cache.set(id, { site, at: now });
    return site;
  }
}
