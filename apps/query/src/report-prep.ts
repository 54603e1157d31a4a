import type { Logger } from '@footfall/http';
import type { Engine } from './engine/index.ts';

/** A site as reports ask for it: its id and the zone its days are counted in. */
export interface PrepSite {
  site: string;
  timeZone: string;
}

export interface ReportPrepOptions {
  engine: Pick<Engine, 'prepare'>;
  /** the sites as they are now (app.db) */
  sites: () => readonly PrepSite[];
  logger: Logger;
  now?: () => number;
  /** the sites are read at most this often */
  checkMs?: number;
  /** the engine is told again this often when nothing changed: days that ended, days a late batch changed */
  everyMs?: number;
}

/**
 * Tells the engine which sites reports will ask for (`Engine.prepare`), so that the first report
 * of a long period is as fast as the next one: whenever the tailer has nothing left to load, at
 * once when a site was added or its zone changed, and otherwise every `everyMs`. Nothing is
 * prepared while a backlog loads: a day the backlog still fills would be prepared twice.
 */
export class ReportPrep {
  readonly #o: Required<ReportPrepOptions>;
  #checked = Number.NEGATIVE_INFINITY;
  #told = Number.NEGATIVE_INFINITY;
  #key: string | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(options: ReportPrepOptions) {
    this.#o = { now: Date.now, checkMs: 5_000, everyMs: 10 * 60_000, ...options };
  }

  /** The tailer found nothing left to load. */
  caughtUp(): void {
    if (this.#running || this.#stopped) return;
    const now = this.#o.now();
    if (now - this.#checked < this.#o.checkMs) return;
    this.#checked = now;
    let sites: readonly PrepSite[];
    try {
      sites = this.#o.sites();
    } catch (e) {
      this.#o.logger.warn({ err: e }, 'sites could not be read to prepare their reports');
      return;
    }
    const key = sites
      .map((s) => `${s.site} ${s.timeZone}`)
      .sort()
      .join('\n');
    if (key === this.#key && now - this.#told < this.#o.everyMs) return;
    this.#key = key;
    this.#told = now;
    this.#running = this.#o.engine
      .prepare(sites)
      .then(
        (queued) => {
          if (queued > 0) this.#o.logger.info({ queued }, 'preparing reports of past days');
        },
        (e: unknown) => this.#o.logger.warn({ err: e }, 'reports could not be prepared; they read raw data'),
      )
      .finally(() => {
        this.#running = undefined;
      });
  }

  /** Waits for the engine to have queued what it was told; tells it nothing more. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}
