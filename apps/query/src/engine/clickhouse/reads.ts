import type { ClickHouseClient } from '@clickhouse/client';
import type { ReadOptions, Row } from '../duckdb.ts';
import type { ReportSource } from '../report.ts';
import type { ReportSqlInput } from '../report-sql.ts';
import { buildHostnamesQuery, buildPageEngagementQuery, buildReportQuery } from './report-sql.ts';
import { timePlanOf } from './time-plan.ts';

/** Runs a read and returns its rows (JSONEachRow); the signal cancels it. */
export async function readRows<T = Row>(
  client: ClickHouseClient,
  query: string,
  params: Record<string, unknown>,
  options: ReadOptions = {},
): Promise<T[]> {
  const result = await client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    ...(options.signal ? { abort_signal: options.signal } : {}),
  });
  return result.json<T>();
}

/** The report's rows on ClickHouse: time plans from the zone rules Node carries, one statement each. */
export function clickhouseReportSource(client: ClickHouseClient): ReportSource {
  return {
    plan: async (timeZone, period) => timePlanOf(timeZone, period),
    rows: (input: ReportSqlInput, _timeZone, options) => {
      const { query, params } = buildReportQuery(input);
      return readRows(client, query, params, options);
    },
    engagement: (input, options) => {
      const { query, params } = buildPageEngagementQuery(input);
      return readRows(client, query, params, options);
    },
    hostnames: (input, options) => {
      const { query, params } = buildHostnamesQuery(input);
      return readRows(client, query, params, options);
    },
  };
}
