export { createQueryApp } from './app.ts';
export type { QueryDeps } from './deps.ts';
export { type QueryService, startQueryService } from './main.ts';
