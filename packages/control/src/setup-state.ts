import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Whether an owner exists in the control database at `path`, read without migrating or creating
 * anything (the supervisor asks before the services have opened the database). A missing file or
 * a database without the people table means no.
 */
export function isSetupDoneAt(path: string): boolean {
  if (!existsSync(path)) return false;
  const raw = new Database(path, { readonly: true, fileMustExist: true });
  try {
    raw.pragma('busy_timeout = 5000');
    const table = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'people'`).get();
    if (!table) return false;
    return raw.prepare(`SELECT 1 FROM people WHERE role = 'owner' LIMIT 1`).get() !== undefined;
  } finally {
    raw.close();
  }
}
