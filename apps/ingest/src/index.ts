export { createIngestApp } from './app.ts';
export type { IngestDeps } from './deps.ts';
export { geoFileName, updateGeoDatabase } from './enrich/index.ts';
export { CLIENT_ADDRESS_HEADER, CLIENT_PROTO_HEADER, forwardToQuery, isIngestPath } from './front-door.ts';
export { type IngestGateway, startIngestGateway } from './main.ts';
export type { GeoLocator, GeoPlace } from './pipeline.ts';
export { INGEST_LIMITS, RateLimiter } from './rate-limit.ts';
export { type IngestStatus, statusSocketPath } from './status.ts';
