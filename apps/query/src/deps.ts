import type { Config } from '@footfall/config';
import type { Logger } from '@footfall/http';
import type { Instance } from '@footfall/instance';

/** Everything the query service's routes need, built once in main.ts and passed down. */
export interface QueryDeps {
  config: Config;
  instance: Instance;
  logger: Logger;
  /** when this process started (ms), for uptime */
  startedAt: number;
  now: () => number;
}
