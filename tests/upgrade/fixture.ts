/**
 * The upgrade test's fixtures (tests/upgrade/fixtures/<version>/): a small data directory made by
 * a release (make-fixture.ts) and the answers its reports gave then (fixture.json).
 */

/** The bearer token both the release that made a fixture and today's code are started with. */
export const FIXTURE_API_TOKEN = 'upgrade-fixture-api-token-0123456789';

/**
 * What a fixture keeps of the data directory: the databases with their write-ahead files (SQLite's
 * is not folded back into app.db at every stop) and the instance key; those that exist.
 */
export const FIXTURE_FILES = [
  'app.db',
  'app.db-wal',
  'analytics.duckdb',
  'analytics.duckdb.wal',
  'secret.key',
] as const;

/** The reads an upgrade must not change, `{period}` standing for `from=…&to=…`. */
export const REPORT_PATHS = [
  '/report?{period}',
  '/report?{period}&f=page%3A%2Fpricing',
  '/report?{period}&f=channel%3AOrganic%20Search',
  '/report/breakdown?{period}&dim=pages',
  '/report/retention?{period}',
  '/report/heatmap?{period}',
] as const;

export interface FixtureMeta {
  /** the release that made it */
  version: string;
  site: string;
  from: string;
  to: string;
  /** events sent (every one answered 202) */
  events: number;
  made: string;
}
