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

/** Whom an attempt counts against: the client's address (its /64 for IPv6) and the e-mail. */
type Who = { address: string; person?: string | undefined };

/**
 * Guards every password check (sign-in, setup, password change, two-step changes) and every
 * second-step code: failures are counted per address and per person (an attempt still running
 * counts as one), and past the limit the answer is 429 until the window ends. Only two scrypt checks run at once (each takes 32 MiB and a
 * thread); others wait up to five seconds, then get 503 "busy, try again". Memory only.
 */
export class PasswordChecks {
  readonly #o: Required<PasswordChecksOptions>;
  readonly #windows = new Map<string, Window>();
  /** attempts taken and not yet finished, per key */
  readonly #pending = new Map<string, number>();
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
   * 429 when `who` is over a limit, 503 when no slot frees within the wait. The attempt counts
   * against the limits from the moment it is taken, as a failure until it is known not to be, so
   * attempts sent at once cannot all be checked while none has failed yet.
   */
  async password(who: Who, check: () => Promise<boolean>): Promise<boolean> {
    const done = this.#take(who);
    try {
      await this.#acquire();
      try {
        return this.#count(who, await check());
      } finally {
        this.#release();
      }
    } finally {
      done();
    }
  }

  /** Counts a second-step code check (cheap: no slot needed) against the same limits. */
  async code(who: Who, check: () => Promise<boolean>): Promise<boolean> {
    const done = this.#take(who);
    try {
      return this.#count(who, await check());
    } finally {
      done();
    }
  }

  #keys(who: Who): [string, number][] {
    const keys: [string, number][] = [[`a:${who.address}`, this.#o.perAddress]];
    if (who.person) keys.push([`p:${who.person.toLowerCase()}`, this.#o.perPerson]);
    return keys;
  }

  /**
   * Takes one attempt for `who`, or throws 429 when its failures and the attempts still running
   * reach a limit. Returns what ends the attempt (its failure, if any, is counted by #count).
   */
  #take(who: Who): () => void {
    if (this.#o.unlimited) return () => {};
    const now = this.#o.now();
    const keys = this.#keys(who);
    for (const [key, limit] of keys) {
      const w = this.#windows.get(key);
      const failures = w && w.resetAt > now ? w.failures : 0;
      if (failures + (this.#pending.get(key) ?? 0) >= limit) {
        const resetAt = w && w.resetAt > now ? w.resetAt : now + this.#o.windowMs;
        throw new AppError('rate_limited', 'too many failed attempts; try again later', {
          retryAfter: (resetAt - now) / 1000,
        });
      }
    }
    for (const [key] of keys) this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    return () => {
      for (const [key] of keys) {
        const left = (this.#pending.get(key) ?? 1) - 1;
        if (left > 0) this.#pending.set(key, left);
        else this.#pending.delete(key);
      }
    };
  }

  #count(who: Who, ok: boolean): boolean {
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
