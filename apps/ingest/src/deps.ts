import type { Config } from '@footfall/config';
import type { ControlDb } from '@footfall/control';
import type { Logger } from '@footfall/http';
import type { Instance } from '@footfall/instance';
import type { SaltStore } from './enrich/visitor-hash.ts';
import type { EventLog } from './event-log.ts';
import type { GeoLocator } from './pipeline.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { SiteDirectory } from './sites.ts';
import type { IngestStats } from './stats.ts';

/** Everything the ingest gateway needs, built once in main.ts and passed down. */
export interface IngestDeps {
  config: Config;
  instance: Instance;
  logger: Logger;
  now: () => number;
  sites: SiteDirectory;
  /** app.db: payment connections and the webhook inbox */
  control: ControlDb;
  eventLog: EventLog;
  stats: IngestStats;
  geo: GeoLocator;
  salts: SaltStore;
  limits: { address: RateLimiter; visitor: RateLimiter; crawl: RateLimiter };
}
