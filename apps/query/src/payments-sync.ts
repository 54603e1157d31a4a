import type { ControlDb } from '@footfall/control';
import type { Logger } from '@footfall/http';
import {
  type ApiBases,
  allConnections,
  SYNC_INTERVAL_MS,
  type SyncResult,
  syncConnection,
} from '@footfall/payments';
import { Periodic } from './periodic.ts';

/** How often the job looks for connections due; each is reconciled every SYNC_INTERVAL_MS. */
const LOOK_MS = 10 * 60 * 1000;
/** The first look after start, so a start is never slowed by a provider. */
const FIRST_LOOK_MS = 30_000;

/**
 * Reconciliation with the payment providers, run by the query service: every connection that has
 * an API key is read back from its provider every six hours (one connection at a time), and at
 * once when it is connected. What the webhooks missed is added; nothing is counted twice
 * (packages/payments/src/sync.ts). The outcome of each run is kept on the connection, for Health.
 */
export class PaymentsSync {
  readonly #control: ControlDb;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #apis: ApiBases;
  readonly #running = new Map<string, Promise<SyncResult>>();
  readonly #periodic = new Periodic(() => this.#due(), FIRST_LOOK_MS, LOOK_MS);

  constructor(o: { control: ControlDb; logger: Logger; now: () => number; apis: ApiBases }) {
    this.#control = o.control;
    this.#logger = o.logger;
    this.#now = o.now;
    this.#apis = o.apis;
  }

  start(): void {
    this.#periodic.start();
  }

  async stop(): Promise<void> {
    await this.#periodic.stop();
    await Promise.allSettled(this.#running.values());
  }

  /** Reconciles one connection now (a second call while it runs joins the first). */
  now(id: string, days?: number): Promise<SyncResult> {
    let run = this.#running.get(id);
    if (run === undefined) {
      run = syncConnection(this.#control, id, { days, apis: this.#apis })
        .then((result) => {
          if (result.error === null)
            this.#logger.info(
              { connection: id, read: result.read, added: result.added },
              'payments reconciled',
            );
          else this.#logger.warn({ connection: id, reason: result.error }, 'payments not reconciled');
          return result;
        })
        .finally(() => this.#running.delete(id));
      this.#running.set(id, run);
    }
    return run;
  }

  /** One pass now, as the timer runs it (tests): the connections due, one at a time. */
  pass(): Promise<void> {
    return this.#due();
  }

  /** Every connection with an API key whose last attempt is older than six hours, one at a time. */
  async #due(): Promise<void> {
    const now = this.#now();
    for (const x of allConnections(this.#control)) {
      if (this.#periodic.stopped) return;
      if (!x.hasApiKey) continue;
      if (x.syncAttemptedAt !== null && now - x.syncAttemptedAt < SYNC_INTERVAL_MS) continue;
      await this.now(x.id);
    }
  }
}
