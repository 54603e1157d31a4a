import type { Config } from '@footfall/config';
import type { Logger } from '@footfall/http';
import type { Instance } from '@footfall/instance';

/** Everything the ingest gateway needs, built once in main.ts and passed down. */
export interface IngestDeps {
  config: Config;
  instance: Instance;
  logger: Logger;
  now: () => number;
}
