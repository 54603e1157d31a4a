import { addDays, hourSlots, localDate, startOfDay } from '../support/zones.ts';
import type { PlannedEvent } from './script.ts';
import { identityOf, personOf } from './script.ts';

/**
 * The true numbers of the scripted visitors, from the script alone: a tiny model of the visit
 * rules in apps/query/src/engine/README.md. Pageviews and custom events are activity; more than
 * 30 minutes between one person's activities starts a new visit; the first pageview decides
 * channel, referrer, campaign, entry page, device, browser, OS and language; the last pageview is
 * the exit; one pageview and no custom event is a bounce; engagement events join the visit in progress (up to
 * 30 minutes after its last activity) and only lengthen it. A visit counts on the day and in the
 * hour it starts.
 *
 * Event times are known within the send: the gateway stamps its receive time, which lies between
 * the moment the request left and the moment the 202 came back. Counts are exact because the
 * script keeps every event far from hour starts and every gap far from 30 minutes; durations are
 * checked against the bounds this leaves (`Bounds`).
 */

/** A planned event as sent: its real time lies in [lo, hi]. */
export interface SentEvent extends PlannedEvent {
  /** the event id sent as `i` */
  id: string;
  lo: number;
  hi: number;
}

export const DIMENSIONS = [
  'channel',
  'referrer',
  'entry_page',
  'exit_page',
  'campaign',
  'source',
  'medium',
  'term',
  'content',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'language',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Shown only with `deep=1`. */
export const DEEP: readonly Dimension[] = ['exit_page', 'term', 'content', 'region', 'city'];

export interface Visit {
  identity: string;
  startLo: number;
  /** bounds of the duration in ms */
  durLo: number;
  durHi: number;
  pageviews: SentEvent[];
  customEvents: SentEvent[];
  /** the `en` events that joined the visit */
  engagements: SentEvent[];
  attrs: Record<Dimension, string | null>;
}

const GAP = 30 * 60_000;

/**
 * The visits of one site's counted events. A person is their cookie, or for a cookieless site
 * their address and browser; their activity splits into visits at gaps of more than 30 minutes,
 * and each visit is the visitor of its first event: a cookieless visit in progress at midnight
 * stays one visit of the day it began, and the person is a new visitor at their next visit.
 */
export function visitsOf(events: readonly SentEvent[]): Visit[] {
  const byPerson = new Map<string, SentEvent[]>();
  for (const e of events) {
    if (!e.counted) continue;
    const key = personOf(e);
    byPerson.set(key, [...(byPerson.get(key) ?? []), e]);
  }
  const visits: Visit[] = [];
  for (const list of byPerson.values()) {
    list.sort((a, b) => a.lo - b.lo);
    const groups: SentEvent[][] = [];
    let lastActivity = Number.NEGATIVE_INFINITY;
    for (const e of list) {
      if (e.kind === 'en' || e.kind === 'vt') {
        // joins the visit in progress, or none when more than 30 minutes after its last activity
        if (e.lo - lastActivity <= GAP) groups.at(-1)?.push(e);
        continue;
      }
      if (e.lo - lastActivity > GAP) groups.push([]);
      groups.at(-1)?.push(e);
      lastActivity = e.lo;
    }
    for (const group of groups) {
      const first = group[0] as SentEvent;
      visits.push(visitOf(identityOf({ ...first, at: first.lo }), group));
    }
  }
  return visits;
}

function visitOf(identity: string, events: SentEvent[]): Visit {
  const activity = events.filter((e) => e.kind === 'pv' || e.kind === 'ev');
  const pageviews = activity.filter((e) => e.kind === 'pv');
  const first = (pageviews[0] ?? activity[0]) as SentEvent;
  const start = activity[0] as SentEvent;
  const endLo = Math.max(...events.map((e) => e.lo));
  const endHi = Math.max(...events.map((e) => e.hi));
  const browser = first.persona.browser;
  return {
    identity,
    startLo: start.lo,
    durLo: Math.max(0, endLo - start.hi),
    durHi: endHi - start.lo,
    pageviews,
    customEvents: activity.filter((e) => e.kind === 'ev'),
    engagements: events.filter((e) => e.kind === 'en'),
    attrs: {
      channel: first.source.channel,
      referrer: first.source.referrer,
      entry_page: pageviews[0]?.path ?? null,
      exit_page: pageviews.at(-1)?.path ?? null,
      campaign: first.source.campaign,
      source: first.source.source,
      medium: first.source.medium,
      term: first.source.term ?? null,
      content: first.source.content ?? null,
      // FOOTFALL_GEO=off: no place
      country: null,
      region: null,
      city: null,
      device: browser.device,
      browser: browser.browser,
      os: browser.os,
      language: first.persona.language,
    },
  };
}

/** `f=dim:value` as the model reads it; value null for `dim:`. */
export type ModelFilter = [dim: Dimension | 'page' | 'event', value: string | null];

export function matches(visit: Visit, filters: readonly ModelFilter[]): boolean {
  return filters.every(([dim, value]) => {
    if (dim === 'page') return visit.pageviews.some((e) => e.path === value);
    if (dim === 'event') return visit.customEvents.some((e) => e.name === value);
    return visit.attrs[dim] === value;
  });
}

/** Sums of a set of visits (or of the visits that viewed one page / had one event). */
export interface Group {
  value: string | null;
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  /** custom events, for the events breakdown */
  events: number;
  durLo: number;
  durHi: number;
}

export function group(value: string | null, visits: readonly Visit[], hits?: number): Group {
  return {
    value,
    visitors: new Set(visits.map((v) => v.identity)).size,
    visits: visits.length,
    pageviews: hits ?? visits.reduce((n, v) => n + v.pageviews.length, 0),
    bounces: visits.filter((v) => v.pageviews.length === 1 && v.customEvents.length === 0).length,
    events: hits ?? visits.reduce((n, v) => n + v.customEvents.length, 0),
    durLo: visits.reduce((n, v) => n + v.durLo, 0),
    durHi: visits.reduce((n, v) => n + v.durHi, 0),
  };
}

/** Visitors desc, then value in code unit order, visits without a value last. */
export function byVisitorsThenValue(a: Group, b: Group): number {
  if (a.visitors !== b.visitors) return b.visitors - a.visitors;
  if (a.value === b.value) return 0;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return a.value < b.value ? -1 : 1;
}

/** One group per value of a visit dimension, ordered and cut to `limit`. */
export function breakdown(visits: readonly Visit[], dim: Dimension, limit: number): Group[] {
  const by = new Map<string | null, Visit[]>();
  for (const v of visits) by.set(v.attrs[dim], [...(by.get(v.attrs[dim]) ?? []), v]);
  return [...by]
    .map(([value, list]) => group(value, list))
    .sort(byVisitorsThenValue)
    .slice(0, limit);
}

/** Pages (kind pv, by path) or custom events (kind ev, by name): hits, visits and visitors. */
export function hitBreakdown(visits: readonly Visit[], kind: 'pv' | 'ev', limit: number): Group[] {
  const by = new Map<string, { visits: Visit[]; hits: number }>();
  for (const v of visits) {
    const seen = new Set<string>();
    for (const e of kind === 'pv' ? v.pageviews : v.customEvents) {
      const key = (kind === 'pv' ? e.path : e.name) ?? '';
      const entry = by.get(key) ?? { visits: [], hits: 0 };
      entry.hits++;
      if (!seen.has(key)) entry.visits.push(v);
      seen.add(key);
      by.set(key, entry);
    }
  }
  return [...by]
    .map(([value, e]) => group(value, e.visits, e.hits))
    .sort(byVisitorsThenValue)
    .slice(0, limit);
}

/** A page's engagement in a report: means over the visits that reported engagement with it. */
export interface PageEngagement {
  scrollDepth: number | null;
  timeOnPage: number | null;
}

/**
 * The mean of each visit's deepest scroll of `path` (percent, rounded) and of its engaged time
 * there (seconds, rounded), over the visits among `visits` with `en` events of that page.
 */
export function pageEngagement(visits: readonly Visit[], path: string): PageEngagement {
  const depths: number[] = [];
  const times: number[] = [];
  for (const v of visits) {
    const on = v.engagements.filter((e) => e.path === path);
    if (on.length === 0) continue;
    const scrolls = on.flatMap((e) => (e.scroll === null ? [] : [e.scroll]));
    if (scrolls.length > 0) depths.push(Math.max(...scrolls));
    const ms = on.flatMap((e) => (e.engagedMs === null ? [] : [e.engagedMs]));
    if (ms.length > 0) times.push(ms.reduce((a, b) => a + b, 0));
  }
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
  return {
    scrollDepth: depths.length === 0 ? null : Math.round(mean(depths)),
    timeOnPage: times.length === 0 ? null : Math.round(mean(times) / 1000),
  };
}

/** Visits that start within local days `from`..`to`. */
export function inPeriod(visits: readonly Visit[], timeZone: string, from: string, to: string): Visit[] {
  const start = startOfDay(from, timeZone);
  const end = startOfDay(addDays(to, 1), timeZone);
  return visits.filter((v) => v.startLo >= start && v.startLo < end);
}

/** A chart bucket: label, first instant and its visits. */
export interface Slot {
  label: string;
  startMs: number;
  visits: Visit[];
}

export function chartSlots(
  visits: readonly Visit[],
  timeZone: string,
  from: string,
  to: string,
  bucket: 'hour' | 'day',
): Slot[] {
  if (bucket === 'hour') {
    return hourSlots(from, to, timeZone).map((s) => ({
      label: s.label,
      startMs: s.startMs,
      visits: visits.filter((v) => v.startLo >= s.startMs && v.startLo < s.endMs),
    }));
  }
  const slots: Slot[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) {
    slots.push({
      label: d,
      startMs: startOfDay(d, timeZone),
      visits: visits.filter((v) => localDate(v.startLo, timeZone) === d),
    });
  }
  return slots;
}
