import { randomBytes } from 'node:crypto';
import { LIMITS } from '@footfall/schema';
import type Database from 'better-sqlite3';
import { type SaltStore, siteDay } from './enrich/visitor-hash.ts';

/**
 * The cookieless hash's daily salts, kept in the control database so that both a restarted
 * gateway and several gateways agree on a day's salt. A day's salt is used only for events of that
 * day, so nobody is recognised on the next day. It is deleted once the day is over in every time
 * zone (the westernmost, UTC-12, is the last to leave a day) and the tracker's queue can no longer
 * deliver an event of it (25 hours): a late event of the day still gets the day's hash, not a
 * second one. The salt never leaves this process except into SQLite.
 */
export class SqliteSaltStore implements SaltStore {
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #cache = new Map<string, Buffer>();
  #prunedFor = '';
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(db: Database.Database, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  saltFor(day: string): Buffer {
    this.#prune();
    const cached = this.#cache.get(day);
    if (cached) return cached;
    // INSERT OR IGNORE then read: two gateways creating the same day's salt agree on one
    this.#db.prepare('INSERT OR IGNORE INTO daily_salts (day, salt) VALUES (?, ?)').run(day, randomBytes(32));
    const row = this.#db.prepare('SELECT salt FROM daily_salts WHERE day = ?').get(day) as { salt: Buffer };
    this.#cache.set(day, row.salt);
    return row.salt;
  }

  /** Deletes the salts no event can need any more (looks once a minute, deletes once a day). */
  #prune(): void {
    const now = this.#now();
    if (now - this.#checkedAt < 60_000) return;
    this.#checkedAt = now;
    const oldestLive = siteDay(now - LIMITS.maxEventAgeMs, 'Etc/GMT+12');
    if (oldestLive === this.#prunedFor) return;
    this.#prunedFor = oldestLive;
    this.#db.prepare('DELETE FROM daily_salts WHERE day < ?').run(oldestLive);
    for (const day of this.#cache.keys()) if (day < oldestLive) this.#cache.delete(day);
  }
}
