import { localDate, nearHourStart, startOfDay } from '../support/zones.ts';
import { INTERNAL, type Persona, type Source } from './people.ts';
import { type Kind, SESSIONS, type Session } from './sessions.ts';

/** A site of the scripted run. */
export interface SiteSpec {
  id: string;
  domain: string;
  timezone: string;
  cookieless: boolean;
  /** for `/api/crawl` (robot requests reported by the site's server) */
  proxyKey: string;
}

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
  /** deepest scroll of an `en` event, percent */
  scroll: number | null;
  props: Record<string, string | number | boolean> | null;
  vitals: Record<string, number> | null;
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

/**
 * Whether the half hour before the report day's midnight is within the window, so the sessions
 * placed just before midnight fall on the day before. Always, except late on a 25-hour day
 * (the last half hour or so of a fall-back day), when the whole window is that one day.
 */
export function dayBeforeInReach(now: number, timeZone: string): boolean {
  return startOfDay(reportDay(now, timeZone), timeZone) - 30 * MINUTE >= now - WINDOW_MS;
}

/** Who an event belongs to, as the product must see it: the cookie, or address + browser + site day. */
export function identityOf(e: Pick<PlannedEvent, 'site' | 'persona' | 'cookieId' | 'at'>): string {
  if (!e.site.cookieless) return `cookie:${e.cookieId}`;
  return `hash:${e.persona.ip}|${e.persona.browser.ua}|${localDate(e.at, e.site.timezone)}`;
}

let idCounter = 0;
const cookieIdOf = (persona: Persona) =>
  persona.freshIdEachEvent ? `fresh-${persona.name}-${++idCounter}` : `vid-${persona.name}-2026`;

/** Who sent an event, whatever the day: the cookie, or address and browser on a cookieless site. */
export const personOf = (e: Pick<PlannedEvent, 'site' | 'persona' | 'cookieId'>): string =>
  e.site.cookieless ? `hash:${e.persona.ip}|${e.persona.browser.ua}` : `cookie:${e.cookieId}`;

/**
 * No two events of one person within 5 s of each other or within a minute of the 30-minute visit
 * gap (across midnight too: a cookieless visit in progress at midnight goes on).
 */
function gapsClear(events: PlannedEvent[]): boolean {
  const byIdentity = new Map<string, number[]>();
  for (const e of events) {
    const key = personOf(e);
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
    const fromLanding = i === 0 || step.landing === true;
    const event: PlannedEvent = {
      site,
      persona: session.persona,
      counted: session.counted !== false,
      kind: step.kind,
      at: Math.round(start + step.min * MINUTE),
      url: fromLanding ? `${page}${session.landing.query}` : page,
      referrer: fromLanding ? session.landing.referrer.replace('{domain}', site.domain) : previousPage,
      path: step.path,
      name: step.name ?? null,
      engagedMs: step.engagedMs ?? null,
      scroll: step.scroll ?? null,
      props: step.props ?? null,
      vitals: step.vitals ?? null,
      cookieId: cookieIdOf(session.persona),
      source: fromLanding ? session.landing.expect : INTERNAL,
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
