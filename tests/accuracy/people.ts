/**
 * The cast of the scripted visitors: browsers (user agents with what ua-parser-js must make of
 * them), languages and ways in (landing query and referrer, with the channel, referrer and UTM
 * values CHANNELS.md says they give). Everything expected here is written by hand from the
 * rules, not computed by product code.
 */

export type Device = 'desktop' | 'mobile' | 'tablet';

export interface Browser {
  ua: string;
  browser: string;
  os: string;
  device: Device;
}

export const BROWSERS = {
  chromeWindows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    browser: 'Chrome',
    os: 'Windows',
    device: 'desktop',
  },
  safariIphone: {
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    browser: 'Safari',
    os: 'iOS',
    device: 'mobile',
  },
  firefoxMac: {
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0',
    browser: 'Firefox',
    os: 'macOS',
    device: 'desktop',
  },
  samsungAndroid: {
    ua: 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    browser: 'Samsung Internet',
    os: 'Android',
    device: 'mobile',
  },
  edgeWindows: {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    browser: 'Edge',
    os: 'Windows',
    device: 'desktop',
  },
  safariIpad: {
    ua: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    browser: 'Safari',
    os: 'iOS',
    device: 'tablet',
  },
  chromeAndroid: {
    ua: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    browser: 'Chrome',
    os: 'Android',
    device: 'mobile',
  },
  firefoxLinux: {
    ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    browser: 'Firefox',
    os: 'Linux',
    device: 'desktop',
  },
  chromeOs: {
    ua: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    browser: 'Chrome',
    os: 'ChromeOS',
    device: 'desktop',
  },
  googlebot: {
    ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    browser: 'bot',
    os: 'bot',
    device: 'desktop',
  },
} satisfies Record<string, Browser>;

/** A visitor: browser, `Accept-Language` (and the language it must give), address. */
export interface Persona {
  name: string;
  browser: Browser;
  acceptLanguage?: string;
  language: string | null;
  ip: string;
  /** cookie mode: a fresh `v` on every event (cookies blocked) instead of one per person */
  freshIdEachEvent?: boolean;
  /** extra request headers (DNT, Sec-GPC) */
  headers?: Record<string, string>;
}

/** What a landing must be recorded as. */
export interface Source {
  channel: string;
  referrer: string | null;
  source: string | null;
  medium: string | null;
  campaign: string | null;
  /** utm_term and utm_content (null when the landing has none) */
  term?: string | null;
  content?: string | null;
}

/** How a visit arrives: the query string of its first page and the referrer the browser sent. */
export interface Landing {
  query: string;
  referrer: string;
  expect: Source;
}

const none = { referrer: null, source: null, medium: null, campaign: null };

/** The source of every later pageview: an internal referrer, no tags. */
export const INTERNAL: Source = { channel: 'Direct', ...none };

export const LANDINGS = {
  direct: { query: '', referrer: '', expect: INTERNAL },
  google: {
    query: '',
    referrer: 'https://www.google.com/',
    expect: { channel: 'Organic Search', ...none, referrer: 'google.com' },
  },
  newsletter: {
    // a spreadsheet formula as campaign name: the CSV export must defuse it
    query: '?utm_source=newsletter&utm_medium=email&utm_campaign=%3DSUM(A1)',
    referrer: '',
    expect: { channel: 'Email', referrer: null, source: 'newsletter', medium: 'email', campaign: '=SUM(A1)' },
  },
  chatgpt: {
    query: '',
    referrer: 'https://chatgpt.com/',
    expect: { channel: 'AI Assistant', ...none, referrer: 'chatgpt.com' },
  },
  chatgptTagged: {
    query: '?utm_source=chatgpt.com',
    referrer: '',
    expect: { channel: 'AI Assistant', ...none, source: 'chatgpt.com' },
  },
  paidSocial: {
    query:
      '?utm_source=facebook&utm_medium=cpc&utm_campaign=spring,sale&utm_term=running+shoes&utm_content=video-ad',
    referrer: 'https://m.facebook.com/',
    expect: {
      channel: 'Paid Social',
      referrer: 'm.facebook.com',
      source: 'facebook',
      medium: 'cpc',
      campaign: 'spring,sale',
      term: 'running shoes',
      content: 'video-ad',
    },
  },
  hackerNews: {
    query: '',
    referrer: 'https://news.ycombinator.com/item?id=4242',
    expect: { channel: 'Organic Social', ...none, referrer: 'news.ycombinator.com' },
  },
  googleAd: {
    query: '?gclid=Cj0KCQiA4NWrBhD',
    referrer: 'https://www.google.com/',
    expect: { channel: 'Paid Search', ...none, referrer: 'google.com' },
  },
  blog: {
    query: '',
    referrer: 'https://someblog.example.net/2026/11/links',
    expect: { channel: 'Referral', ...none, referrer: 'someblog.example.net' },
  },
  gmail: {
    query: '',
    referrer: 'https://mail.google.com/',
    expect: { channel: 'Email', ...none, referrer: 'mail.google.com' },
  },
  tweet: {
    query: '?utm_source=twitter&utm_medium=social&utm_campaign=@launch',
    referrer: 'https://t.co/x1y2z3',
    expect: {
      channel: 'Organic Social',
      referrer: 't.co',
      source: 'twitter',
      medium: 'social',
      campaign: '@launch',
    },
  },
  productHunt: {
    // `ref` stands in for a missing utm_source
    query: '?ref=producthunt',
    referrer: '',
    expect: { channel: 'Organic Social', ...none, source: 'producthunt' },
  },
  gmailApp: {
    // the Gmail Android app sends its package as referrer
    query: '',
    referrer: 'android-app://com.google.android.gm/',
    expect: { channel: 'Email', ...none, referrer: 'com.google.android.gm' },
  },
  ownSubdomain: {
    // a subdomain of the site is the site itself: no referrer
    query: '',
    referrer: 'https://docs.{domain}/getting-started',
    expect: INTERNAL,
  },
} satisfies Record<string, Landing>;
