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
  raise: (words: EventWords, destinations: Awaited<ReturnType<typeof destinationsFor>>) => void,
): Promise<void> {
  // read first: the alerts are queued in the transaction that stores the milestones, so a kill
  // between the two can neither lose an alert nor send one for a milestone not stored
  const destinations = await destinationsFor(deps.control, 'milestone', site.id);
  await checkMilestones(deps, site, signal, (found) => {
    if (destinations.length === 0) return;
    for (const m of found) {
      const words = milestoneWords(m, site.domain, true);
      raise(
        {
          title: words.title,
          text: `${words.title}. ${words.detail}.`,
          data: {
            kind: m.kind,
            step: m.step,
            value: m.value,
            currency: m.currency,
            goal: m.goal,
            day: m.day,
          },
        },
        destinations,
      );
    }
  });
}
