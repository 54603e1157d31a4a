/** How often a limiter drops the keys whose bucket is full again (they carry nothing). */
const SWEEP_MS = 1000;

/**
 * Rate limits per key (an address or a visitor), in memory only: a key gets `burst` requests at
 * once and `perSecond` more each second (a token bucket). Kept as the generic cell rate algorithm,
 * which stores one number per key: the time at which the key's bucket is full again (`full`). A
 * request is allowed unless that lies more than `burst - 1` intervals ahead; each allowed request
 * moves it one interval on. This runs twice per event, over tens of thousands of keys.
 *
 * A key whose bucket is full again says nothing a new key would not, so once a second those are
 * dropped: the map holds only keys seen in the last few seconds, and forgetting them changes no
 * answer. Only when more than `maxKeys` keys are still limited at once are the oldest of them
 * forgotten (a forgotten key starts with a full bucket, which errs on letting visits in).
 */
export class RateLimiter {
  #full = new Map<string, number>();
  /** ms between two tokens */
  readonly #interval: number;
  /** how far ahead `full` may be and a request still pass: the burst's other tokens */
  readonly #tolerance: number;
  readonly #maxKeys: number;
  #swept = Number.NEGATIVE_INFINITY;

  constructor(options: { burst: number; perSecond: number; maxKeys?: number }) {
    if (!(options.burst >= 1 && options.perSecond > 0 && Number.isFinite(options.perSecond)))
      throw new RangeError('a rate limit needs a burst of at least 1 and a finite rate above 0');
    this.#interval = 1000 / options.perSecond;
    this.#tolerance = (options.burst - 1) * this.#interval;
    this.#maxKeys = options.maxKeys ?? 100_000;
  }

  /**
   * Takes one token for `key`. Returns 0 when allowed, else the seconds until a token is back
   * (for `Retry-After`).
   */
  take(key: string, now: number): number {
    if (now - this.#swept >= SWEEP_MS) this.#sweep(now);
    let full = this.#full.get(key);
    if (full === undefined) {
      if (this.#full.size >= this.#maxKeys) this.#makeRoom(now);
      full = now;
    }
    const wait = full - this.#tolerance - now;
    if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
    this.#full.set(key, Math.max(full, now) + this.#interval);
    return 0;
  }

  /** Keys held: those whose bucket is not known to be full again. */
  get size(): number {
    return this.#full.size;
  }

  /**
   * Drops the keys whose bucket is full again by copying the others into a new map. Nearly every
   * key is dropped each second under real traffic, and deleting them one by one made the map
   * shrink and grow again in steps that cost more than this copy (measured: a take went from about
   * 350 to 210 ns with 25,000 new addresses a second).
   */
  #sweep(now: number): void {
    this.#swept = now;
    const kept = new Map<string, number>();
    for (const [key, full] of this.#full) if (full > now) kept.set(key, full);
    this.#full = kept;
  }

  /**
   * At the bound: sweep, then forget the oldest keys until a tenth of the room is free, so that
   * many new keys at once (an attack from many addresses) cost a sweep per tenth of `maxKeys`
   * new keys, not one per key.
   */
  #makeRoom(now: number): void {
    this.#sweep(now);
    let drop = this.#full.size - (this.#maxKeys - Math.max(1, Math.floor(this.#maxKeys / 10)));
    if (drop <= 0) return;
    for (const key of this.#full.keys()) {
      this.#full.delete(key);
      if (--drop === 0) break;
    }
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
