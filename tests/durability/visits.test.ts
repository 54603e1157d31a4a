import { describe, expect, it } from 'vitest';
import type { StoredEvent, StoredVisit } from './stored.ts';
import { expectedVisits, visitProblems } from './visits.ts';

const MIN = 60_000;
const ev = (
  id: string,
  ts: number,
  kind = 'pv',
  sessionId: string | null = 's1',
  visitStart: number | null = 0,
) => ({ id, kind, visitorKey: 'v', ts, sessionId, visitStart }) satisfies StoredEvent;
const visit = (over: Partial<StoredVisit> = {}): StoredVisit => ({
  sessionId: 's1',
  visitorKey: 'v',
  startedAt: 0,
  lastAt: 30 * MIN,
  pageviews: 2,
  events: 1,
  ...over,
});

describe('the visit checker of the exactly-once test', () => {
  const events = [
    ev('a', 0),
    ev('b', 30 * MIN, 'ev'),
    ev('c', 30 * MIN),
    ev('d', 61 * MIN, 'pv', 's2', 61 * MIN),
  ];
  const stored = [
    visit(),
    visit({ sessionId: 's2', startedAt: 61 * MIN, lastAt: 61 * MIN, pageviews: 1, events: 0 }),
  ];

  it('splits visits after more than 30 minutes and keeps a gap of exactly 30 in one visit', () => {
    expect(expectedVisits(events).map((v) => [v.startedAt, v.pageviews, v.events])).toEqual([
      [0, 2, 1],
      [61 * MIN, 1, 0],
    ]);
  });

  it('finds nothing wrong with visits that follow the rule', () => {
    expect(visitProblems(events, stored)).toEqual([]);
  });

  it('reports a wrong pageview count, an event in the wrong visit, a missing and an overlapping visit', () => {
    expect(visitProblems(events, [visit({ pageviews: 3 }), stored[1]!])).toHaveLength(1);
    const moved = events.map((e) => (e.id === 'c' ? { ...e, sessionId: 's2' } : e));
    expect(visitProblems(moved, stored)[0]).toMatch(/event c points at visit s2/);
    expect(visitProblems(events, [stored[0]!])[0]).toMatch(/is not stored/);
    const overlapping = [...stored, visit({ sessionId: 's3', startedAt: 20 * MIN, lastAt: 40 * MIN })];
    expect(visitProblems(events, overlapping).join('\n')).toMatch(/has no events[\s\S]*overlap/);
  });
});
