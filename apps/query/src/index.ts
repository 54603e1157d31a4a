export { type Analytics, openAnalytics } from './analytics.ts';
export { createQueryApp } from './app.ts';
export { ROUTE_ACCESS } from './auth/access.ts';
export type { QueryDeps } from './deps.ts';
export { CopyError, type CopySummary, copyToClickHouse } from './engine/clickhouse/copy.ts';
export { type QueryService, startQueryService } from './main.ts';
export { ReadControl } from './read-control.ts';
