import { type IngestEvent, LIMITS, type WalEvent } from '@footfall/schema';
import { classifyChannel } from './enrich/channels.ts';
import type { GeoLookup, GeoResult } from './enrich/geo.ts';
import { primaryLanguage } from './enrich/language.ts';
import { pageOf, referrerOf } from './enrich/referrer.ts';
import { parseUserAgent } from './enrich/user-agent.ts';
import { campaignOf } from './enrich/utm.ts';
import { type SaltStore, siteDay, visitorHash } from './enrich/visitor-hash.ts';
import type { SiteInfo } from './sites.ts';

/** Geolocation of an address, in memory only (enrich/geo.ts; a stand-in in tests). */
export type GeoLocator = GeoLookup;
export type GeoPlace = GeoResult;

export interface EnrichInput {
  site: SiteInfo;
  event: IngestEvent;
  /** the event id: `event.i`, or one the gateway made for a sender that gave none */
  id: string;
  /** `event.u`, parsed once by the caller (which checked it is on the site) */
  page: URL;
  /** the visitor address: used here for geo and the cookieless hash, never returned */
  address: string;
  userAgent: string;
  acceptLanguage: string | undefined;
  receivedAt: number;
}

export interface EnrichDeps {
  salts: SaltStore;
  geo: GeoLocator;
}

/**
 * Turns a validated tracker event into the WAL record: page and referrer parts, campaign, channel,
 * browser, OS, device, language, place and visitor id. The address goes into the geo lookup and
 * the cookieless hash and nowhere else.
 */
export function enrichEvent(input: EnrichInput, deps: EnrichDeps): WalEvent {
  const { site, event } = input;
  const url = input.page;
  const page = pageOf(url);
  const at = input.receivedAt - (event.a ?? 0);
  const ref = referrerOf(event.r, page.host, site.domain);
  const campaign = campaignOf(url);
  const { channel, assistant } = classifyChannel({
    referrerHost: ref.referrerHost,
    referrerPath: ref.referrerPath,
    utmSource: campaign.utmSource,
    utmMedium: campaign.utmMedium,
    clickId: campaign.clickId,
  });
  const ua = parseUserAgent(input.userAgent);
  const place = deps.geo.lookup(input.address, { recordCity: site.cityRecording });
  const cookieId = !site.cookieless && event.v !== undefined ? event.v : undefined;
  let visitor = cookieId;
  let carry: string | undefined;
  if (visitor === undefined) {
    const who = { site: site.id, address: input.address, userAgent: input.userAgent };
    const day = siteDay(at, site.timezone);
    visitor = visitorHash({ salt: deps.salts.saltFor(day), ...who });
    // In the first 30 minutes of a day, a visit of the day before may still be in progress: the
    // event also carries that day's hash (its salt is kept 25 hours after the day anyway), and
    // the tailer joins the two only if that visit had activity in the 30 minutes before.
    const before = siteDay(at - LIMITS.visitGapMs, site.timezone);
    if (before !== day) carry = visitorHash({ salt: deps.salts.saltFor(before), ...who });
  }
  // Absent values are undefined rather than null: the WAL encoder's one JSON.stringify leaves
  // them out by itself (walRecordJson), and this runs for every accepted event.
  return {
    t: 'event',
    id: input.id,
    site: site.id,
    at,
    kind: event.k,
    name: event.n,
    props: event.p,
    host: page.host,
    path: page.path,
    visitor,
    idMode: cookieId === undefined ? 'hash' : 'cookie',
    carry,
    referrerHost: ref.referrerHost ?? undefined,
    referrerPath: ref.referrerPath ?? undefined,
    channel,
    assistant: assistant ?? undefined,
    utmSource: campaign.utmSource ?? undefined,
    utmMedium: campaign.utmMedium ?? undefined,
    utmCampaign: campaign.utmCampaign ?? undefined,
    utmTerm: campaign.utmTerm ?? undefined,
    utmContent: campaign.utmContent ?? undefined,
    clickId: campaign.clickId ?? undefined,
    browser: ua.browser ?? undefined,
    browserVersion: ua.browserVersion ?? undefined,
    os: ua.os ?? undefined,
    osVersion: ua.osVersion ?? undefined,
    device: ua.device,
    language: primaryLanguage(input.acceptLanguage) ?? undefined,
    country: place?.country ?? undefined,
    region: place?.region ?? undefined,
    city: site.cityRecording ? (place?.city ?? undefined) : undefined,
    screenW: event.w,
    screenH: event.h,
    engagedMs: event.e,
    scroll: event.d,
    lcp: event.m?.lcp,
    fcp: event.m?.fcp,
    inp: event.m?.inp,
    ttfb: event.m?.ttfb,
    cls: event.m?.cls,
  };
}
