import type { Config } from '@footfall/config';
import type { ControlDb, OnSiteDeleted } from '@footfall/control';
import type { Logger } from '@footfall/http';
import type { Instance } from '@footfall/instance';
import type { Alerts } from './alerts/alerts.ts';
import type { Analytics } from './analytics.ts';
import type { PasswordChecks } from './auth/password-checks.ts';
import type { Backups } from './backups.ts';
import type { CardPool } from './cards/pool.ts';
import type { ExchangeRates } from './exchange-rates.ts';
import type { Imports } from './imports/imports.ts';
import type { PaymentsSync } from './payments-sync.ts';
import type { ReadControl } from './read-control.ts';
import type { Retention } from './retention.ts';

/** Everything the query service's routes need, built once in main.ts and passed down. */
export interface QueryDeps {
  config: Config;
  instance: Instance;
  logger: Logger;
  /** when this process started (ms), for uptime */
  startedAt: number;
  now: () => number;
  /** the control database (people, keys, sites) */
  control: ControlDb;
  /** rate limits and the two-at-once queue of password checks (memory only) */
  passwordChecks: PasswordChecks;
  /** removes a deleted site's analytics; wired to the analytics engine */
  onSiteDeleted: OnSiteDeleted;
  /** the analytics engine, its tailer, the report cache and the live hub */
  analytics: Analytics;
  /** the time limit and cancellation of analytics reads */
  reads: ReadControl;
  /** the ECB's rates, kept fresh while a site has a payment connection (absent in some tests) */
  exchangeRates?: ExchangeRates | undefined;
  /** reconciliation with the payment providers (absent in tests that do not need it) */
  paymentsSync?: PaymentsSync | undefined;
  /** daily and on-demand backups (absent in tests that do not need them) */
  backups?: Backups | undefined;
  /** the worker threads that draw share cards (absent in tests that do not need them) */
  cards?: CardPool | undefined;
  /** the daily deletion of visits past their retention (absent in tests that do not need it) */
  retention?: Retention | undefined;
  /** imports from other tools (absent in tests that do not need them) */
  imports?: Imports | undefined;
  /** alert rules and their deliveries (absent in tests that do not need them) */
  alerts?: Alerts | undefined;
  /** the built dashboard (index.html and assets/), served for GET paths no route answers */
  dashboardDir?: string | undefined;
}
