import { listSites, type Site } from '@footfall/control';
import type { Logger } from '@footfall/http';
import type { Analytics } from './analytics.ts';
import { dayNumber } from './engine/buckets.ts';
import { midnight } from './engine/clickhouse/time-plan.ts';
import { todayIn } from './engine/report-params.ts';
import { Periodic } from './periodic.ts';

/** How often the job looks for sites whose cutoff moved (a new local day began). */
const LOOK_MS = 60 * 60 * 1000;
/** The first look after start: a start is never slowed by a large deletion. */
const FIRST_LOOK_MS = 60_000;

/** What the retention job has deleted since start, by all sites (Health and `/metrics`). */
export interface RetentionCounts {
  passes: number;
  visits: number;
  events: number;
  failures: number;
}

/**
 * Visit retention (docs/configuration.md, FOOTFALL_RETENTION_DAYS; a site's `retention_days`):
 * once a day for each site that keeps a limited number of days, the visits that started before
 * local midnight that many days ago are deleted with their events (Engine.expire). Each site's
 * cutoff is its own zone's midnight, so a kept day is always whole. Payment ledgers, their raw
 * webhooks and the AI robots' counters are not visits and stay. The job looks every hour and acts
 * for a site once its cutoff moved (after its local midnight, and once after each start).
 */
export class Retention {
  readonly counts: RetentionCounts = { passes: 0, visits: 0, events: 0, failures: 0 };
  readonly #analytics: Pick<Analytics, 'engine' | 'cache' | 'engineState'>;
  readonly #control: Parameters<typeof listSites>[0];
  readonly #defaultDays: number | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** the cutoff each site was last cut at (ms) */
  readonly #done = new Map<string, number>();
  readonly #periodic = new Periodic(() => this.pass(), FIRST_LOOK_MS, LOOK_MS);

  constructor(o: {
    analytics: Pick<Analytics, 'engine' | 'cache' | 'engineState'>;
    control: Parameters<typeof listSites>[0];
    defaultDays: number | undefined;
    logger: Logger;
    now: () => number;
  }) {
    this.#analytics = o.analytics;
    this.#control = o.control;
    this.#defaultDays = o.defaultDays;
    this.#logger = o.logger;
    this.#now = o.now;
  }

  start(): void {
    this.#periodic.start();
  }

  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  /** The days of visits a site keeps: its own setting, else the instance's; undefined keeps all. */
  daysOf(site: Site): number | undefined {
    return site.retentionDays ?? this.#defaultDays;
  }

  /** The instant before which a site's visits are deleted now (its local midnight `days` ago). */
  cutoffOf(site: Site, days: number): number {
    return midnight(site.timezone, dayNumber(todayIn(site.timezone, this.#now())) - days);
  }

  /** One pass now, as the timer runs it (tests): each site whose cutoff moved, one at a time. */
  async pass(): Promise<void> {
    // an engine not open yet would hold the pass (and a stop) until it opens: the next look tries
    if (!this.#analytics.engineState.ready) return;
    this.counts.passes += 1;
    for (const site of listSites(this.#control)) {
      if (this.#periodic.stopped) return;
      const days = this.daysOf(site);
      if (days === undefined) continue;
      const before = this.cutoffOf(site, days);
      if (this.#done.get(site.id) === before) continue;
      try {
        const expired = await this.#analytics.engine.expire({ site: site.id, before });
        this.#done.set(site.id, before);
        this.counts.visits += expired.visits;
        this.counts.events += expired.events;
        if (expired.visits + expired.events > 0) {
          this.#analytics.cache.forgetSite(site.id);
          this.#logger.info(
            { site: site.id, before: new Date(before).toISOString(), days, ...expired },
            'old visits deleted (retention)',
          );
        }
      } catch (error) {
        // tried again at the next look
        this.counts.failures += 1;
        this.#logger.warn(
          { site: site.id, err: { message: (error as Error).message } },
          'old visits not deleted yet (retention)',
        );
      }
    }
  }
}
