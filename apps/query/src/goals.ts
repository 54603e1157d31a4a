import { type ControlDb, listGoals, type Site } from '@footfall/control';
import type { Engine, Filter, Period } from './engine/index.ts';

/** One goal in the report: what it is, and its conversions among the period's visits. */
export interface GoalAnswer {
  id: string;
  name: string;
  kind: 'page' | 'event';
  match: string;
  prop: { key: string; value: string } | null;
  /** distinct visitors who reached it */
  visitors: number;
  /** visits that reached it */
  visits: number;
  /** the pageviews or custom events that reached it */
  conversions: number;
  /** visitors / the period's visitors (0 when there were none) */
  conversion_rate: number;
}

/**
 * The report's goals: null while the goals module is off, [] before the site has any, else each
 * goal's conversions among the visits the report counts (its period and filters).
 */
export async function reportGoals(
  control: ControlDb,
  engine: Engine,
  q: {
    site: Site;
    timeZone: string;
    period: Period;
    filters: readonly Filter[];
    visitors: number;
    signal?: AbortSignal;
  },
): Promise<GoalAnswer[] | null> {
  if (!q.site.modules.goals) return null;
  const goals = await listGoals(control, q.site.id);
  if (goals.length === 0) return [];
  const counts = await engine.goals({
    site: q.site.id,
    timeZone: q.timeZone,
    period: q.period,
    filters: q.filters,
    goals,
    signal: q.signal,
  });
  return goals.map((g, i) => {
    const c = counts[i] ?? { visitors: 0, visits: 0, conversions: 0 };
    return {
      id: g.id,
      name: g.name,
      kind: g.kind,
      match: g.match,
      prop: g.prop,
      ...c,
      conversion_rate: q.visitors === 0 ? 0 : c.visitors / q.visitors,
    };
  });
}
