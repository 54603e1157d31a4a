import { type ChannelResult, classifyChannel } from './channels.ts';
import { type PageParts, pageOf, parseUrl, type ReferrerParts, referrerOf } from './referrer.ts';
import { type Campaign, campaignOf } from './utm.ts';

/** The traffic-source fields of a WalEvent, from the page URL and referrer. */
export type VisitSource = PageParts & ReferrerParts & Campaign & ChannelResult;

/**
 * Everything the page URL `u` and referrer `r` tell about a hit, named as in WalEvent: page
 * host and path, external referrer, UTM tags, click id, channel and assistant. Null when `u`
 * is not an absolute URL (the schema already checks it; this keeps the function total).
 *
 * @example
 * visitSource('https://example.com/pricing?utm_source=chatgpt.com', '', 'example.com');
 * // { host: 'example.com', path: '/pricing', channel: 'AI Assistant', assistant: 'ChatGPT', utmSource: 'chatgpt.com', ... }
 */
export function visitSource(
  u: string,
  r: string | undefined,
  siteDomain?: string | null,
): VisitSource | null {
  const url = parseUrl(u);
  if (url === null) return null;
  const page = pageOf(url);
  const referrer = referrerOf(r, page.host, siteDomain);
  const campaign = campaignOf(url);
  return {
    ...page,
    ...referrer,
    ...campaign,
    ...classifyChannel({
      ...referrer,
      utmSource: campaign.utmSource,
      utmMedium: campaign.utmMedium,
      clickId: campaign.clickId,
    }),
  };
}
