import { AppError } from '@footfall/http';
import { sql } from 'kysely';
import { SealError } from './crypto.ts';
import type { ControlDb } from './open.ts';
import { hashPassword, PASSWORD_MAX, verifyPassword } from './password.ts';
import type { SharesTable } from './schema.ts';
import { randomId, randomToken, sha256Hex } from './tokens.ts';

/** A share link's token starts with this; the link is `<base>/share/<token>`. */
export const SHARE_TOKEN_PREFIX = 'ffsh_';
/** A share credential (what the shared dashboard sends as its bearer) starts with this. */
export const SHARE_CREDENTIAL_PREFIX = 'ffss_';
/** How long a share credential lasts before the page asks again (for the password, if any). */
export const SHARE_CREDENTIAL_MS = 24 * 3600_000;
/** The most share links one site has. */
export const SHARES_PER_SITE_MAX = 20;
/** The shortest password of a share link (people type it; a guess costs a scrypt). */
export const SHARE_PASSWORD_MIN = 6;

/**
 * A read-only link to a site's dashboard (spec: share link): optionally behind a password,
 * optionally showing the chart's notes (never their authors); revoked by deleting it.
 */
export interface Share {
  id: string;
  siteId: string;
  /** the link's token; null when it was sealed with another instance key */
  token: string | null;
  label: string | null;
  hasPassword: boolean;
  showNotes: boolean;
  createdAt: number;
  updatedAt: number;
  lastUsedAt: number | null;
}

export interface ShareFields {
  label?: string | null | undefined;
  /** a new password; null removes it */
  password?: string | null | undefined;
  showNotes?: boolean | undefined;
}

const bad = (field: string, message: string) =>
  new AppError('invalid_body', `${field}: ${message}`, { field });

function openToken(ctl: ControlDb, sealed: string): string | null {
  try {
    return ctl.cipher.openText(sealed, 'share-token');
  } catch (error) {
    if (error instanceof SealError) return null;
    throw error;
  }
}

const toShare = (ctl: ControlDb, r: SharesTable): Share => ({
  id: r.id,
  siteId: r.site_id,
  token: openToken(ctl, r.token),
  label: r.label,
  hasPassword: r.password_hash !== null,
  showNotes: r.show_notes === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastUsedAt: r.last_used_at,
});

function checkLabel(label: string | null | undefined): string | null {
  const trimmed = label?.trim() ?? '';
  if (trimmed.length > 100) throw bad('label', '100 characters at most');
  return trimmed || null;
}

async function checkedPasswordHash(password: string | null | undefined): Promise<string | null> {
  if (password === null || password === undefined) return null;
  if (password.length < SHARE_PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw bad('password', `${SHARE_PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return hashPassword(password);
}

/** A site's share links, oldest first. */
export async function listShares(ctl: ControlDb, siteId: string): Promise<Share[]> {
  const rows = await ctl.db
    .selectFrom('shares')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy(sql`rowid`)
    .execute();
  return rows.map((r) => toShare(ctl, r));
}

export async function getShare(ctl: ControlDb, siteId: string, id: string): Promise<Share> {
  const row = await ctl.db
    .selectFrom('shares')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) throw new AppError('not_found', 'no such share link');
  return toShare(ctl, row);
}

/** Makes a new share link of a site. */
export async function createShare(ctl: ControlDb, siteId: string, fields: ShareFields): Promise<Share> {
  const count = await ctl.db
    .selectFrom('shares')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= SHARES_PER_SITE_MAX) {
    throw new AppError('conflict', `a site has at most ${SHARES_PER_SITE_MAX} share links: revoke one first`);
  }
  const token = `${SHARE_TOKEN_PREFIX}${randomToken(24)}`;
  const id = randomId();
  const now = ctl.now();
  await ctl.db
    .insertInto('shares')
    .values({
      id,
      site_id: siteId,
      token_hash: sha256Hex(token),
      token: ctl.cipher.sealText(token, 'share-token'),
      label: checkLabel(fields.label),
      password_hash: await checkedPasswordHash(fields.password),
      show_notes: fields.showNotes ? 1 : 0,
      created_at: now,
      updated_at: now,
      last_used_at: null,
    })
    .execute();
  return getShare(ctl, siteId, id);
}

/** Changes a share link's label, password (null removes it) or notes option. */
export async function updateShare(
  ctl: ControlDb,
  siteId: string,
  id: string,
  fields: ShareFields,
): Promise<Share> {
  await getShare(ctl, siteId, id);
  const set: Partial<SharesTable> = { updated_at: ctl.now() };
  if (fields.label !== undefined) set.label = checkLabel(fields.label);
  if (fields.password !== undefined) set.password_hash = await checkedPasswordHash(fields.password);
  if (fields.showNotes !== undefined) set.show_notes = fields.showNotes ? 1 : 0;
  await ctl.db.updateTable('shares').set(set).where('site_id', '=', siteId).where('id', '=', id).execute();
  return getShare(ctl, siteId, id);
}

/** Revokes a share link: its address answers 404 and its credentials stop working at once. */
export async function deleteShare(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const r = await ctl.db
    .deleteFrom('shares')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new AppError('not_found', 'no such share link');
}

/** The share link a token opens (undefined for a revoked or unknown one). */
export function shareByToken(
  ctl: ControlDb,
  token: string,
): (Share & { passwordHash: string | null }) | undefined {
  if (!token.startsWith(SHARE_TOKEN_PREFIX)) return undefined;
  const row = ctl.raw.prepare('SELECT * FROM shares WHERE token_hash = ?').get(sha256Hex(token)) as
    | SharesTable
    | undefined;
  return row === undefined ? undefined : { ...toShare(ctl, row), passwordHash: row.password_hash };
}

/** Checks a share link's password; a link without one opens with any. */
export async function sharePasswordMatches(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) return true;
  return verifyPassword(password, passwordHash);
}

/** What a share credential carries: the link, until when, and which password it was given for. */
interface CredentialBody {
  s: string;
  e: number;
  /** the start of the password hash's digest: a new password ends the credentials given before */
  p: string;
}

const passwordMark = (passwordHash: string | null) =>
  passwordHash === null ? '' : sha256Hex(passwordHash).slice(0, 16);

/** A credential for the shared dashboard, sealed with the instance key (it cannot be forged). */
export function issueShareCredential(
  ctl: ControlDb,
  share: { id: string; passwordHash: string | null },
): { credential: string; expiresAt: number } {
  const expiresAt = ctl.now() + SHARE_CREDENTIAL_MS;
  const body: CredentialBody = { s: share.id, e: expiresAt, p: passwordMark(share.passwordHash) };
  ctl.raw.prepare('UPDATE shares SET last_used_at = ? WHERE id = ?').run(ctl.now(), share.id);
  return {
    credential: `${SHARE_CREDENTIAL_PREFIX}${ctl.cipher.sealText(JSON.stringify(body), 'share-credential')}`,
    expiresAt,
  };
}

/**
 * The share link a credential stands for, while it is valid: not expired, the link not revoked,
 * and its password unchanged since. undefined otherwise.
 */
export function resolveShareCredential(
  ctl: ControlDb,
  credential: string,
): (Share & { siteId: string }) | undefined {
  if (!credential.startsWith(SHARE_CREDENTIAL_PREFIX)) return undefined;
  let body: CredentialBody;
  try {
    body = JSON.parse(
      ctl.cipher.openText(credential.slice(SHARE_CREDENTIAL_PREFIX.length), 'share-credential'),
    );
  } catch {
    return undefined;
  }
  if (typeof body?.s !== 'string' || typeof body.e !== 'number' || body.e <= ctl.now()) return undefined;
  const row = ctl.raw.prepare('SELECT * FROM shares WHERE id = ?').get(body.s) as SharesTable | undefined;
  if (row === undefined || passwordMark(row.password_hash) !== body.p) return undefined;
  return toShare(ctl, row);
}
