import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlDb } from '@footfall/control';
import type { Logger } from '@footfall/http';
import { ensurePrivateDir } from '@footfall/instance';
import {
  connectionsSummary,
  openRateStore,
  RATES_FILE,
  type RateStore,
  type RateTable,
  refreshRates,
} from '@footfall/payments';

/** How often the rates are looked at; the ECB publishes once a working day, around 16:00 CET. */
export const RATES_CHECK_MS = 6 * 60 * 60 * 1000;
/** The first look after start, so a start is never slowed by a download. */
const FIRST_CHECK_MS = 5_000;

/** What Health says about the rates. */
export interface RatesStatus {
  /** the newest day with rates held, or null before the first download */
  newest_day: string | null;
  /** when the last download was tried (ISO), or null */
  checked_at: string | null;
  /** why the last download failed, or null */
  error: string | null;
}

/**
 * The ECB's euro reference rates in `data/rates/`, kept fresh by the query service: looked at
 * shortly after start and every six hours, and downloaded only while some site has a payment
 * connection (an instance without payments never calls out). Without network the download fails
 * quietly: the rates held are used, and Health says why they are not newer.
 */
export class ExchangeRates {
  readonly #dir: string;
  readonly #baseUrl: string;
  readonly #control: ControlDb;
  readonly #logger: Logger;
  readonly #now: () => number;
  #store: RateStore | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  readonly status: RatesStatus = { newest_day: null, checked_at: null, error: null };

  constructor(o: { dir: string; baseUrl: string; control: ControlDb; logger: Logger; now: () => number }) {
    this.#dir = o.dir;
    this.#baseUrl = o.baseUrl;
    this.#control = o.control;
    this.#logger = o.logger;
    this.#now = o.now;
  }

  /** The rates held, for conversions; undefined while none were ever downloaded. */
  get table(): RateTable | undefined {
    const store = this.#open();
    return store && store.days > 0 ? store : undefined;
  }

  /** Starts the checks; `stop` ends them. */
  start(): void {
    const tick = () => {
      this.#timer = setTimeout(() => void this.refresh().finally(tick), RATES_CHECK_MS);
      this.#timer.unref();
    };
    this.#timer = setTimeout(() => void this.refresh().finally(tick), FIRST_CHECK_MS);
    this.#timer.unref();
  }

  stop(): Promise<void> {
    clearTimeout(this.#timer);
    return this.#running ?? Promise.resolve();
  }

  /** Downloads new rates when a site has a payment connection and today's are not held yet. */
  refresh(): Promise<void> {
    this.#running ??= this.#refresh().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #refresh(): Promise<void> {
    if (connectionsSummary(this.#control).count === 0) return;
    const store = this.#open();
    if (!store) return;
    const today = new Date(this.#now()).toISOString().slice(0, 10);
    if (store.newest === today) return;
    this.status.checked_at = new Date(this.#now()).toISOString();
    const result = await refreshRates({ store, baseUrl: this.#baseUrl, now: this.#now });
    if (result.ok) {
      this.status.error = null;
      this.status.newest_day = result.newest;
      if (result.added > 0)
        this.#logger.info({ newest: result.newest, added: result.added }, 'exchange rates updated');
    } else {
      this.status.error = result.error;
      this.#logger.warn({ reason: result.error }, 'exchange rates not updated');
    }
  }

  /** The store, opened once; a damaged rates file is removed (it is only a download) and reported. */
  #open(): RateStore | undefined {
    if (this.#store) return this.#store;
    try {
      ensurePrivateDir(this.#dir);
      this.#store = openRateStore(this.#dir);
    } catch (error) {
      const reason = (error as Error).message;
      this.#logger.error({ reason }, 'the stored exchange rates are damaged; downloading them again');
      this.status.error = reason;
      rmSync(join(this.#dir, RATES_FILE), { force: true });
      this.#store = openRateStore(this.#dir);
    }
    this.status.newest_day = this.#store.newest ?? null;
    return this.#store;
  }
}
