import { Lru } from './enrich/lru.ts';

/**
 * Token buckets per key (an address or a visitor), in memory only. A key gets `burst` requests at
 * once and `perSecond` more each second. The buckets are bounded by the same two-generation cache
 * as the enrichment caches: keys not seen for a while are forgotten (a forgotten key starts with a
 * full bucket, which errs on letting visits in), and a key seen again costs one lookup, not the
 * delete and re-insert a strict least-recently-used order needs (two buckets per event).
 */
export class RateLimiter {
  readonly #buckets: Lru<string, { tokens: number; at: number }>;
  readonly #burst: number;
  readonly #perMs: number;

  constructor(options: { burst: number; perSecond: number; maxKeys?: number }) {
    this.#burst = options.burst;
    this.#perMs = options.perSecond / 1000;
    this.#buckets = new Lru(options.maxKeys ?? 100_000);
  }

  /**
   * Takes one token for `key`. Returns 0 when allowed, else the seconds until a token is back
   * (for `Retry-After`).
   */
  take(key: string, now: number): number {
    let b = this.#buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.#burst, at: now };
      this.#buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.#burst, b.tokens + (now - b.at) * this.#perMs);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.#perMs / 1000));
  }

  get size(): number {
    return this.#buckets.size;
  }
}

/** Ingest's limits (the spec leaves the numbers to us; docs/ingest.md states them). */
export const INGEST_LIMITS = {
  /** per address (an IPv6 /64 is one address): offices and mobile carriers share addresses */
  address: { burst: 300, perSecond: 30 },
  /** per visitor id: a person cannot produce more than a few events a second */
  visitor: { burst: 60, perSecond: 2 },
  /** per address on /api/crawl, which the owner's own server calls for every robot request */
  crawl: { burst: 2000, perSecond: 500 },
} as const;
