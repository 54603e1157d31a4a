import { localDate } from '../support/zones.ts';
import type { SentEvent, Visit } from './model.ts';
import { ACCURACY_FUNNELS, ACCURACY_GOALS } from './stack.ts';

type Match = { kind: 'page' | 'event'; match: string };

/** Whether an event of a visit reaches a goal or a step: a page path (with * as anything) or an event name. */
function matches(m: Match, e: SentEvent, kind: 'pv' | 'ev'): boolean {
  if (m.kind === 'page') {
    if (kind !== 'pv') return false;
    const pattern = new RegExp(
      `^${m.match
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return pattern.test(e.path);
  }
  return kind === 'ev' && e.name === m.match;
}

/** A visit's pageviews and custom events in time order, each with its kind. */
const activity = (v: Visit) =>
  [
    ...v.pageviews.map((e) => ({ e, kind: 'pv' as const })),
    ...v.customEvents.map((e) => ({ e, kind: 'ev' as const })),
  ].sort((a, b) => a.e.lo - b.e.lo);

/** The visits that started on the days from..to in the zone. */
function inPeriod(visits: readonly Visit[], from: string, to: string, timeZone: string): Visit[] {
  return visits.filter((v) => {
    const day = localDate(v.startLo, timeZone);
    return day >= from && day <= to;
  });
}

/** Each goal's visitors, visits and conversions among the period's visits, as the report answers them. */
export function expectedGoals(visits: readonly Visit[], from: string, to: string, timeZone: string) {
  return goalsOf(inPeriod(visits, from, to, timeZone));
}

/** Each goal's visitors, visits and conversions among these visits (the period's, filtered). */
export function goalsOf(period: readonly Visit[]) {
  return ACCURACY_GOALS.map((g) => {
    const who = new Set<string>();
    let reached = 0;
    let conversions = 0;
    for (const v of period) {
      const hits = activity(v).filter(({ e, kind }) => matches(g, e, kind)).length;
      if (hits === 0) continue;
      who.add(v.identity);
      reached += 1;
      conversions += hits;
    }
    return { name: g.name, visitors: who.size, visits: reached, conversions };
  });
}

/**
 * Each funnel's visitors per step: within a visit, or across a visitor's visits of the period
 * within `withinDays` of the first step; each step the earliest matching event after the one
 * before.
 */
export function expectedFunnels(visits: readonly Visit[], from: string, to: string, timeZone: string) {
  const period = inPeriod(visits, from, to, timeZone);
  return ACCURACY_FUNNELS.map((f) => {
    const groups = new Map<string, { identity: string; events: ReturnType<typeof activity> }>();
    for (const v of period) {
      const key = f.withinDays === null ? `${v.identity}@${v.startLo}` : v.identity;
      const g = groups.get(key) ?? { identity: v.identity, events: [] };
      g.events.push(...activity(v));
      groups.set(key, g);
    }
    const reached = f.steps.map(() => new Set<string>());
    for (const g of groups.values()) {
      const events = g.events.sort((a, b) => a.e.lo - b.e.lo);
      let at = -1;
      let first = 0;
      for (const [i, step] of f.steps.entries()) {
        const next = events.findIndex(
          (x, k) =>
            k > at &&
            matches(step, x.e, x.kind) &&
            (i === 0 || f.withinDays === null || x.e.lo - first <= f.withinDays * 86_400_000),
        );
        if (next < 0) break;
        if (i === 0) first = events[next]!.e.lo;
        at = next;
        reached[i]!.add(g.identity);
      }
    }
    return { name: f.name, steps: reached.map((s) => s.size) };
  });
}
