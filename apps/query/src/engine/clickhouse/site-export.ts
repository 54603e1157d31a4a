import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { EVENT_TAIL, type ExportCounts, type ExportQuery, VISIT_TAIL } from '../site-export.ts';
import { ChParams } from './report-sql.ts';

/**
 * `footfall export` on ClickHouse (site-export.ts for DuckDB): the same files, columns and order,
 * read from collapsed rows (`FINAL`, live states only). Each file is one statement streamed to
 * disk as the server writes it (`FORMAT Parquet` or `JSONEachRow`), so memory stays flat, and
 * counted from what was written (JSON lines as they pass, Parquet from its footer); the
 * three are read one after the other, not as one snapshot (ClickHouse has none across statements):
 * events loaded meanwhile may be in one file and not another. docs/export.md says so.
 */

/** A time column: a Parquet timestamp, or ISO 8601 text in JSON (as DuckDB writes it). */
const time = (column: string, q: ExportQuery) =>
  q.format === 'parquet' ? column : `concat(replaceOne(toString(${column}), ' ', 'T'), 'Z')`;

const SETTINGS = {
  // a visit the join does not find is NULL, not an empty string
  join_use_nulls: 1,
  // numbers as numbers in JSON, as DuckDB writes them
  output_format_json_quote_64bit_integers: 0,
  output_format_parquet_compression_method: 'zstd',
  output_format_parquet_string_as_string: 1,
} as const;

function statements(q: ExportQuery): { events: string; visits: string; robots: string; params: ChParams } {
  const p = new ChParams();
  const site = p.add(q.site, 'String');
  const range = (column: string) =>
    [
      q.fromMs === null ? '' : ` AND ${column} >= ${p.time(q.fromMs)}`,
      q.toMs === null ? '' : ` AND ${column} < ${p.time(q.toMs)}`,
    ].join('');
  const days = [
    q.fromDay === null ? '' : ` AND day >= ${p.add(q.fromDay, 'Date')}`,
    q.toDay === null ? '' : ` AND day <= ${p.add(q.toDay, 'Date')}`,
  ].join('');
  return {
    // an event's visitor and visit id are its visit's: (visitor_key, visit_start) names it
    events: `SELECT e.id AS id, ${time('e.ts', q)} AS ts, e.kind AS kind, e.name AS name, e.props AS props,
        e.host AS host, e.path AS path, v.visitor AS visitor, e.id_mode AS id_mode,
        toString(v.session_id) AS visit_id, ${EVENT_TAIL.map((c) => `e.${c} AS ${c}`).join(', ')}
      FROM events AS e FINAL
      LEFT JOIN (SELECT visitor_key, started_at, visitor, session_id FROM sessions FINAL
                 WHERE site = ${site} AND sign = 1) AS v
        ON v.visitor_key = e.visitor_key AND v.started_at = e.visit_start
      WHERE e.site = ${site} AND e.sign = 1${range('coalesce(e.visit_start, e.ts)')}
      ORDER BY e.ts, e.id`,
    visits: `SELECT toString(session_id) AS visit_id, visitor, ${time('started_at', q)} AS started_at,
        ${time('last_at', q)} AS last_at, ${time('ended_at', q)} AS ended_at, ${VISIT_TAIL.join(', ')}
      FROM sessions FINAL WHERE site = ${site} AND sign = 1${range('started_at')}
      ORDER BY started_at, session_id`,
    robots: `SELECT day, robot, robot_kind, path, toInt32(status_class) AS status_class, sum(hits) AS hits
      FROM crawl_counters WHERE site = ${site}${days}
      GROUP BY day, robot, robot_kind, path, status_class HAVING hits > 0
      ORDER BY day, robot, path, status_class`,
    params: p,
  };
}

/** Writes the three files; answers the rows each holds, counted from what was written. */
export async function exportSiteCh(client: ClickHouseClient, q: ExportQuery): Promise<ExportCounts> {
  const s = statements(q);
  const format = q.format === 'parquet' ? 'Parquet' : 'JSONEachRow';
  const write = async (sql: string, file: string) => {
    const result = await client.exec({
      query: `${sql} FORMAT ${format}`,
      query_params: s.params.values,
      clickhouse_settings: SETTINGS,
    });
    // a JSON row is one line: counted as the stream passes, so the data is read once
    let lines = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        done(null, chunk);
      },
    });
    await pipeline(result.stream, counter, createWriteStream(file, { flags: 'wx' }));
    return q.format === 'parquet' ? await parquetRows(file) : lines;
  };
  return {
    events: await write(s.events, q.files.events),
    visits: await write(s.visits, q.files.visits),
    robots: await write(s.robots, q.files.robots),
  };
}

/** The rows of a Parquet file, from its footer (DuckDB reads the metadata, not the data). */
async function parquetRows(file: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const db = await instance.connect();
  try {
    const read = await db.runAndReadAll('SELECT sum(num_rows) AS n FROM parquet_file_metadata($1)', [file]);
    return Number(read.getRowObjectsJS()[0]?.['n'] ?? 0);
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}
