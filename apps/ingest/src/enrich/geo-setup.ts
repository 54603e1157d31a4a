import { join } from 'node:path';
import { type GeoLookup, type GeoMode, MmdbGeoLookup, noGeoLookup } from './geo.ts';
import { type FetchLike, GeoUpdater, geoFileName } from './geo-download.ts';

export interface GeoSetupOptions {
  /** FOOTFALL_GEO */
  mode: GeoMode;
  /** where the database lives: FOOTFALL_GEO_DIR when set, otherwise a folder of the data dir */
  dir: string;
  /** true for FOOTFALL_GEO_DIR: someone else keeps the directory fresh, this instance never downloads */
  shared: boolean;
  fetch?: FetchLike;
  /** where databases are downloaded from, instead of DB-IP (FOOTFALL_UNSAFE_GEO_URL, tests) */
  baseUrl?: string | undefined;
}

export interface GeoSetup {
  lookup: GeoLookup;
  /** the database reader (for its load state in Health), null when geo is off */
  reader: MmdbGeoLookup | null;
  /** the downloader to schedule, null when geo is off or the directory is shared */
  updater: GeoUpdater | null;
}

/**
 * Wires geolocation for one of the three FOOTFALL_GEO modes. `off` downloads nothing and
 * records no location; a shared geo directory is read (and re-read when its file changes) but
 * never downloaded into. Nothing starts here: the caller awaits `reader.load()` and schedules
 * `updater.run()`.
 *
 * @example
 * const geo = createGeo({ mode: 'country', dir: join(dataDir, 'geo'), shared: false });
 * await geo.updater?.run();
 * await geo.reader?.load();
 */
export function createGeo(options: GeoSetupOptions): GeoSetup {
  if (options.mode === 'off') return { lookup: noGeoLookup, reader: null, updater: null };
  const reader = new MmdbGeoLookup({
    file: join(options.dir, geoFileName(options.mode)),
    mode: options.mode,
  });
  const updater = options.shared
    ? null
    : new GeoUpdater({
        dir: options.dir,
        kind: options.mode,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      });
  return { lookup: reader, reader, updater };
}
