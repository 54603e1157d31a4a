import { createHmac, randomBytes } from 'node:crypto';

/**
 * Where the daily salts live. A salt is 32 random bytes made on first use for its day and
 * deleted once the day is over, so yesterday's visitors cannot be recognised today. The real
 * store (SQLite, shared by ingest processes) is written elsewhere; `MemorySaltStore` is the
 * in-memory one for tests and single-process use.
 */
export interface SaltStore {
  /** The salt for `day` (`YYYY-MM-DD`), created on first use. */
  saltFor(day: string): Buffer;
}

/** Salts in memory: one per day, older days dropped as soon as a newer day is asked for. */
export class MemorySaltStore implements SaltStore {
  readonly #salts = new Map<string, Buffer>();
  /** How many most recent days keep their salt (sites in far-apart zones share a moment on two days). */
  readonly #keepDays: number;

  constructor(keepDays = 3) {
    this.#keepDays = keepDays;
  }

  saltFor(day: string): Buffer {
    let salt = this.#salts.get(day);
    if (salt === undefined) {
      salt = randomBytes(32);
      this.#salts.set(day, salt);
      this.#prune();
    }
    return salt;
  }

  /** The days that still have a salt, oldest first. */
  days(): string[] {
    return [...this.#salts.keys()].sort();
  }

  #prune(): void {
    const days = this.days();
    for (const day of days.slice(0, Math.max(0, days.length - this.#keepDays))) this.#salts.delete(day);
  }
}

/** Default hash length: 22 url-safe base64 characters carry 132 bits, far from collisions. */
export const VISITOR_HASH_CHARS = 22;

export interface VisitorHashInput {
  salt: Buffer;
  site: string;
  /** the visitor address, normalised (see clientAddress) */
  address: string;
  userAgent: string;
}

/**
 * The cookieless visitor id: HMAC-SHA256 keyed with the day's salt over site, address and
 * user agent, in url-safe base64 cut to `chars` (8 to 43; the WAL field takes 8 to 64). The
 * address cannot be recovered from it, and without the salt (gone after its day) it cannot be
 * linked to the same person on another day.
 *
 * @example
 * visitorHash({ salt: store.saltFor('2025-01-31'), site: 'blog', address: '203.0.113.9', userAgent: ua });
 */
export function visitorHash(input: VisitorHashInput, chars = VISITOR_HASH_CHARS): string {
  if (!Number.isInteger(chars) || chars < 8 || chars > 43)
    throw new RangeError('visitor hash length must be 8 to 43');
  // NUL separators keep ("ab", "c") and ("a", "bc") apart.
  return createHmac('sha256', input.salt)
    .update(input.site)
    .update('\0')
    .update(input.address)
    .update('\0')
    .update(input.userAgent)
    .digest('base64url')
    .slice(0, chars);
}

interface ZoneDay {
  formatter: Intl.DateTimeFormat;
  /** the last two answers: a cookieless event asks for its own moment and 30 minutes before it */
  buckets: [number, number];
  days: [string, string];
}

/**
 * Every zone's offset is a multiple of 15 minutes and changes on whole minutes, so local
 * midnight always falls on a 15-minute boundary of UTC: within one such bucket the date
 * cannot change, and the last answers per zone can be reused.
 */
const BUCKET_MS = 15 * 60 * 1000;
const zones = new Map<string, ZoneDay>();

function formatterFor(timeZone: string): ZoneDay {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    // Throws RangeError for an unknown zone, before anything is cached.
    const formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      calendar: 'gregory',
      numberingSystem: 'latn',
    });
    zone = { formatter, buckets: [Number.NaN, Number.NaN], days: ['', ''] };
    zones.set(timeZone, zone);
  }
  return zone;
}

/**
 * The date (`YYYY-MM-DD`) of a moment in a site's time zone. Formatters are cached per zone
 * and the last two answers per zone and quarter hour. Throws RangeError for an unknown time zone.
 *
 * @example
 * siteDay(Date.UTC(2025, 0, 1, 3), 'America/New_York'); // '2024-12-31'
 */
export function siteDay(at: number, timeZone: string): string {
  const zone = formatterFor(timeZone);
  const bucket = Math.floor(at / BUCKET_MS);
  if (bucket === zone.buckets[0]) return zone.days[0];
  if (bucket === zone.buckets[1]) return zone.days[1];
  let year = '';
  let month = '';
  let day = '';
  for (const part of zone.formatter.formatToParts(at)) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  const answer = `${year.padStart(4, '0')}-${month}-${day}`;
  zone.buckets = [bucket, zone.buckets[0]];
  zone.days = [answer, zone.days[0]];
  return answer;
}
