import { BROWSERS, LANDINGS, type Landing, type Persona } from './people.ts';

export type Kind = 'pv' | 'ev' | 'en' | 'vt';

/** One event of a session, `min` minutes after its start. `raw` is the path as sent, if it differs. */
export interface Step {
  min: number;
  kind: Kind;
  path: string;
  raw?: string;
  /** `www.` in front of the site's domain */
  www?: boolean;
  /** sent from the landing page load: its query and referrer too (the first step always is) */
  landing?: true;
  name?: string;
  /** custom event properties */
  props?: Record<string, string | number | boolean>;
  engagedMs?: number;
  /** deepest scroll of an `en` event, percent */
  scroll?: number;
  /** Web Vitals of a `vt` event */
  vitals?: { lcp?: number; fcp?: number; inp?: number; ttfb?: number; cls?: number };
}

/**
 * Where a session starts: `midnight` minutes from the start of the site's report day (see
 * `reportDay`), or `spread`, a fraction of the whole 25-hour window.
 */
export type Place = { midnight: number } | { spread: number };

export interface Session {
  persona: Persona;
  landing: Landing;
  place: Place;
  steps: Step[];
  /** bots, Do Not Track and Global Privacy Control: answered 202 and not counted */
  counted?: false;
}

const p = (
  name: string,
  browser: keyof typeof BROWSERS,
  ip: string,
  acceptLanguage?: string,
  language: string | null = null,
): Persona => ({
  name,
  browser: BROWSERS[browser],
  ip,
  language,
  ...(acceptLanguage === undefined ? {} : { acceptLanguage }),
});

const alice = p('alice', 'chromeWindows', '203.0.113.10', 'en-US,en;q=0.9', 'en-US');
const kim = p('kim', 'chromeWindows', '198.51.100.130', 'en-US', 'en-US');

/**
 * The script. Every session lands on its first pageview (channel, referrer, UTM from the landing);
 * later pageviews come from the site itself. Times are minutes from the session's start.
 */
export const SESSIONS: Session[] = [
  // the day before the report day, just before its midnight
  {
    persona: alice,
    landing: LANDINGS.google,
    place: { midnight: -14 },
    steps: [
      { min: 0, kind: 'pv', path: '/' },
      { min: 1, kind: 'vt', path: '/', vitals: { lcp: 2400, fcp: 1200, ttfb: 300, inp: 80, cls: 0.02 } },
      { min: 2, kind: 'pv', path: '/pricing' },
      { min: 3, kind: 'ev', path: '/pricing', name: 'Signup' },
      { min: 4, kind: 'pv', path: '/pricing', raw: '/pricing/' },
      // two engagement reports of one page in one visit: their time adds up, the deeper scroll counts
      { min: 5, kind: 'en', path: '/pricing', engagedMs: 12_000, scroll: 70 },
      { min: 6, kind: 'en', path: '/pricing', engagedMs: 45_000, scroll: 95 },
    ],
  },
  {
    persona: p('ivan', 'chromeOs', '203.0.113.100', 'en-US', 'en-US'),
    landing: LANDINGS.gmail,
    place: { midnight: -10 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
  },
  // across midnight: one visit, with a cookie or without (the cookieless visit keeps the day
  // before's hash while it goes on; the person is a new visitor at their next visit)
  {
    persona: p('night', 'firefoxMac', '198.51.100.150', 'en-GB,en;q=0.7', 'en-GB'),
    landing: LANDINGS.blog,
    place: { midnight: -6 },
    steps: [
      { min: 0, kind: 'pv', path: '/blog' },
      { min: 1, kind: 'vt', path: '/blog', vitals: { lcp: 4200, inp: 350, cls: 0.3 } },
      { min: 3, kind: 'pv', path: '/blog/post-1' },
      { min: 8, kind: 'pv', path: '/blog/post-2' },
      // after midnight, engagement of the visit that began the day before
      { min: 9, kind: 'en', path: '/blog/post-2', engagedMs: 30_000, scroll: 55 },
      { min: 11, kind: 'pv', path: '/pricing' },
    ],
  },
  // the report day, just after its midnight
  {
    persona: p('bob', 'safariIphone', '198.51.100.20', 'de-DE,de;q=0.9,en;q=0.8', 'de-DE'),
    landing: LANDINGS.newsletter,
    place: { midnight: 1 },
    steps: [
      { min: 0, kind: 'pv', path: '/blog/post-1' },
      { min: 1, kind: 'en', path: '/blog/post-1', engagedMs: 20_000, scroll: 100 },
    ],
  },
  {
    persona: p('erin', 'edgeWindows', '198.51.100.50', 'ja,en;q=0.5', 'ja'),
    landing: LANDINGS.hackerNews,
    place: { midnight: 3 },
    steps: [{ min: 0, kind: 'pv', path: '/blog/post-1' }],
  },
  {
    persona: p('frank', 'safariIpad', '203.0.113.60'),
    landing: LANDINGS.googleAd,
    place: { midnight: 4 },
    steps: [
      { min: 0, kind: 'pv', path: '/' },
      { min: 0.5, kind: 'vt', path: '/', vitals: { lcp: 1200, fcp: 900, ttfb: 900 } },
      { min: 1, kind: 'pv', path: '/features' },
    ],
  },
  {
    persona: p('kai', 'chromeWindows', '203.0.113.120', 'en-US,en;q=0.9', 'en-US'),
    landing: LANDINGS.tweet,
    place: { midnight: 6 },
    steps: [{ min: 0, kind: 'pv', path: '/features' }],
  },
  {
    persona: { ...p('dnt', 'chromeWindows', '203.0.113.170', 'en-US', 'en-US'), headers: { DNT: '1' } },
    landing: LANDINGS.direct,
    place: { midnight: 7 },
    steps: [{ min: 0, kind: 'pv', path: '/pricing' }],
    counted: false,
  },
  // one address, two browsers: two people, also without cookies
  {
    persona: kim,
    landing: LANDINGS.direct,
    place: { midnight: 8 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
  },
  {
    persona: { ...kim, name: 'lee', browser: BROWSERS.firefoxLinux },
    landing: LANDINGS.direct,
    place: { midnight: 8.5 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
  },
  // spread over the whole 25 hours
  {
    persona: p('carol', 'firefoxMac', '2001:db8::30', 'fr', 'fr'),
    landing: LANDINGS.chatgpt,
    place: { spread: 0.1 },
    steps: [
      { min: 0, kind: 'pv', path: '/docs' },
      { min: 2, kind: 'vt', path: '/docs', vitals: { lcp: 3100, fcp: 2000, inp: 210, cls: 0.12 } },
      { min: 5, kind: 'pv', path: '/docs/install' },
      // 20 minutes later: still the same visit
      { min: 25, kind: 'pv', path: '/pricing' },
    ],
  },
  {
    persona: p('dave', 'samsungAndroid', '203.0.113.40', 'pt-br', 'pt-BR'),
    landing: LANDINGS.paidSocial,
    place: { spread: 0.2 },
    steps: [
      { min: 0, kind: 'pv', path: '/' },
      // back after 45 minutes: a second visit, from the site itself (Direct)
      { min: 45, kind: 'pv', path: '/pricing' },
      { min: 47, kind: 'pv', path: '/checkout' },
      { min: 48, kind: 'ev', path: '/checkout', name: 'Purchase' },
    ],
  },
  {
    persona: alice,
    landing: LANDINGS.direct,
    place: { spread: 0.35 },
    steps: [
      { min: 0, kind: 'pv', path: '/docs' },
      { min: 1.5, kind: 'pv', path: '/docs/install' },
    ],
  },
  {
    persona: p('bot', 'googlebot', '66.249.66.1'),
    landing: LANDINGS.direct,
    place: { spread: 0.4 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
    counted: false,
  },
  {
    persona: { ...p('gpc', 'firefoxLinux', '203.0.113.180', 'de', 'de'), headers: { 'Sec-GPC': '1' } },
    landing: LANDINGS.google,
    place: { spread: 0.45 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
    counted: false,
  },
  {
    persona: p('probe', 'chromeWindows', '203.0.113.160', 'en-US', 'en-US'),
    landing: LANDINGS.direct,
    place: { spread: 0.52 },
    steps: [{ min: 0, kind: 'pv', path: '/probe' }],
  },
  {
    persona: p('grace', 'chromeAndroid', '198.51.100.70', 'en;q=0.5,es-MX;q=0.8', 'es-MX'),
    landing: LANDINGS.chatgptTagged,
    place: { spread: 0.6 },
    steps: [
      { min: 0, kind: 'pv', path: '/docs' },
      // 50 minutes later a custom event alone: a visit without pageviews
      { min: 50, kind: 'ev', path: '/docs', name: 'Outbound Link' },
    ],
  },
  {
    persona: p('heidi', 'firefoxLinux', '2001:db8::90', 'en-GB,en;q=0.7', 'en-GB'),
    landing: LANDINGS.blog,
    place: { spread: 0.75 },
    steps: [
      { min: 0, kind: 'pv', path: '/blog/post-2' },
      { min: 1, kind: 'vt', path: '/blog/post-2', vitals: { lcp: 2600, inp: 90, ttfb: 650 } },
      { min: 3, kind: 'pv', path: '/blog', raw: '/blog/' },
    ],
  },
  {
    persona: p('judy', 'chromeWindows', '198.51.100.110', 'en-US,en;q=0.9', 'en-US'),
    landing: LANDINGS.direct,
    place: { spread: 0.85 },
    steps: [
      { min: 0, kind: 'pv', path: '/about', raw: '/about/', www: true },
      // an engagement report 50 minutes later belongs to no visit
      { min: 50, kind: 'en', path: '/about', engagedMs: 5_000, scroll: 100 },
    ],
  },
  {
    persona: { ...p('mia', 'safariIphone', '203.0.113.140', 'en-US', 'en-US'), freshIdEachEvent: true },
    landing: LANDINGS.chatgpt,
    place: { spread: 0.9 },
    steps: [
      { min: 0, kind: 'pv', path: '/' },
      { min: 1, kind: 'pv', path: '/pricing' },
      { min: 2, kind: 'pv', path: '/checkout' },
    ],
  },
  {
    persona: p('rosa', 'safariIpad', '198.51.100.210', 'fr-FR,fr;q=0.9', 'fr-FR'),
    landing: LANDINGS.google,
    place: { spread: 0.72 },
    steps: [
      // one pageview and a signup: the visit interacted, so it is not a bounce
      { min: 0, kind: 'pv', path: '/signup' },
      { min: 2, kind: 'ev', path: '/signup', name: 'Signup' },
    ],
  },
  {
    persona: p('omar', 'edgeWindows', '203.0.113.190', 'nl-NL,nl;q=0.9', 'nl-NL'),
    landing: LANDINGS.productHunt,
    place: { spread: 0.15 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
  },
  {
    persona: p('pia', 'chromeAndroid', '198.51.100.190', 'it-IT', 'it-IT'),
    landing: LANDINGS.gmailApp,
    place: { spread: 0.28 },
    steps: [
      { min: 0, kind: 'pv', path: '/pricing' },
      { min: 0.5, kind: 'vt', path: '/pricing', vitals: { lcp: 1800, inp: 120, cls: 0.05 } },
      { min: 4, kind: 'en', path: '/pricing', engagedMs: 180_000, scroll: 35 },
    ],
  },
  {
    persona: p('quinn', 'firefoxMac', '2001:db8::77', 'sv-SE', 'sv-SE'),
    landing: LANDINGS.ownSubdomain,
    place: { spread: 0.66 },
    steps: [
      // a custom event reaches the gateway before the pageview that came with it: the
      // visit starts with the event, its channel and entry page still come from the pageview
      { min: 0, kind: 'ev', path: '/docs', name: 'Video Play', props: { video: 'intro', seconds: 12 } },
      { min: 0.5, kind: 'pv', path: '/docs', landing: true },
      { min: 2, kind: 'pv', path: '/pricing' },
    ],
  },
];
