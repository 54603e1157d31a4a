/** The analytics engine's public surface: the Engine interface, its DuckDB implementation and report params. */
export {
  type Anchor,
  ATTRIBUTION_WINDOW_DAYS,
  type AttributionModel,
  type CreditedVisit,
} from './attribution.ts';
export type { CrawlCounterQuery, CrawlGroup } from './counters-sql.ts';
export { EngineBusyError, isOutOfMemory, QueryAbortedError } from './duckdb.ts';
export { createDuckDbEngine, type DuckDbEngineOptions } from './duckdb-engine.ts';
export type * from './engine.ts';
export type { FunnelCount, FunnelQuery } from './funnels-sql.ts';
export type { GoalCount, GoalMatch, GoalProperty } from './goals-sql.ts';
export type { Batch, BatchRecord, BatchResult } from './loader.ts';
export { NewerSchemaError, SCHEMA_VERSION } from './migrations.ts';
export {
  FILTER_DIMENSIONS,
  type Filter,
  MAX_LIMIT,
  type Period,
  parseReportParams,
  type RawReportQuery,
  ReportParamError,
  type ReportParams,
  VISIT_DIMENSIONS,
} from './report-params.ts';
export type * from './report-types.ts';
