import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import { randomId, randomToken, sha256Hex } from './tokens.ts';

/** Keys start with this, so a leaked one is recognisable (and greppable by secret scanners). */
export const API_KEY_PREFIX = 'ffk_';
const START_LENGTH = API_KEY_PREFIX.length + 6;
/** last-used is written at most once a minute per key: reads stay reads. */
const TOUCH_EVERY_MS = 60_000;

/** An API key as listed: never its value. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  start: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Creates a read-only, instance-wide key. `key` is shown once: only its SHA-256 is stored. */
export async function createApiKey(
  ctl: ControlDb,
  input: { name: string; createdBy: string | null },
): Promise<ApiKeyInfo & { key: string }> {
  const key = `${API_KEY_PREFIX}${randomToken(24)}`;
  const row = {
    id: randomId(),
    name: input.name.trim(),
    start: key.slice(0, START_LENGTH),
    key_hash: sha256Hex(key),
    created_by: input.createdBy,
    created_at: ctl.now(),
    last_used_at: null,
  };
  if (!row.name) throw new AppError('invalid_body', 'name: must not be empty', { field: 'name' });
  await ctl.db.insertInto('api_keys').values(row).execute();
  return { id: row.id, name: row.name, start: row.start, createdAt: row.created_at, lastUsedAt: null, key };
}

export async function listApiKeys(ctl: ControlDb): Promise<ApiKeyInfo[]> {
  const rows = await ctl.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    start: r.start,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
  }));
}

/** Revokes a key: it is deleted and refused from then on. False when there was no such key. */
export async function revokeApiKey(ctl: ControlDb, id: string): Promise<boolean> {
  const r = await ctl.db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Finds the key a bearer value belongs to and records its use; undefined for an unknown key. */
export async function resolveApiKey(ctl: ControlDb, key: string): Promise<{ id: string } | undefined> {
  if (!key.startsWith(API_KEY_PREFIX)) return undefined;
  const row = await ctl.db
    .selectFrom('api_keys')
    .select(['id', 'last_used_at'])
    .where('key_hash', '=', sha256Hex(key))
    .executeTakeFirst();
  if (!row) return undefined;
  const now = ctl.now();
  if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS) {
    await ctl.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  return { id: row.id };
}
