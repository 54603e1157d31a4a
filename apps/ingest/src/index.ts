export { createIngestApp } from './app.ts';
export type { IngestDeps } from './deps.ts';
export { forwardToQuery, isIngestPath } from './front-door.ts';
export { type IngestGateway, startIngestGateway } from './main.ts';
