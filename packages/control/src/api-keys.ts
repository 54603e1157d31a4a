import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import type { SiteScope } from './site-access.ts';
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
  /** null: every site of the instance; else the ids of the only sites the key reads */
  sites: string[] | null;
}

/**
 * Creates a read-only key: instance-wide, or limited to `sites` (ids of existing sites, at least
 * one). `key` is shown once: only its SHA-256 is stored.
 */
export async function createApiKey(
  ctl: ControlDb,
  input: { name: string; createdBy: string | null; sites?: readonly string[] | undefined },
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
  const sites = input.sites === undefined ? null : [...new Set(input.sites)];
  if (sites !== null) {
    if (sites.length === 0) {
      throw new AppError('invalid_body', 'sites: name at least one site, or leave it out for every site', {
        field: 'sites',
      });
    }
    const known = await ctl.db.selectFrom('sites').select('id').where('id', 'in', sites).execute();
    const missing = sites.filter((id) => !known.some((k) => k.id === id));
    if (missing.length > 0) {
      throw new AppError('invalid_body', `sites: no site ${missing.join(', ')}`, { field: 'sites' });
    }
  }
  await ctl.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('api_keys')
      .values({ ...row, all_sites: sites === null ? 1 : 0 })
      .execute();
    if (sites !== null) {
      await tx
        .insertInto('api_key_sites')
        .values(sites.map((site_id) => ({ key_id: row.id, site_id })))
        .execute();
    }
  });
  return {
    id: row.id,
    name: row.name,
    start: row.start,
    createdAt: row.created_at,
    lastUsedAt: null,
    sites: sites === null ? null : [...sites].sort(),
    key,
  };
}

/** The sites each limited key reads, by key id. */
async function keySites(ctl: ControlDb): Promise<Map<string, string[]>> {
  const rows = await ctl.db.selectFrom('api_key_sites').selectAll().orderBy('site_id').execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.key_id, [...(out.get(r.key_id) ?? []), r.site_id]);
  return out;
}

export async function listApiKeys(ctl: ControlDb): Promise<ApiKeyInfo[]> {
  const rows = await ctl.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute();
  const limited = await keySites(ctl);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    start: r.start,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    sites: r.all_sites === 1 ? null : (limited.get(r.id) ?? []),
  }));
}

/** Revokes a key: it is deleted and refused from then on. False when there was no such key. */
export async function revokeApiKey(ctl: ControlDb, id: string): Promise<boolean> {
  const r = await ctl.db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Finds the key a bearer value belongs to, with the sites it reads, and records its use;
 * undefined for an unknown key.
 */
export async function resolveApiKey(
  ctl: ControlDb,
  key: string,
): Promise<{ id: string; scope: SiteScope } | undefined> {
  if (!key.startsWith(API_KEY_PREFIX)) return undefined;
  const row = await ctl.db
    .selectFrom('api_keys')
    .select(['id', 'last_used_at', 'all_sites'])
    .where('key_hash', '=', sha256Hex(key))
    .executeTakeFirst();
  if (!row) return undefined;
  const now = ctl.now();
  if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS) {
    await ctl.db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', row.id).execute();
  }
  if (row.all_sites === 1) return { id: row.id, scope: 'all' };
  const sites = await ctl.db
    .selectFrom('api_key_sites')
    .select('site_id')
    .where('key_id', '=', row.id)
    .execute();
  return { id: row.id, scope: new Set(sites.map((s) => s.site_id)) };
}
