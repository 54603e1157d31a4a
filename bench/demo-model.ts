/**
 * The shape of the demo traffic: weighted tables of traffic sources, landing and follow-up pages,
 * places, devices and browsers, as a small software product's site might see them. Channel labels
 * follow the ingest gateway's rules (apps/ingest/src/enrich/CHANNELS.md) for the referrer and tags
 * given, so the demo data reads like enriched tracker events.
 */
import type { Channel, Device } from '@footfall/schema';

/** A value with its relative weight. */
export type Weighted<T> = readonly [T, number];

/** Draws from weighted values with one uniform number in [0, 1). */
export interface Picker<T> {
  pick(u: number): T;
}

/** Builds a picker over weighted values (weights need not sum to 1). */
export function picker<T>(items: readonly Weighted<T>[]): Picker<T> {
  const total = items.reduce((s, [, w]) => s + w, 0);
  const bounds: number[] = [];
  let acc = 0;
  for (const [, w] of items) {
    acc += w / total;
    bounds.push(acc);
  }
  return {
    pick(u) {
      let lo = 0;
      let hi = bounds.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (u < bounds[mid]!) hi = mid;
        else lo = mid + 1;
      }
      return items[lo]![0];
    },
  };
}

/** Where a visit came from, as the enriched record states it. */
export interface Source {
  channel: Channel;
  referrerHost: string | null;
  referrerPath: string | null;
  assistant?: string;
  utmSource?: string;
  utmMedium?: string;
  /** the campaign name; `@month` becomes the visit's month (`2026-03`) */
  utmCampaign?: string;
  clickId?: string;
  /** which landing pages this source sends people to */
  landing: 'home' | 'content' | 'product';
}

const ref = (
  channel: Channel,
  host: string,
  landing: Source['landing'],
  path: string | null = '/',
): Source => ({ channel, referrerHost: host, referrerPath: path, landing });

/** First-time visitors' sources; returning visitors come mostly directly (see demo-data.ts). */
export const SOURCES: readonly Weighted<Source>[] = [
  [{ channel: 'Direct', referrerHost: null, referrerPath: null, landing: 'home' }, 24],
  [ref('Organic Search', 'google.com', 'content'), 27],
  [ref('Organic Search', 'bing.com', 'content', '/search'), 3],
  [ref('Organic Search', 'duckduckgo.com', 'content'), 3],
  [ref('Organic Search', 'ecosia.org', 'content', '/search'), 1],
  [ref('Organic Search', 'google.de', 'content'), 2],
  [ref('Organic Social', 'news.ycombinator.com', 'content', '/item'), 2.5],
  [ref('Organic Social', 'reddit.com', 'content'), 2],
  [ref('Organic Social', 't.co', 'content', '/abc123'), 1.5],
  [ref('Organic Social', 'linkedin.com', 'content'), 1.5],
  [ref('Organic Social', 'bsky.app', 'content'), 0.7],
  [ref('Organic Social', 'youtube.com', 'product'), 0.6],
  [ref('Referral', 'github.com', 'product', '/footfall/footfall'), 4],
  [ref('Referral', 'dev.to', 'content'), 1.5],
  [ref('Referral', 'stackoverflow.com', 'content', '/questions/1'), 1.5],
  [ref('Referral', 'alternativeto.net', 'product', '/software/footfall'), 1],
  [ref('Referral', 'selfh.st', 'product'), 0.8],
  [ref('Referral', 'awesome-selfhosted.net', 'product'), 0.6],
  [
    {
      channel: 'Email',
      referrerHost: null,
      referrerPath: null,
      utmSource: 'newsletter',
      utmMedium: 'email',
      utmCampaign: 'newsletter-@month',
      landing: 'content',
    },
    3,
  ],
  [ref('Email', 'mail.google.com', 'home'), 0.8],
  [
    {
      channel: 'Paid Search',
      referrerHost: 'google.com',
      referrerPath: '/',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'brand',
      clickId: 'gclid',
      landing: 'product',
    },
    3,
  ],
  [
    {
      channel: 'Paid Search',
      referrerHost: 'google.com',
      referrerPath: '/',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'analytics-generic',
      clickId: 'gclid',
      landing: 'product',
    },
    2,
  ],
  [
    {
      channel: 'Paid Social',
      referrerHost: 'linkedin.com',
      referrerPath: '/',
      utmSource: 'linkedin',
      utmMedium: 'paid_social',
      utmCampaign: 'launch-@month',
      landing: 'product',
    },
    1.2,
  ],
  [{ ...ref('AI Assistant', 'chatgpt.com', 'product'), assistant: 'ChatGPT' }, 2.2],
  [{ ...ref('AI Assistant', 'perplexity.ai', 'content'), assistant: 'Perplexity' }, 0.9],
  [{ ...ref('AI Assistant', 'claude.ai', 'product'), assistant: 'Claude' }, 0.6],
  [{ ...ref('AI Assistant', 'gemini.google.com', 'product'), assistant: 'Gemini' }, 0.4],
];

/** Blog posts and docs pages with a long tail: the first few draw most of the traffic. */
const longTail = (prefix: string, slugs: readonly string[], weight: number): Weighted<string>[] =>
  slugs.map((slug, i) => [`${prefix}/${slug}`, weight / (i + 1.5)] as const);

const BLOG = longTail(
  '/blog',
  [
    'cookieless-analytics-explained',
    'why-we-left-google-analytics',
    'how-we-count-visits',
    'self-hosting-on-a-5-dollar-server',
    'duckdb-for-web-analytics',
    'gdpr-and-analytics',
    'bounce-rate-is-not-a-kpi',
    'utm-tags-done-right',
    'ai-assistants-as-a-traffic-source',
    'web-vitals-in-practice',
    'our-first-year',
    'tracking-spa-navigation',
    'the-cost-of-a-pageview',
    'write-ahead-logs-for-humans',
    'release-1-0',
    'migrating-from-plausible',
    'migrating-from-matomo',
    'server-side-events',
    'counting-without-cookies',
    'designing-a-dashboard',
  ],
  10,
);
const DOCS = longTail(
  '/docs',
  [
    'install',
    'docker',
    'tracker',
    'api',
    'configuration',
    'proxy',
    'events',
    'goals',
    'upgrading',
    'backups',
    'geo',
    'faq',
  ],
  7,
);

const PRODUCT: Weighted<string>[] = [
  ['/', 10],
  ['/pricing', 6],
  ['/features', 4],
  ['/demo', 2],
  ['/compare/google-analytics', 1.5],
  ['/compare/plausible', 1],
  ['/integrations', 1],
];

/** Landing pages by what the source links to. */
export const LANDING = {
  home: picker<string>([['/', 20], ['/pricing', 2], ['/blog', 1], ...DOCS.slice(0, 3)]),
  content: picker<string>([...BLOG, ...DOCS, ['/', 4], ['/blog', 1]]),
  product: picker<string>([...PRODUCT, ...DOCS.slice(0, 4)]),
};

/** The page after the one a reader is on. */
export const NEXT_PAGE = picker<string>([
  ...PRODUCT,
  ['/signup', 4],
  ['/login', 2],
  ['/blog', 2],
  ['/docs', 2],
  ['/about', 1],
  ['/changelog', 1],
  ['/contact', 0.6],
  ['/careers', 0.3],
  ...BLOG.map(([p, w]) => [p, w / 3] as const),
  ...DOCS.map(([p, w]) => [p, w / 2] as const),
]);

/** A place: country with the regions and cities stored when city recording is on. */
export interface Place {
  country: string | null;
  region: string | null;
  city: string | null;
  language: string;
}

const place = (country: string, region: string, city: string, language: string): Place => ({
  country,
  region,
  city,
  language,
});

/** Visitors of a German-run product with a global audience. */
export const PLACES = picker<Place>([
  [place('DE', 'Berlin', 'Berlin', 'de-DE'), 8],
  [place('DE', 'Bavaria', 'Munich', 'de-DE'), 6],
  [place('DE', 'Hamburg', 'Hamburg', 'de-DE'), 4],
  [place('DE', 'North Rhine-Westphalia', 'Cologne', 'de-DE'), 5],
  [place('DE', 'Hesse', 'Frankfurt am Main', 'en-US'), 3],
  [place('US', 'California', 'San Francisco', 'en-US'), 6],
  [place('US', 'New York', 'New York', 'en-US'), 5],
  [place('US', 'Texas', 'Austin', 'en-US'), 3],
  [place('US', 'Washington', 'Seattle', 'en-US'), 3],
  [place('GB', 'England', 'London', 'en-GB'), 6],
  [place('GB', 'Scotland', 'Edinburgh', 'en-GB'), 1],
  [place('FR', 'Île-de-France', 'Paris', 'fr-FR'), 4],
  [place('NL', 'North Holland', 'Amsterdam', 'nl-NL'), 4],
  [place('AT', 'Vienna', 'Vienna', 'de-AT'), 3],
  [place('CH', 'Zurich', 'Zurich', 'de-CH'), 3],
  [place('PL', 'Mazovia', 'Warsaw', 'pl-PL'), 2],
  [place('ES', 'Madrid', 'Madrid', 'es-ES'), 2],
  [place('IT', 'Lombardy', 'Milan', 'it-IT'), 2],
  [place('SE', 'Stockholm', 'Stockholm', 'sv-SE'), 2],
  [place('IN', 'Karnataka', 'Bengaluru', 'en-IN'), 4],
  [place('CA', 'Ontario', 'Toronto', 'en-CA'), 2.5],
  [place('BR', 'São Paulo', 'São Paulo', 'pt-BR'), 2],
  [place('JP', 'Tokyo', 'Tokyo', 'ja-JP'), 1.5],
  [place('AU', 'New South Wales', 'Sydney', 'en-AU'), 1.5],
  [place('CZ', 'Prague', 'Prague', 'cs-CZ'), 1],
  [place('UA', 'Kyiv City', 'Kyiv', 'uk-UA'), 1],
  [{ country: null, region: null, city: null, language: 'en-US' }, 1.5],
]);

/** What a visitor's browser reports: device, browser, OS, versions and a screen size. */
export interface Client {
  device: Device;
  browser: string;
  browserVersion: string;
  os: string;
  osVersion: string | null;
  screenW: number;
  screenH: number;
}

const client = (
  device: Device,
  browser: string,
  browserVersion: string,
  os: string,
  osVersion: string | null,
  screen: readonly [number, number],
): Client => ({ device, browser, browserVersion, os, osVersion, screenW: screen[0], screenH: screen[1] });

const FHD = [1920, 1080] as const;
const MAC = [1512, 982] as const;
const LAPTOP = [1536, 864] as const;
const IPHONE = [393, 852] as const;
const PIXEL = [412, 915] as const;
const IPAD = [820, 1180] as const;

export const CLIENTS = picker<Client>([
  [client('desktop', 'Chrome', '131', 'Windows', '10', FHD), 16],
  [client('desktop', 'Chrome', '131', 'Windows', '10', LAPTOP), 8],
  [client('desktop', 'Chrome', '131', 'macOS', '10.15', MAC), 9],
  [client('desktop', 'Safari', '18', 'macOS', '10.15', MAC), 6],
  [client('desktop', 'Firefox', '133', 'Windows', '10', FHD), 3.5],
  [client('desktop', 'Firefox', '133', 'Linux', null, FHD), 3],
  [client('desktop', 'Edge', '131', 'Windows', '10', LAPTOP), 6],
  [client('desktop', 'Chrome', '131', 'Linux', null, FHD), 2.5],
  [client('desktop', 'Chrome', '131', 'ChromeOS', '16093', LAPTOP), 0.8],
  [client('desktop', 'Opera', '115', 'Windows', '10', FHD), 0.7],
  [client('desktop', 'Brave', '131', 'macOS', '10.15', MAC), 0.5],
  [client('mobile', 'Safari', '18', 'iOS', '18.1', IPHONE), 17],
  [client('mobile', 'Chrome', '131', 'Android', '14', PIXEL), 15],
  [client('mobile', 'Samsung Internet', '26', 'Android', '14', PIXEL), 3],
  [client('mobile', 'Chrome', '131', 'iOS', '18.1', IPHONE), 2],
  [client('mobile', 'Firefox', '133', 'Android', '14', PIXEL), 0.7],
  [client('tablet', 'Safari', '18', 'iOS', '18.1', IPAD), 2.5],
  [client('tablet', 'Chrome', '131', 'Android', '13', [800, 1280]), 0.8],
]);

/** Relative traffic by local hour of day (0-23): quiet nights, a working-day plateau. */
export const HOURS = picker<number>(
  [
    1.2, 0.8, 0.6, 0.5, 0.5, 0.7, 1.2, 2.2, 3.6, 4.6, 5.2, 5.4, 5.0, 5.2, 5.4, 5.3, 5.0, 4.5, 3.9, 3.6, 3.5,
    3.2, 2.6, 1.8,
  ].map((w, hour) => [hour, w] as const),
);

/** Relative traffic by weekday, Sunday first (Date.getUTCDay order). */
export const WEEKDAY_FACTOR = [0.56, 1.04, 1.08, 1.06, 1.02, 0.9, 0.6] as const;
