import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteSaltStore } from './salts.ts';

function store(now: { t: number }) {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE daily_salts (day TEXT PRIMARY KEY, salt BLOB NOT NULL)');
  return { db, salts: new SqliteSaltStore(db, () => now.t) };
}
const days = (db: Database.Database) =>
  (db.prepare('SELECT day FROM daily_salts ORDER BY day').all() as { day: string }[]).map((r) => r.day);

describe('SqliteSaltStore', () => {
  it('gives one salt per day, the same across stores sharing the database', () => {
    const now = { t: Date.parse('2026-11-22T12:00:00Z') };
    const { db, salts } = store(now);
    const a = salts.saltFor('2026-11-22');
    expect(a).toHaveLength(32);
    expect(salts.saltFor('2026-11-22').equals(a)).toBe(true);
    expect(salts.saltFor('2026-11-21').equals(a)).toBe(false);
    expect(new SqliteSaltStore(db, () => now.t).saltFor('2026-11-22').equals(a)).toBe(true);
  });

  it('keeps a day salt while a late event of that day can still arrive, then deletes it', () => {
    const now = { t: Date.parse('2026-11-22T12:00:00Z') };
    const { db, salts } = store(now);
    const monday = salts.saltFor('2026-11-22');
    // the day ends everywhere at 2026-11-23T12:00Z; a queued event may come 25 hours after that
    now.t = Date.parse('2026-11-24T12:30:00Z');
    salts.saltFor('2026-11-24');
    expect(days(db)).toContain('2026-11-22');
    expect(salts.saltFor('2026-11-22').equals(monday)).toBe(true);
    now.t = Date.parse('2026-11-24T13:30:00Z');
    salts.saltFor('2026-11-24');
    expect(days(db)).not.toContain('2026-11-22');
  });
});
