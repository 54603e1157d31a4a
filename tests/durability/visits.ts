import type { StoredEvent, StoredVisit } from './stored.ts';

const GAP_MS = 30 * 60 * 1000;

/** A visit as the documented rule makes it from the stored events. */
export interface ExpectedVisit {
  /** the visitor's `visitor_key` */
  visitor: string;
  startedAt: number;
  lastAt: number;
  pageviews: number;
  events: number;
  ids: string[];
}

/**
 * Rebuilds every visit from the stored events with the rule in apps/query/src/engine/README.md:
 * per visitor, pageviews and custom events sorted by time (then id); more than 30 minutes since
 * the previous one starts a new visit. Independent of the loader's SQL, so it checks it.
 */
export function expectedVisits(events: readonly StoredEvent[]): ExpectedVisit[] {
  const byVisitor = new Map<string, StoredEvent[]>();
  for (const e of events) {
    if (e.kind !== 'pv' && e.kind !== 'ev') continue;
    const list = byVisitor.get(e.visitorKey) ?? [];
    list.push(e);
    byVisitor.set(e.visitorKey, list);
  }
  const visits: ExpectedVisit[] = [];
  for (const [visitor, list] of byVisitor) {
    list.sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let current: ExpectedVisit | undefined;
    for (const e of list) {
      if (current === undefined || e.ts - current.lastAt > GAP_MS) {
        current = { visitor, startedAt: e.ts, lastAt: e.ts, pageviews: 0, events: 0, ids: [] };
        visits.push(current);
      }
      current.lastAt = e.ts;
      current.ids.push(e.id);
      if (e.kind === 'pv') current.pageviews++;
      else current.events++;
    }
  }
  return visits;
}

/**
 * What is wrong with the stored visits, compared with the ones the rule makes (empty when they
 * agree): a missing, extra or different visit, an event pointing at the wrong visit, or two
 * visits of one visitor that overlap or are closer than the 30-minute gap.
 */
export function visitProblems(events: readonly StoredEvent[], stored: readonly StoredVisit[]): string[] {
  const problems: string[] = [];
  const expected = expectedVisits(events);
  const key = (visitor: string, start: number) => `${visitor}@${new Date(start).toISOString()}`;
  const storedByKey = new Map<string, StoredVisit>();
  for (const v of stored) {
    const k = key(v.visitorKey, v.startedAt);
    if (storedByKey.has(k)) problems.push(`two stored visits start at ${k}`);
    storedByKey.set(k, v);
  }
  const eventById = new Map(events.map((e) => [e.id, e]));
  const matched = new Set<string>();
  for (const want of expected) {
    const k = key(want.visitor, want.startedAt);
    const got = storedByKey.get(k);
    if (got === undefined) {
      problems.push(`visit ${k} (${want.pageviews} pageviews) is not stored`);
      continue;
    }
    matched.add(k);
    if (got.lastAt !== want.lastAt || got.pageviews !== want.pageviews || got.events !== want.events) {
      problems.push(
        `visit ${k}: stored last ${got.lastAt}, ${got.pageviews} pageviews, ${got.events} events; ` +
          `its events say last ${want.lastAt}, ${want.pageviews} pageviews, ${want.events} events`,
      );
    }
    for (const id of want.ids) {
      const e = eventById.get(id)!;
      if (e.sessionId !== got.sessionId || e.visitStart !== want.startedAt)
        problems.push(
          `event ${id} points at visit ${e.sessionId} from ${e.visitStart}, not ${got.sessionId} of ${k}`,
        );
    }
  }
  for (const [k, v] of storedByKey) {
    if (!matched.has(k))
      problems.push(`stored visit ${k} (${v.pageviews} pageviews) has no events that make it`);
  }
  const byVisitor = new Map<string, StoredVisit[]>();
  for (const v of stored) byVisitor.set(v.visitorKey, [...(byVisitor.get(v.visitorKey) ?? []), v]);
  for (const [visitor, list] of byVisitor) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < list.length; i++) {
      if (list[i]!.startedAt - list[i - 1]!.lastAt <= GAP_MS)
        problems.push(
          `visits of ${visitor} starting ${list[i - 1]!.startedAt} and ${list[i]!.startedAt} overlap`,
        );
    }
  }
  return problems;
}
