import type { DuckDBConnection } from '@duckdb/node-api';
import type { Query } from './duckdb.ts';
import { Params } from './sql-params.ts';
import { instant } from './time-plan.ts';

/**
 * `footfall export` (docs/export.md): a site's stored events, visits and robot counters written
 * to files as they are stored, for the owner to keep, study elsewhere, or import into another
 * Footfall (`footfall import footfall`). Each engine writes the same columns (below, documented in
 * docs/export.md) in the same order; times are UTC.
 */
export type ExportFormat = 'parquet' | 'ndjson';

export interface ExportQuery {
  site: string;
  /** visits that started at or after this instant, and their events (null: from the first) */
  fromMs: number | null;
  /** ... and before this one (null: to the last) */
  toMs: number | null;
  /** robot counters of these local days (inclusive; null: every day) */
  fromDay: string | null;
  toDay: string | null;
  format: ExportFormat;
  /** where each table is written (the files must not exist yet) */
  files: { events: string; visits: string; robots: string };
}

/** Rows written to each file. */
export interface ExportCounts {
  events: number;
  visits: number;
  robots: number;
}

/**
 * Columns of each file, in order. `visitor` is the id the visit was counted by (a cookie id, or a
 * cookieless daily hash: never an address); `visit_id` joins an event to its visit.
 */
export const EXPORT_COLUMNS = {
  events: [
    'id',
    'ts',
    'kind',
    'name',
    'props',
    'host',
    'path',
    'visitor',
    'id_mode',
    'visit_id',
    'referrer_host',
    'referrer_path',
    'channel',
    'assistant',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_term',
    'utm_content',
    'click_id',
    'browser',
    'browser_version',
    'os',
    'os_version',
    'device',
    'language',
    'country',
    'region',
    'city',
    'screen_w',
    'screen_h',
    'engaged_ms',
    'scroll',
    'lcp',
    'fcp',
    'inp',
    'ttfb',
    'cls',
  ],
  visits: [
    'visit_id',
    'visitor',
    'started_at',
    'last_at',
    'ended_at',
    'duration_ms',
    'pageviews',
    'events',
    'channel',
    'assistant',
    'referrer',
    'entry_page',
    'exit_page',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_term',
    'utm_content',
    'country',
    'region',
    'city',
    'device',
    'browser',
    'os',
    'language',
  ],
  robots: ['day', 'robot', 'robot_kind', 'path', 'status_class', 'hits'],
} as const;

/** The events' columns from `referrer_host` on, and the visits' from `duration_ms` on: as stored. */
const after = <T extends string>(columns: readonly T[], first: T) => columns.slice(columns.indexOf(first));
export const EVENT_TAIL = after(EXPORT_COLUMNS.events, 'referrer_host');
export const VISIT_TAIL = after(EXPORT_COLUMNS.visits, 'duration_ms');

/** A time column: a Parquet timestamp (UTC), or an ISO 8601 string in JSON. */
const time = (column: string, format: ExportFormat) =>
  format === 'parquet' ? column : `strftime(${column} AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')`;

/** The three reads of an export, each one `COPY ... TO` its file. */
export function buildExportQueries(q: ExportQuery): { events: Query; visits: Query; robots: Query } {
  const copy = (select: (p: Params) => string, file: string): Query => {
    const p = new Params();
    const sql = select(p);
    const options = q.format === 'parquet' ? "FORMAT parquet, COMPRESSION 'zstd'" : 'FORMAT json';
    return p.query(`COPY (${sql}) TO ${p.add(file)} (${options})`);
  };
  const range = (p: Params, column: string) =>
    [
      q.fromMs === null ? null : `${column} >= ${p.add(instant(q.fromMs))}`,
      q.toMs === null ? null : `${column} < ${p.add(instant(q.toMs))}`,
    ]
      .filter((c) => c !== null)
      .map((c) => ` AND ${c}`)
      .join('');
  return {
    // an event goes with its visit (one that started in the period); one of no visit by its time
    events: copy(
      (p) => `SELECT e.id, ${time('e.ts', q.format)} AS ts, e.kind, e.name,
          e.props, e.host, e.path, s.visitor, e.id_mode,
          e.session_id::VARCHAR AS visit_id, ${EVENT_TAIL.map((c) => `e.${c}`).join(', ')}
        FROM events e LEFT JOIN sessions s ON s.site = e.site AND s.session_id = e.session_id
        WHERE e.site = ${p.add(q.site)}${range(p, 'coalesce(e.visit_start, e.ts)')}
        ORDER BY e.ts, e.id`,
      q.files.events,
    ),
    visits: copy(
      (p) => `SELECT session_id::VARCHAR AS visit_id, visitor, ${time('started_at', q.format)} AS started_at,
          ${time('last_at', q.format)} AS last_at, ${time('ended_at', q.format)} AS ended_at,
          ${VISIT_TAIL.join(', ')}
        FROM sessions WHERE site = ${p.add(q.site)}${range(p, 'started_at')}
        ORDER BY started_at, session_id`,
      q.files.visits,
    ),
    robots: copy((p) => {
      const days = [
        q.fromDay === null ? '' : ` AND day >= ${p.add(q.fromDay)}::DATE`,
        q.toDay === null ? '' : ` AND day <= ${p.add(q.toDay)}::DATE`,
      ].join('');
      return `SELECT day, robot, robot_kind, path, status_class::INTEGER AS status_class,
          hits FROM crawl_counters WHERE site = ${p.add(q.site)}${days}
        ORDER BY day, robot, path, status_class`;
    }, q.files.robots),
  };
}

/** Runs an export on a connection of its own, in one transaction: the three files are one snapshot. */
export async function exportSite(connection: DuckDBConnection, q: ExportQuery): Promise<ExportCounts> {
  const queries = buildExportQueries(q);
  const run = async (query: Query) => Number((await connection.run(query.sql, query.params)).rowsChanged);
  await connection.run("SET TimeZone = 'UTC'");
  await connection.run('BEGIN TRANSACTION');
  try {
    const counts = {
      events: await run(queries.events),
      visits: await run(queries.visits),
      robots: await run(queries.robots),
    };
    await connection.run('COMMIT');
    return counts;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
