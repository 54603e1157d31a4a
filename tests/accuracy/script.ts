import { localDate, nearHourStart, startOfDay } from '../support/zones.ts';
import { BROWSERS, INTERNAL, LANDINGS, type Landing, type Persona, type Source } from './people.ts';

/** A site of the scripted run. */
export interface SiteSpec {
  id: string;
  domain: string;
  timezone: string;
  cookieless: boolean;
}

type Kind = 'pv' | 'ev' | 'en';

/** One event of a session, `min` minutes after its start. `raw` is the path as sent, if it differs. */
interface Step {
  min: number;
  kind: Kind;
  path: string;
  raw?: string;
  /** `www.` in front of the site's domain */
  www?: boolean;
  name?: string;
  engagedMs?: number;
}

/**
 * Where a session starts: `midnight` minutes from the start of the site's report day (see
 * `reportDay`), or `spread`, a fraction of the whole 25-hour window.
 */
type Place = { midnight: number } | { spread: number };

interface Session {
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
      { min: 2, kind: 'pv', path: '/pricing' },
      { min: 3, kind: 'ev', path: '/pricing', name: 'Signup' },
      { min: 4, kind: 'pv', path: '/pricing', raw: '/pricing/' },
      { min: 6, kind: 'en', path: '/pricing', engagedMs: 45_000 },
    ],
  },
  {
    persona: p('ivan', 'chromeOs', '203.0.113.100', 'en-US', 'en-US'),
    landing: LANDINGS.gmail,
    place: { midnight: -10 },
    steps: [{ min: 0, kind: 'pv', path: '/' }],
  },
  // across midnight: one visit with a cookie; two visitors when cookieless (the daily hash changes)
  {
    persona: p('night', 'firefoxMac', '198.51.100.150', 'en-GB,en;q=0.7', 'en-GB'),
    landing: LANDINGS.blog,
    place: { midnight: -6 },
    steps: [
      { min: 0, kind: 'pv', path: '/blog' },
      { min: 3, kind: 'pv', path: '/blog/post-1' },
      { min: 8, kind: 'pv', path: '/blog/post-2' },
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
      { min: 1, kind: 'en', path: '/blog/post-1', engagedMs: 20_000 },
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
      { min: 50, kind: 'en', path: '/about', engagedMs: 5_000 },
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
];

/** One event to send, with everything the model needs to know about it. */
export interface PlannedEvent {
  site: SiteSpec;
  persona: Persona;
  counted: boolean;
  kind: Kind;
  /** the intended event time; the real one is the receive time minus `a` */
  at: number;
  url: string;
  referrer: string;
  path: string;
  name: string | null;
  engagedMs: number | null;
  /** the cookie id sent as `v` (ignored by cookieless sites) */
  cookieId: string;
  source: Source;
}

const MINUTE = 60_000;
/** Events are kept this far from the start of a local hour, so that receive-time jitter cannot move them across. */
export const HOUR_GUARD_MS = 20_000;
/** Oldest event placed: 25 hours is the gateway's limit. */
export const WINDOW_MS = 24 * 60 * MINUTE + 45 * MINUTE;

/**
 * The local day a site's report is about: the day in progress 15 minutes ago. It has begun at
 * least 15 minutes before the script runs and, but for a 25-hour day, at most 24h15m before,
 * so both it and the day before it are within the 25 hours that events may be placed in.
 */
export function reportDay(now: number, timeZone: string): string {
  return localDate(now - 15 * MINUTE, timeZone);
}

/** Who an event belongs to, as the product must see it: the cookie, or address + browser + site day. */
export function identityOf(e: Pick<PlannedEvent, 'site' | 'persona' | 'cookieId' | 'at'>): string {
  if (!e.site.cookieless) return `cookie:${e.cookieId}`;
  return `hash:${e.persona.ip}|${e.persona.browser.ua}|${localDate(e.at, e.site.timezone)}`;
}

let idCounter = 0;
const cookieIdOf = (persona: Persona) =>
  persona.freshIdEachEvent ? `fresh-${persona.name}-${++idCounter}` : `vid-${persona.name}-2026`;

/** No two events of one person within 5 s of each other or within a minute of the 30-minute visit gap. */
function gapsClear(events: PlannedEvent[]): boolean {
  const byIdentity = new Map<string, number[]>();
  for (const e of events) {
    const key = identityOf(e);
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), e.at]);
  }
  for (const times of byIdentity.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) {
      const gap = (times[i] as number) - (times[i - 1] as number);
      if (gap < 5000 || Math.abs(gap - 30 * MINUTE) < MINUTE) return false;
    }
  }
  return true;
}

function eventsOf(session: Session, site: SiteSpec, start: number): PlannedEvent[] {
  let previousPage = '';
  return session.steps.map((step, i) => {
    const host = step.www ? `www.${site.domain}` : site.domain;
    const page = `https://${host}${step.raw ?? step.path}`;
    const first = i === 0;
    const event: PlannedEvent = {
      site,
      persona: session.persona,
      counted: session.counted !== false,
      kind: step.kind,
      at: Math.round(start + step.min * MINUTE),
      url: first ? `${page}${session.landing.query}` : page,
      referrer: first ? session.landing.referrer : previousPage,
      path: step.path,
      name: step.name ?? null,
      engagedMs: step.engagedMs ?? null,
      cookieId: cookieIdOf(session.persona),
      source: first ? session.landing.expect : INTERNAL,
    };
    if (step.kind === 'pv') previousPage = page;
    return event;
  });
}

/**
 * Places every session on one site, relative to `now`: inside the 25-hour window, away from the
 * start of any local hour, and with no gap of one person's events near 30 minutes, shifting a
 * session by 97 s steps until it fits. Throws when a session cannot be placed.
 */
export function planSite(site: SiteSpec, now: number): PlannedEvent[] {
  const lo = now - WINDOW_MS;
  const hi = now - MINUTE;
  const midnight = startOfDay(reportDay(now, site.timezone), site.timezone);
  const placed: PlannedEvent[] = [];
  for (const session of SESSIONS) {
    const span = Math.max(...session.steps.map((s) => s.min)) * MINUTE;
    const start =
      'midnight' in session.place
        ? midnight + session.place.midnight * MINUTE
        : lo + session.place.spread * (hi - lo - span);
    let fitted: PlannedEvent[] | undefined;
    for (let attempt = 0; attempt < 40 && !fitted; attempt++) {
      const candidate = eventsOf(session, site, start + attempt * 97_000);
      const ok =
        candidate.every(
          (e) => e.at >= lo && e.at <= hi && !nearHourStart(e.at, site.timezone, HOUR_GUARD_MS),
        ) && gapsClear([...placed, ...candidate]);
      if (ok) fitted = candidate;
    }
    if (!fitted) throw new Error(`cannot place ${session.persona.name} on ${site.domain}`);
    placed.push(...fitted);
  }
  return placed;
}
