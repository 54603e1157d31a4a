import { visitorId } from './store.ts';

type Send = (name: string, props?: Record<string, unknown>) => void;

const PROP = /^data-footfall-prop-(.+)/;
const DOWNLOAD = /\.(pdf|zip|dmg|exe|msi|pkg|apk|csv|xlsx?|docx?|pptx?|mp[34]|7z|rar|t?gz)$/i;

/**
 * Hosted checkout hosts and the query parameter each provider hands back to webhooks: Stripe
 * Payment Links `client_reference_id`, Lemon Squeezy `checkout[custom][...]` (webhook
 * `meta.custom_data`), Polar Checkout Links `reference_id` (copied into the checkout's metadata),
 * Dodo Payments `metadata_...` (payment metadata). Only these hosts ever see the visitor id.
 */
const CHECKOUTS: [RegExp, string][] = [
  [/^buy\.stripe\.com$/, 'client_reference_id'],
  [/\.lemonsqueezy\.com$/, 'checkout[custom][footfall_vid]'],
  [/^buy\.polar\.sh$/, 'reference_id'],
  [/checkout\.dodopayments\.com$/, 'metadata_footfall_vid'],
];

/**
 * One capture-phase listener for clicks: `data-footfall-event` elements,
 * outbound links, file downloads, and checkout links that get the visitor id.
 */
export const onClick = (event: MouseEvent, send: Send): void => {
  const target = event.target as Element;
  if (!target.closest) return;
  const tagged = target.closest('[data-footfall-event]');
  if (tagged) {
    const props: Record<string, string> = {};
    for (const { name, value } of tagged.attributes) {
      const key = PROP.exec(name);
      if (key) props[key[1]!] = value;
    }
    send(tagged.getAttribute('data-footfall-event')!, props);
  }
  // mailto:, tel:, javascript: and SVG links have no host: none of them is counted or decorated.
  const link = target.closest('a[href]') as HTMLAnchorElement | null;
  if (!link?.host) return;
  const props = { url: link.href };
  if (DOWNLOAD.test(link.pathname)) send('File Download', props);
  else if (link.host !== location.host) send('Outbound Link', props);
  const vid = visitorId();
  for (const [host, param] of CHECKOUTS) {
    const url = new URL(link.href);
    if (vid && host.test(url.host) && !url.searchParams.has(param)) {
      url.searchParams.set(param, vid);
      link.href = url.href;
    }
  }
};
