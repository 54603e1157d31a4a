import { readFile, stat } from 'node:fs/promises';
import { type CityResponse, Reader } from 'maxmind';

/** FOOTFALL_GEO: which database is used, or none. */
export type GeoMode = 'country' | 'city' | 'off';

/** A visitor's location; parts are null when the database does not know them. */
export interface GeoResult {
  /** ISO 3166-1 alpha-2, uppercase */
  country: string | null;
  /** first subdivision (state, province, region) in English; city databases only */
  region: string | null;
  /** city in English; city databases only, and only when the site records cities */
  city: string | null;
}

export interface GeoLookupOptions {
  /** the site's city recording switch; off drops the city (the region is still given) */
  recordCity?: boolean;
}

/** Geolocation of a visitor address. Never throws: an unknown or invalid address gives null. */
export interface GeoLookup {
  lookup(ip: string, options?: GeoLookupOptions): GeoResult | null;
}

/** FOOTFALL_GEO=off: records no location. */
export const noGeoLookup: GeoLookup = Object.freeze({ lookup: () => null });

/**
 * DB-IP Lite and GeoLite2 share this record layout; a country database simply lacks the city
 * parts. Every part is read as optional: free databases leave many out.
 */
type GeoRecord = CityResponse;

export interface GeoLoadState {
  /** the file a reader is loaded from, or null */
  loadedFrom: string | null;
  /** last failure to load, for Health; cleared by a successful load */
  lastError: { at: number; reason: string } | null;
}

export interface MmdbGeoLookupOptions {
  /** path of the .mmdb file (see geo-download.ts for the names it writes) */
  file: string;
  /** 'country' never returns region or city, even from a city database */
  mode: 'country' | 'city';
  /** how often a lookup may trigger the cheap `stat` that notices a replaced file; default 60 s */
  checkEveryMs?: number;
  now?: () => number;
}

const MAX_NAME = 128;

function name(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  return value.length > MAX_NAME ? value.slice(0, MAX_NAME) : value;
}

/**
 * Geolocation from a MaxMind-format database (DB-IP Lite or GeoLite2, country or city). The
 * file is read whole into memory by `load()`; afterwards a lookup now and then (at most once
 * per `checkEveryMs`) starts a background `stat` and reloads the file when its size, mtime or
 * inode changed, so a monthly download or a shared geo directory update is picked up without a
 * restart. Until a database is loaded, and whenever loading fails, lookups return null; the
 * failure is kept in `state()` for Health. Nothing here throws into the request path.
 */
export class MmdbGeoLookup implements GeoLookup {
  readonly #file: string;
  readonly #city: boolean;
  readonly #checkEveryMs: number;
  readonly #now: () => number;
  #reader: Reader<GeoRecord> | null = null;
  #signature = '';
  #lastCheck = Number.NEGATIVE_INFINITY;
  #checking: Promise<void> | null = null;
  #state: GeoLoadState = { loadedFrom: null, lastError: null };

  constructor(options: MmdbGeoLookupOptions) {
    this.#file = options.file;
    this.#city = options.mode === 'city';
    this.#checkEveryMs = options.checkEveryMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Loads (or reloads, if the file changed) now. Resolves, never rejects. */
  load(): Promise<void> {
    this.#checking ??= this.#reloadIfChanged().finally(() => {
      this.#checking = null;
    });
    return this.#checking;
  }

  /** Resolves once no background check or reload is running (for shutdown and tests). */
  async settled(): Promise<void> {
    await this.#checking;
  }

  state(): GeoLoadState {
    return { ...this.#state };
  }

  lookup(ip: string, options?: GeoLookupOptions): GeoResult | null {
    const now = this.#now();
    if (now - this.#lastCheck >= this.#checkEveryMs) {
      this.#lastCheck = now;
      void this.load();
    }
    const reader = this.#reader;
    if (reader === null) return null;
    let record: GeoRecord | null;
    try {
      record = reader.get(ip);
    } catch {
      // Not an address, or IPv6 against an IPv4-only database.
      return null;
    }
    if (record === null) return null;
    const country = record.country?.iso_code ?? record.registered_country?.iso_code;
    if (country === undefined || country.length !== 2) return null;
    if (!this.#city) return { country: country.toUpperCase(), region: null, city: null };
    return {
      country: country.toUpperCase(),
      region: name(record.subdivisions?.[0]?.names?.en),
      city: options?.recordCity === false ? null : name(record.city?.names?.en),
    };
  }

  async #reloadIfChanged(): Promise<void> {
    try {
      const info = await stat(this.#file);
      const signature = `${info.ino}:${info.size}:${info.mtimeMs}`;
      if (signature === this.#signature) return;
      // Remembered before parsing, so a broken file is not re-read every check; a replaced
      // file has a new signature and is tried again.
      this.#signature = signature;
      const reader = new Reader<GeoRecord>(await readFile(this.#file));
      this.#reader = reader;
      this.#state = { loadedFrom: this.#file, lastError: null };
    } catch (error) {
      // Keep answering from the previous reader, if any; Health shows why the new one failed.
      this.#state = {
        loadedFrom: this.#reader === null ? null : this.#state.loadedFrom,
        lastError: { at: this.#now(), reason: error instanceof Error ? error.message : String(error) },
      };
    }
  }
}
