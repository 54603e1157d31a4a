import { nearHourStart } from '../support/zones.ts';
import { type SentEvent, type Visit, visitsOf } from './model.ts';
import { BROWSERS } from './people.ts';
import {
  dayBeforeInReach,
  HOUR_GUARD_MS,
  type PlannedEvent,
  planSite,
  reportDay,
  type SiteSpec,
} from './script.ts';
import {
  type AccuracyEngine,
  type AccuracyStack,
  type SiteName,
  sendAll,
  startAccuracyStack,
  waitForTailer,
} from './stack.ts';

/** The sites that get the scripted visitors. */
export const SCRIPTED = ['kiritimati', 'losAngeles', 'utc'] as const;
export type ScriptedSite = (typeof SCRIPTED)[number];

/** Pages of the bulk site: more than the 1000 rows a breakdown may have. */
export const BULK_PAGES = 1005;

/** Everything a test needs after the run: the stack, what was sent and the true visits per site. */
export interface ScriptedRun {
  stack: AccuracyStack;
  /** the report day per site (local), see `reportDay` */
  day: Record<ScriptedSite, string>;
  /** false only late on a 25-hour day: then nothing can be placed on the day before (`dayBeforeInReach`) */
  dayBeforeInReach: Record<ScriptedSite, boolean>;
  sent: Record<ScriptedSite, SentEvent[]>;
  visits: Record<ScriptedSite, Visit[]>;
  bulkPaths: string[];
}

/** The events in a fixed pseudo-random order (a seeded Fisher-Yates shuffle). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 20261122;
  // mulberry32: a small generator whose sequence is the same on every run
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function bulkEvents(site: SiteSpec, now: number): PlannedEvent[] {
  let at = now - 90 * 60_000;
  while (nearHourStart(at, site.timezone, 60_000)) at += 97_000;
  return Array.from({ length: BULK_PAGES }, (_, i) => {
    const path = `/p/${String(i).padStart(4, '0')}`;
    return {
      site,
      persona: {
        name: `bulk${i}`,
        browser: BROWSERS.firefoxLinux,
        language: null,
        ip: `10.1.${Math.floor(i / 250)}.${i % 250}`,
      },
      counted: true,
      kind: 'pv',
      at,
      url: `https://${site.domain}${path}`,
      referrer: '',
      path,
      name: null,
      engagedMs: null,
      scroll: null,
      props: null,
      vitals: null,
      cookieId: `bulk-visitor-${i}`,
      source: { channel: 'Direct', referrer: null, source: null, medium: null, campaign: null },
    };
  });
}

/**
 * Starts the stack, sends the script to the three scripted sites (and with `bulk` 1005 one-page
 * visits to the bulk site), and waits until the query service has applied them all.
 */
export async function scriptedRun(
  options: { bulk?: boolean; engine?: AccuracyEngine } = {},
): Promise<ScriptedRun> {
  const stack = await startAccuracyStack({ engine: options.engine ?? 'duckdb' });
  try {
    const now = Date.now();
    const planned = Object.fromEntries(
      SCRIPTED.map((name) => [name, planSite(stack.sites[name], now)]),
    ) as Record<ScriptedSite, PlannedEvent[]>;
    // Out of order and in two waves with the tailer applying the first before the second comes:
    // later events of a visit then land before, between or after what is already stored, as
    // with a tracker's queue that delivers late.
    const all = shuffled(SCRIPTED.flatMap((name) => planned[name]));
    const half = Math.ceil(all.length / 2);
    const first = await sendAll(stack.url, all.slice(0, half));
    await waitForTailer(stack);
    const bulk = options.bulk ? bulkEvents(stack.sites.bulk, now) : [];
    const second = await sendAll(stack.url, [...all.slice(half), ...bulk]);
    const sentAll = [...first, ...second];
    // Every fifth event again with its id and time, as a retry: stored once.
    const retried = await sendAll(
      stack.url,
      first.filter((_, i) => i % 5 === 0).map((e) => ({ ...e, at: e.lo })),
    );
    const slowest = Math.max(...[...sentAll, ...retried].map((e) => e.hi - e.lo));
    // Receive times lie in [lo, hi]; placement kept every event this far from an hour start.
    if (slowest >= HOUR_GUARD_MS) throw new Error(`a send took ${slowest} ms: event times are ambiguous`);
    await waitForTailer(stack);
    const bySite = (name: SiteName) => sentAll.filter((e) => e.site.id === stack.sites[name].id);
    const sent = Object.fromEntries(SCRIPTED.map((n) => [n, bySite(n)])) as Record<ScriptedSite, SentEvent[]>;
    return {
      stack,
      day: Object.fromEntries(SCRIPTED.map((n) => [n, reportDay(now, stack.sites[n].timezone)])) as Record<
        ScriptedSite,
        string
      >,
      dayBeforeInReach: Object.fromEntries(
        SCRIPTED.map((n) => [n, dayBeforeInReach(now, stack.sites[n].timezone)]),
      ) as Record<ScriptedSite, boolean>,
      sent,
      visits: Object.fromEntries(SCRIPTED.map((n) => [n, visitsOf(sent[n])])) as Record<
        ScriptedSite,
        Visit[]
      >,
      bulkPaths: bySite('bulk').map((e) => e.path),
    };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}
