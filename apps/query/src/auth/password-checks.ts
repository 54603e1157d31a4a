import { AppError } from '@footfall/http';

/** A fixed window of failures for one key. */
interface Window {
  failures: number;
  resetAt: number;
}

export interface PasswordChecksOptions {
  now: () => number;
  /** password checks (scrypt) running at once */
  maxConcurrent?: number;
  /** how long a check may wait for a slot before the answer is 503 busy */
  maxWaitMs?: number;
  /** failed checks allowed per address (IPv6: per /64) in `windowMs` */
  perAddress?: number;
  /** failed checks allowed per person (e-mail) in `windowMs` */
  perPerson?: number;
  windowMs?: number;
  /** FOOTFALL_UNSAFE_NO_RATE_LIMIT: benchmarks only */
  unlimited?: boolean;
}

const MAX_KEYS = 50_000;

/**
 * Guards every password check (sign-in, setup, password change, two-step changes) and every
 * second-step code: failures are counted per address and per person, and past the limit the
 * answer is 429 until the window ends. Only two scrypt checks run at once (each takes 32 MiB and a
 * thread); others wait up to five seconds, then get 503 "busy, try again". Memory only.
 */
export class PasswordChecks {
  readonly #o: Required<PasswordChecksOptions>;
  readonly #windows = new Map<string, Window>();
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: PasswordChecksOptions) {
    this.#o = {
      maxConcurrent: 2,
      maxWaitMs: 5000,
      perAddress: 20,
      perPerson: 10,
      windowMs: 15 * 60_000,
      unlimited: false,
      ...options,
    };
  }

  /**
   * Runs a password check `check` (resolving true when the password is right) for `who`. Throws
   * 429 when `who` is over a limit, 503 when no slot frees within the wait.
   */
  async password(who: { address: string; person?: string }, check: () => Promise<boolean>): Promise<boolean> {
    this.#refuseIfLimited(who);
    await this.#acquire();
    try {
      return this.#count(who, await check());
    } finally {
      this.#release();
    }
  }

  /** Counts a second-step code check (cheap: no slot needed) against the same limits. */
  async code(who: { address: string; person?: string }, check: () => Promise<boolean>): Promise<boolean> {
    this.#refuseIfLimited(who);
    return this.#count(who, await check());
  }

  #keys(who: { address: string; person?: string }): [string, number][] {
    const keys: [string, number][] = [[`a:${who.address}`, this.#o.perAddress]];
    if (who.person) keys.push([`p:${who.person.toLowerCase()}`, this.#o.perPerson]);
    return keys;
  }

  #refuseIfLimited(who: { address: string; person?: string }): void {
    if (this.#o.unlimited) return;
    const now = this.#o.now();
    for (const [key, limit] of this.#keys(who)) {
      const w = this.#windows.get(key);
      if (w && w.resetAt > now && w.failures >= limit) {
        throw new AppError('rate_limited', 'too many failed attempts; try again later', {
          retryAfter: (w.resetAt - now) / 1000,
        });
      }
    }
  }

  #count(who: { address: string; person?: string }, ok: boolean): boolean {
    if (ok || this.#o.unlimited) return ok;
    const now = this.#o.now();
    for (const [key] of this.#keys(who)) {
      let w = this.#windows.get(key);
      if (!w || w.resetAt <= now) {
        w = { failures: 0, resetAt: now + this.#o.windowMs };
        this.#windows.delete(key);
        this.#windows.set(key, w);
      }
      w.failures++;
    }
    this.#prune(now);
    return ok;
  }

  #prune(now: number): void {
    if (this.#windows.size <= MAX_KEYS) return;
    for (const [key, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(key);
    // still too many: forget the oldest windows first (a flood of addresses must not grow memory)
    for (const key of this.#windows.keys()) {
      if (this.#windows.size <= MAX_KEYS) break;
      this.#windows.delete(key);
    }
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#o.maxConcurrent) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new AppError('busy', 'busy, try again', { retryAfter: 5 }));
      }, this.#o.maxWaitMs);
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // the slot passes straight to the next waiter; the count stays the same
    if (next) next();
    else this.#running--;
  }
}
