/**
 * Enrichment for the ingest gateway: pure functions (and two small stateful pieces, the geo
 * reader and its downloader) that turn a request into WalEvent / WalCrawl / WalBotDrop fields.
 * README.md in this folder lists what each module guarantees.
 */
export { classifyBot } from './bots.ts';
export type { ChannelInput, ChannelResult } from './channels.ts';
export { classifyChannel, lookupHost, lookupSource } from './channels.ts';
export type { AddressRequest, AddressSource, TrustProxy } from './client-address.ts';
export { clientAddress, PLATFORM_ADDRESS } from './client-address.ts';
export type {
  GeoLoadState,
  GeoLookup,
  GeoLookupOptions,
  GeoMode,
  GeoResult,
  MmdbGeoLookupOptions,
} from './geo.ts';
export { MmdbGeoLookup, noGeoLookup } from './geo.ts';
export type {
  FetchLike,
  FetchResponseLike,
  GeoDbKind,
  GeoDownloadOutcome,
  GeoUpdateStatus,
  UpdateGeoOptions,
} from './geo-download.ts';
export {
  dbipUrl,
  GeoUpdater,
  geoFileName,
  installedMonth,
  monthOf,
  updateGeoDatabase,
} from './geo-download.ts';
export type { GeoSetup, GeoSetupOptions } from './geo-setup.ts';
export { createGeo } from './geo-setup.ts';
export type { HeaderBag } from './headers.ts';
export { getHeader } from './headers.ts';
export { addressKey, normaliseAddress } from './ip.ts';
export { primaryLanguage } from './language.ts';
export type { PageParts, ReferrerParts } from './referrer.ts';
export { hostKey, normalisePath, pageOf, parseUrl, referrerOf } from './referrer.ts';
export type { Robot } from './robots.ts';
export { classifyRobot } from './robots.ts';
export type { UserAgentInfo } from './user-agent.ts';
export { parseUserAgent } from './user-agent.ts';
export type { Campaign } from './utm.ts';
export { campaignOf } from './utm.ts';
export type { VisitSource } from './visit.ts';
export { visitSource } from './visit.ts';
export type { SaltStore, VisitorHashInput } from './visitor-hash.ts';
export { MemorySaltStore, siteDay, VISITOR_HASH_CHARS, visitorHash } from './visitor-hash.ts';
