import { destinationsFor, type Site } from '@footfall/control';
import type { QueryDeps } from '../deps.ts';
import { checkMilestones } from './check.ts';
import { milestoneWords } from './words.ts';

/** What an alert of one event says (alerts.ts writes the rest of the message). */
export interface EventWords {
  title: string;
  text: string;
  data: Record<string, unknown>;
}

/**
 * The daily milestone check of a site, run by the alert pass, and "Milestone reached" (off unless
 * a destination asks for it) for each milestone it stores. Alerts go to the site's owners'
 * destinations, so money shows its amount.
 */
export async function milestonesAndAlerts(
  deps: QueryDeps,
  site: Site,
  signal: AbortSignal,
  raise: (words: EventWords, destinations: Awaited<ReturnType<typeof destinationsFor>>) => Promise<void>,
): Promise<void> {
  const found = await checkMilestones(deps, site, signal);
  if (found.length === 0) return;
  const destinations = await destinationsFor(deps.control, 'milestone', site.id);
  if (destinations.length === 0) return;
  for (const m of found) {
    const words = milestoneWords(m, site.domain, true);
    await raise(
      {
        title: words.title,
        text: `${words.title}. ${words.detail}.`,
        data: { kind: m.kind, step: m.step, value: m.value, currency: m.currency, goal: m.goal, day: m.day },
      },
      destinations,
    );
  }
}
