import {
  canonicalTimeZone,
  hasMilestone,
  highestStep,
  listGoalsNow,
  type Milestone,
  type MilestoneKind,
  milestoneSettings,
  recordMilestone,
  type Site,
  setMilestoneCheckedDay,
  stepReached,
} from '@footfall/control';
import { minorDigits } from '@footfall/payments';
import type { QueryDeps } from '../deps.ts';
import { dayNumber, dayString } from '../engine/buckets.ts';
import { todayIn } from '../engine/report-params.ts';
import { lifetimeRevenue } from '../revenue.ts';

/**
 * The check waits while the tailer is further behind the write-ahead log than this (a start that
 * catches up on a backlog): counting half-loaded days would store the day as checked too early.
 */
export const CHECK_MAX_LAG = 1000;
/** A record day needs this much history before it (a site's second day is no record)... */
export const RECORD_MIN_DAYS = 14;
/** ...and at least this many visitors (a best day of three is no news). */
export const RECORD_MIN_VISITORS = 10;
/**
 * Days the check did not run on (the service was down) are looked at for a record this far back
 * from the finished day; an older record is no news any more.
 */
export const RECORD_CATCH_UP_DAYS = 7;

/**
 * The daily milestone check of one site (docs/milestones.md): once the site's day has finished
 * (in its time zone), counts what it reached by the end of that day and stores each milestone
 * not stored before. Of the round numbers only the highest new step of a kind is stored, so a site
 * that arrives with a long history gets one moment, not ten. Days the check did not run on (the
 * service was down) are in the next day's totals, and the latest record among them (at most
 * RECORD_CATCH_UP_DAYS back) is told with its own date. Answers the milestones stored now.
 */
export async function checkMilestones(
  deps: QueryDeps,
  site: Site,
  signal?: AbortSignal,
  /** runs in the transaction that stores them (their alerts: stored together or not at all) */
  stored?: (found: readonly Milestone[]) => void,
): Promise<Milestone[]> {
  if (!site.modules.milestones) return [];
  const ctl = deps.control;
  const timeZone = canonicalTimeZone(site.timezone);
  const day = dayString(dayNumber(todayIn(timeZone, deps.now())) - 1);
  const settings = milestoneSettings(ctl, site.id);
  if (settings.checkedDay !== null && settings.checkedDay >= day) return [];
  if ((deps.analytics.tailer?.lag ?? 0) > CHECK_MAX_LAG) return [];
  const on = new Set<MilestoneKind>(settings.kinds);
  // stored together at the end, with the day checked: a reader never sees half a day's milestones
  const pending: Parameters<typeof recordMilestone>[1][] = [];
  const add = (m: Omit<Parameters<typeof recordMilestone>[1], 'siteId' | 'day'> & { day?: string }) => {
    pending.push({ siteId: site.id, day, ...m });
  };
  const engine = deps.analytics.engine;
  const status = await engine.status({ site: site.id, signal });
  const firstDay = status.firstVisit === null ? null : todayIn(timeZone, status.firstVisit);
  if (firstDay !== null && firstDay <= day) {
    const life = await engine.lifetime({ site: site.id, timeZone, day, signal });
    for (const kind of ['visitors', 'pageviews', 'countries'] as const) {
      const step = on.has(kind) ? stepReached(kind, life[kind]) : null;
      if (step !== null && step > highestStep(ctl, site.id, kind))
        add({ kind, step: String(step), value: life[kind] });
    }
    if (on.has('record_day')) {
      const days = await engine.dailyVisitors({
        site: site.id,
        timeZone,
        period: { from: firstDay, to: day },
        signal,
      });
      // the finished day, and the days since the last check that it missed (a first check looks
      // at the finished day only: a site arriving with a long history has no news of old records)
      const missed = settings.checkedDay === null ? 0 : dayNumber(day) - dayNumber(settings.checkedDay) - 1;
      const record = latestRecord(days, Math.min(missed, RECORD_CATCH_UP_DAYS - 1));
      if (record !== null) {
        const recordDay = dayString(dayNumber(firstDay) + record);
        add({ kind: 'record_day', step: recordDay, value: days[record]!, day: recordDay });
      }
    }
    if (on.has('first_goal') && site.modules.goals && !hasMilestone(ctl, site.id, 'first_goal')) {
      const goals = listGoalsNow(ctl, site.id);
      const counts =
        goals.length === 0
          ? []
          : await engine.goals({
              site: site.id,
              timeZone,
              period: { from: firstDay, to: day },
              filters: [],
              goals,
              signal,
            });
      const reached = goals.findIndex((_, i) => (counts[i]?.conversions ?? 0) > 0);
      if (reached >= 0)
        add({
          kind: 'first_goal',
          step: '1',
          value: counts[reached]?.conversions ?? 1,
          goal: goals[reached]!.name,
        });
    }
  }
  if (site.modules.revenue && (on.has('revenue') || on.has('first_sale'))) {
    const revenue = lifetimeRevenue(ctl, site, deps.exchangeRates?.table, day);
    const currency = site.currency.toUpperCase();
    const whole = Math.floor(revenue.amountMinor / 10 ** minorDigits(currency));
    const step = on.has('revenue') ? stepReached('revenue', whole) : null;
    if (step !== null && step > highestStep(ctl, site.id, 'revenue'))
      add({ kind: 'revenue', step: String(step), value: revenue.amountMinor, currency });
    if (on.has('first_sale') && revenue.firstSale !== null && !hasMilestone(ctl, site.id, 'first_sale'))
      add({
        kind: 'first_sale',
        step: '1',
        value: revenue.firstSale.amountMinor,
        currency: revenue.firstSale.currency,
        day: revenue.firstSale.day,
      });
  }
  const found: Milestone[] = [];
  ctl.raw.transaction(() => {
    for (const m of pending) {
      const milestone = recordMilestone(ctl, m);
      if (milestone) found.push(milestone);
    }
    setMilestoneCheckedDay(ctl, site.id, day);
    if (found.length > 0) stored?.(found);
  })();
  return found;
}

/**
 * The index of the latest of the last `1 + back` days of `days` (visitors per day, oldest first)
 * that had more visitors than every day before it, with RECORD_MIN_DAYS days before it and
 * RECORD_MIN_VISITORS visitors; null when none did.
 */
export function latestRecord(days: readonly number[], back: number): number | null {
  let best = 0;
  const isRecord: boolean[] = [];
  for (const [i, n] of days.entries()) {
    isRecord.push(i >= RECORD_MIN_DAYS && n >= RECORD_MIN_VISITORS && n > best);
    best = Math.max(best, n);
  }
  for (let i = days.length - 1; i >= Math.max(0, days.length - 1 - back); i--) if (isRecord[i]) return i;
  return null;
}
