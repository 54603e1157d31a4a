/**
 * A deterministic stream of demo visits as enriched WAL events: a weekday and hour-of-day cycle,
 * slow growth, a few launch-day spikes, returning visitors, visits of one to many pageviews
 * (about 45 % bounce), engagement and vitals events, and some custom events. The same seed, size
 * and end time always give the same records.
 */
import type { WalEvent } from '@footfall/schema';
import {
  CLIENTS,
  type Client,
  HOURS,
  LANDING,
  NEXT_PAGE,
  PLACES,
  type Place,
  picker,
  SOURCES,
  type Source,
  WEEKDAY_FACTOR,
} from './demo-model.ts';
import { rng } from './varied-events.ts';

export interface TrafficOptions {
  /** about this many events in total (within a percent or so) */
  events: number;
  siteId: string;
  /** the page host (the site's domain; /docs pages are on its `docs.` subdomain) */
  host: string;
  /** local days and hours follow this zone */
  timeZone: string;
  /** the newest event is before this instant (unix ms) */
  endMs: number;
  /** days of history before endMs */
  days: number;
  seed: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BOUNCE = 0.45;
const RETURNING = 0.3;
const RING = 50_000;
const sources = picker(SOURCES);
const hn: Source = {
  channel: 'Organic Social',
  referrerHost: 'news.ycombinator.com',
  referrerPath: '/item',
  landing: 'content',
};

interface Visitor {
  id: string;
  idMode: 'cookie' | 'hash';
  client: Client;
  place: Place;
}

/** The UTC offset of a zone at an instant, in ms. */
function offsetMs(timeZone: string, at: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name ?? '');
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * HOUR + Number(m[3]) * 60_000) : 0;
}

/** The first instant of a local day (`dayMs` = that date's UTC midnight). */
function localMidnight(timeZone: string, dayMs: number): number {
  const guess = dayMs - offsetMs(timeZone, dayMs);
  return dayMs - offsetMs(timeZone, guess);
}

/** Builds one visit's events; `r` drives every choice. */
class VisitMaker {
  readonly #r: () => number;
  readonly #o: TrafficOptions;
  #ring: Visitor[] = [];
  #ringNext = 0;

  constructor(o: TrafficOptions, r: () => number) {
    this.#o = o;
    this.#r = r;
  }

  #id(words: number): string {
    let s = '';
    for (let i = 0; i < words; i++) s += (2 ** 32 + Math.floor(this.#r() * 2 ** 32)).toString(36);
    return s;
  }

  #visitor(): { visitor: Visitor; returning: boolean } {
    const r = this.#r;
    if (this.#ring.length > 0 && r() < RETURNING) {
      // recent visitors come back more often than old ones
      const back = Math.floor(r() ** 2 * this.#ring.length);
      const at = (this.#ringNext - 1 - back + this.#ring.length * 2) % this.#ring.length;
      return { visitor: this.#ring[at]!, returning: true };
    }
    const cookieless = r() < 0.1;
    const visitor: Visitor = {
      id: this.#id(cookieless ? 3 : 4).slice(0, cookieless ? 22 : 28),
      idMode: cookieless ? 'hash' : 'cookie',
      client: CLIENTS.pick(r()),
      place: PLACES.pick(r()),
    };
    // a cookieless id is a daily hash: that person comes back under another id
    if (!cookieless) {
      if (this.#ring.length < RING) this.#ring.push(visitor);
      else this.#ring[this.#ringNext] = visitor;
      this.#ringNext = (this.#ringNext + 1) % RING;
    }
    return { visitor, returning: false };
  }

  /** The events of a visit starting at `start`, in time order. */
  visit(start: number, spike: boolean): WalEvent[] {
    const r = this.#r;
    const { visitor, returning } = this.#visitor();
    let source = returning && r() < 0.65 ? DIRECT : sources.pick(r());
    if (spike && !returning && r() < 0.5) source = hn;
    const month = new Date(start).toISOString().slice(0, 7);
    const pages = r() < BOUNCE ? 1 : Math.min(30, 2 + Math.floor(Math.log(1 - r()) / Math.log(0.55)));
    const out: WalEvent[] = [];
    let t = start;
    let path = spike && source === hn ? '/blog/release-1-0' : LANDING[source.landing].pick(r());
    for (let n = 0; n < pages; n++) {
      if (n > 0) {
        const next = NEXT_PAGE.pick(r());
        path = next === path ? NEXT_PAGE.pick(r()) : next;
      }
      const page = this.#base(visitor, n === 0 ? source : DIRECT, path, t, month);
      out.push({ ...page, kind: 'pv', id: this.#id(3) });
      // dwell time: log-normal around 35 s, from 2 s to 20 min
      const dwell = Math.min(20 * 60_000, Math.max(2000, 35_000 * Math.exp(1.1 * gauss(r))));
      if (r() < 0.2) {
        const lcp = Math.round(900 + 2600 * r() ** 2);
        out.push({
          ...page,
          kind: 'vt',
          id: this.#id(3),
          at: t + 2000 + Math.floor(3000 * r()),
          lcp,
          fcp: Math.round(lcp * (0.5 + 0.3 * r())),
          ttfb: Math.round(80 + 400 * r() ** 2),
          inp: Math.round(40 + 300 * r() ** 3),
          cls: Math.round(r() ** 3 * 300) / 1000,
        });
      }
      const custom = this.#custom(path);
      if (custom)
        out.push({ ...page, ...custom, kind: 'ev', id: this.#id(3), at: t + Math.floor(dwell * 0.6) });
      if (r() < 0.7) {
        out.push({
          ...page,
          kind: 'en',
          id: this.#id(3),
          at: t + Math.floor(dwell),
          engagedMs: Math.floor(dwell * (0.5 + 0.4 * r())),
          scroll: Math.min(100, Math.floor(r() * 110)),
        });
      }
      t += Math.floor(dwell) + 500 + Math.floor(r() * 4000);
    }
    return out.sort((a, b) => a.at - b.at);
  }

  #custom(path: string): Pick<WalEvent, 'name' | 'props'> | null {
    const r = this.#r;
    if (path === '/signup' && r() < 0.35)
      return { name: 'Signup', props: { plan: r() < 0.8 ? 'free' : 'pro' } };
    if (path === '/demo' && r() < 0.12) return { name: 'Demo Request' };
    if (path === '/docs/install' && r() < 0.15) return { name: 'Download', props: { format: 'docker' } };
    if (path.startsWith('/blog/') && r() < 0.015) return { name: 'Newsletter Signup' };
    if (r() < 0.03) return { name: 'Outbound Link', props: { url: 'https://github.com/footfall/footfall' } };
    return null;
  }

  // Absent values are undefined: the WAL encoder leaves them out with one JSON.stringify.
  #base(v: Visitor, s: Source, path: string, at: number, month: string): Omit<WalEvent, 'kind' | 'id'> {
    return {
      t: 'event',
      site: this.#o.siteId,
      at,
      name: undefined,
      props: undefined,
      // the documentation lives on its own subdomain (the Hostnames tab has two rows)
      host: path.startsWith('/docs') ? `docs.${this.#o.host}` : this.#o.host,
      path,
      visitor: v.id,
      idMode: v.idMode,
      referrerHost: s.referrerHost ?? undefined,
      referrerPath: s.referrerPath ?? undefined,
      channel: s.channel,
      assistant: s.assistant ?? undefined,
      utmSource: s.utmSource ?? undefined,
      utmMedium: s.utmMedium ?? undefined,
      utmCampaign: s.utmCampaign?.replace('@month', month) ?? undefined,
      utmTerm: undefined,
      utmContent: undefined,
      clickId: s.clickId ?? undefined,
      browser: v.client.browser,
      browserVersion: v.client.browserVersion,
      os: v.client.os,
      osVersion: v.client.osVersion,
      device: v.client.device,
      language: v.place.language,
      country: v.place.country ?? undefined,
      region: v.place.region ?? undefined,
      city: undefined,
      screenW: v.client.screenW,
      screenH: v.client.screenH,
      engagedMs: undefined,
      scroll: undefined,
      lcp: undefined,
      fcp: undefined,
      inp: undefined,
      ttfb: undefined,
      cls: undefined,
    };
  }
}

const DIRECT: Source = { channel: 'Direct', referrerHost: null, referrerPath: null, landing: 'home' };

/** A standard normal draw (Box-Muller). */
function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** Mean events per visit of this model, measured on a side stream so the main one is unchanged. */
function eventsPerVisit(o: TrafficOptions): number {
  const maker = new VisitMaker(o, rng(o.seed ^ 0x5bd1e995));
  let events = 0;
  for (let i = 0; i < 20_000; i++) events += maker.visit(0, false).length;
  return events / 20_000;
}

/**
 * The demo events, oldest first, in chunks of about one local day. Visits that run past
 * midnight carry over into the next chunk so the whole stream stays in time order.
 */
export function* demoTraffic(o: TrafficOptions): Generator<WalEvent[]> {
  const r = rng(o.seed);
  const maker = new VisitMaker(o, r);
  const lastDay = Math.floor((o.endMs + offsetMs(o.timeZone, o.endMs)) / DAY) * DAY;
  const firstDay = lastDay - (o.days - 1) * DAY;
  const weights: number[] = [];
  const spikes = new Set<number>();
  for (let d = 0; d < o.days; d++) {
    const weekday = new Date(firstDay + d * DAY).getUTCDay();
    const growth = 0.7 + (0.5 * d) / o.days;
    if (r() < 0.012) spikes.add(d);
    weights.push(WEEKDAY_FACTOR[weekday]! * growth * (0.88 + 0.24 * r()) * (spikes.has(d) ? 3 : 1));
  }
  // today is only partly over
  const todayStart = localMidnight(o.timeZone, lastDay);
  weights[o.days - 1]! *= Math.max(0, (o.endMs - HOUR - todayStart) / DAY);
  const total = weights.reduce((a, b) => a + b, 0);
  const visits = o.events / eventsPerVisit(o);
  let carry: WalEvent[] = [];
  for (let d = 0; d < o.days; d++) {
    const start = localMidnight(o.timeZone, firstDay + d * DAY);
    const end = d === o.days - 1 ? o.endMs : localMidnight(o.timeZone, firstDay + (d + 1) * DAY);
    const n = Math.round((visits * weights[d]!) / total);
    const events = carry;
    for (let i = 0; i < n; i++) {
      let at = start + HOURS.pick(r()) * HOUR + Math.floor(r() * HOUR);
      if (at >= end - HOUR) at = start + Math.floor(r() * Math.max(1, end - HOUR - start));
      for (const e of maker.visit(at, spikes.has(d))) events.push(e);
    }
    events.sort((a, b) => a.at - b.at);
    const cut = d === o.days - 1 ? events.length : lowerBound(events, end);
    // events after the end of the last day are dropped: nothing is in the future
    yield events.slice(0, cut).filter((e) => e.at < o.endMs);
    carry = events.slice(cut);
  }
}

/** First index whose event is at or after `at`. */
function lowerBound(events: readonly WalEvent[], at: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.at < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
