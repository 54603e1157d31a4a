import { type ControlDb, listGoals, listGoalsNow, type Site } from '@footfall/control';
import { AppError } from '@footfall/http';
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
  /**
   * with revenue: the period's revenue of sales whose visitor reached the goal before the sale
   * (minor units of the site's currency); absent without a payment connection
   */
  revenue?: number;
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

/**
 * A report's `goal:<name>` filters with their goals attached, found by name among the site's
 * goals; a name that is no goal of the site (or the goals module off) is a 400 naming `f`.
 */
export function resolveGoalFilters(control: ControlDb | undefined, site: Site, filters: Filter[]): Filter[] {
  if (!filters.some((f) => f.dim === 'goal')) return filters;
  if (!control || !site.modules.goals) {
    throw new AppError('invalid_parameter', 'f: the goals module is off for this site', { field: 'f' });
  }
  const goals = listGoalsNow(control, site.id);
  return filters.map((f) => {
    if (f.dim !== 'goal') return f;
    const goal = goals.find((g) => g.name === f.value);
    if (!goal)
      throw new AppError('invalid_parameter', `f: the site has no goal named ${f.value}`, { field: 'f' });
    return { ...f, goal: { kind: goal.kind, match: goal.match, prop: goal.prop } };
  });
}
