import { randomBytes } from 'node:crypto';

/** Slots per set: a key lives in one of the WAYS slots of the set its hash picks. */
const WAYS = 8;

/**
 * Rate limits per key (an address or a visitor), in memory only: a key gets `burst` requests at
 * once and `perSecond` more each second (a token bucket). Kept as the generic cell rate algorithm,
 * which stores one number per key: the time at which the key's bucket is full again (`full`). A
 * request is allowed unless that lies more than `burst - 1` intervals ahead; each allowed request
 * moves it one interval on. This runs twice per event, over tens of thousands of keys.
 *
 * The keys live in a fixed table of typed arrays, not a Map: a `Map<string, number>` cost a hash
 * table walk, a string compare and a new heap number per take, and its churn (most keys are new
 * each second) fed the garbage collector. Here a key is two 32-bit hashes of its text: the first
 * picks a set of WAYS slots, the second (a 31-bit fingerprint) tells the key from others in its
 * set. Two keys share a bucket only when both agree: about once in 270 million takes of new keys,
 * and it only matters if that bucket is nearly empty. A slot whose bucket is full again is free:
 * forgetting such a key changes no answer, so there is nothing to sweep. Only when all WAYS slots of
 * a set still hold limited keys does a new key take the one nearest to full (a forgotten key
 * starts with a full bucket, which errs on letting visits in). Memory is fixed: 12 bytes per slot,
 * at least `maxKeys` slots. The hash seeds are random per process.
 */
export class RateLimiter {
  /** ms between two tokens */
  readonly #interval: number;
  /** how far ahead `full` may be and a request still pass: the burst's other tokens */
  readonly #tolerance: number;
  /** each slot's key fingerprint, 0 for a slot never used */
  readonly #print: Int32Array;
  /** each slot's `full` time */
  readonly #full: Float64Array;
  /** sets - 1 (a power of two minus one) */
  readonly #setMask: number;
  readonly #seedA: number;
  readonly #seedB: number;

  constructor(options: { burst: number; perSecond: number; maxKeys?: number }) {
    if (!(options.burst >= 1 && options.perSecond > 0 && Number.isFinite(options.perSecond)))
      throw new RangeError('a rate limit needs a burst of at least 1 and a finite rate above 0');
    this.#interval = 1000 / options.perSecond;
    this.#tolerance = (options.burst - 1) * this.#interval;
    let slots = WAYS;
    while (slots < (options.maxKeys ?? 100_000)) slots *= 2;
    this.#print = new Int32Array(slots);
    this.#full = new Float64Array(slots);
    this.#setMask = slots / WAYS - 1;
    const seeds = randomBytes(8);
    this.#seedA = seeds.readInt32LE(0);
    this.#seedB = seeds.readInt32LE(4);
  }

  /**
   * Takes one token for `key`. Returns 0 when allowed, else the seconds until a token is back
   * (for `Retry-After`).
   */
  take(key: string, now: number): number {
    // two FNV-1a style hashes over the UTF-16 code units, each finished with murmur3's mixer
    let a = this.#seedA;
    let b = this.#seedB;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    a = mix(a ^ key.length);
    // 0 marks an unused slot, so a fingerprint is never 0
    const print = mix(b) | 1;
    const first = (a & this.#setMask) * WAYS;
    const prints = this.#print;
    const fulls = this.#full;
    let slot = -1;
    let free = -1;
    let nearest = first;
    for (let i = first; i < first + WAYS; i++) {
      if (prints[i] === print) {
        slot = i;
        break;
      }
      if (free < 0) {
        if (prints[i] === 0 || fulls[i]! <= now) free = i;
        else if (fulls[i]! < fulls[nearest]!) nearest = i;
      }
    }
    if (slot < 0) {
      // a new key starts with a full bucket: always allowed
      slot = free >= 0 ? free : nearest;
      prints[slot] = print;
      fulls[slot] = now + this.#interval;
      return 0;
    }
    const full = fulls[slot]!;
    const wait = full - this.#tolerance - now;
    if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
    fulls[slot] = Math.max(full, now) + this.#interval;
    return 0;
  }

  /** Keys still limited at `now` (their bucket not full again): what the table must remember. */
  limitedKeys(now: number): number {
    let n = 0;
    for (let i = 0; i < this.#print.length; i++) if (this.#print[i] !== 0 && this.#full[i]! > now) n++;
    return n;
  }

  /** Slots in the table: the most keys it can remember at once. */
  get capacity(): number {
    return this.#print.length;
  }
}

/** murmur3's 32-bit finaliser: every input bit affects every output bit. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
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
