import type Database from 'better-sqlite3';
import { type Cipher, SealError } from './crypto.ts';

/** What the key check value holds, sealed (instanceKeyMatches). */
export const KEY_CHECK_TEXT = 'footfall';

/** Where sealed values live, and the purpose each was sealed for. */
const SEALED: readonly [table: string, column: string, purpose: string][] = [
  ['people', 'totp_secret', 'two-step'],
  ['payment_connections', 'signing_secret', 'provider-secret'],
  ['payment_connections', 'api_key', 'provider-key'],
  ['alert_destinations', 'target', 'alert-target'],
  ['shares', 'token', 'share-token'],
];

/**
 * Whether a value already sealed in the database was sealed with another key than `cipher`'s: one
 * sample of each kind is opened. Used before the key check value exists (a database from before
 * it), so an instance that already runs on a changed key is not taken for one that matches.
 */
export function sealedWithOtherKey(raw: Database.Database, cipher: Cipher): boolean {
  const tables = new Set(
    (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (t) => t.name,
    ),
  );
  for (const [table, column, purpose] of SEALED) {
    // a database at an older version has not all of them
    if (!tables.has(table)) continue;
    const row = raw
      .prepare(`SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL LIMIT 1`)
      .get() as { v: string } | undefined;
    if (row === undefined) continue;
    try {
      cipher.openText(row.v, purpose);
    } catch (error) {
      if (error instanceof SealError && error.reason === 'other-key') return true;
    }
  }
  return false;
}

/**
 * Writes the key check value on the first open with a key that opens what is already sealed (an
 * instance whose key already changed gets none until its own key is back).
 */
export function ensureKeyCheck(raw: Database.Database, cipher: Cipher): void {
  const present = raw.prepare("SELECT 1 FROM meta WHERE key = 'key_check'").get();
  if (present !== undefined || sealedWithOtherKey(raw, cipher)) return;
  raw
    .prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('key_check', ?)")
    .run(cipher.sealText(KEY_CHECK_TEXT, 'key-check'));
}
