import type { ControlDb } from './open.ts';
import type { PersonRow } from './people.ts';
import { randomToken, sha256Hex } from './tokens.ts';

/** A session lasts 30 days from sign-in. */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** Between the password and the two-step code: 5 minutes and 5 wrong codes. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CHALLENGE_MAX_ATTEMPTS = 5;
const TOUCH_EVERY_MS = 60_000;

/** A signed-in session: the cookie carries `token`; only its SHA-256 is stored. */
export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: number;
}

export async function createSession(ctl: ControlDb, personId: string): Promise<NewSession> {
  const token = randomToken();
  const csrfToken = randomToken(24);
  const now = ctl.now();
  const expiresAt = now + SESSION_TTL_MS;
  await ctl.db
    .insertInto('sessions')
    .values({
      token_hash: sha256Hex(token),
      person_id: personId,
      csrf_token: csrfToken,
      created_at: now,
      last_seen_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return { token, csrfToken, expiresAt };
}

/** A session found from its cookie, with its person. */
export interface ActiveSession {
  tokenHash: string;
  csrfToken: string;
  expiresAt: number;
  person: PersonRow;
}

/** Finds the live session of a cookie value; an expired one is deleted and not returned. */
export async function resolveSession(ctl: ControlDb, token: string): Promise<ActiveSession | undefined> {
  const tokenHash = sha256Hex(token);
  const row = await ctl.db
    .selectFrom('sessions')
    .innerJoin('people', 'people.id', 'sessions.person_id')
    .selectAll('people')
    .select(['sessions.csrf_token', 'sessions.expires_at', 'sessions.last_seen_at'])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const now = ctl.now();
  if (row.expires_at <= now) {
    await ctl.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    return undefined;
  }
  if (now - row.last_seen_at >= TOUCH_EVERY_MS) {
    await ctl.db
      .updateTable('sessions')
      .set({ last_seen_at: now })
      .where('token_hash', '=', tokenHash)
      .execute();
  }
  const { csrf_token, expires_at, last_seen_at: _seen, ...person } = row;
  return { tokenHash, csrfToken: csrf_token, expiresAt: expires_at, person };
}

export async function deleteSession(ctl: ControlDb, tokenHash: string): Promise<void> {
  await ctl.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Starts the two-step part of a sign-in after a correct password; returns the challenge token. */
export async function createChallenge(ctl: ControlDb, personId: string): Promise<string> {
  const token = randomToken();
  await ctl.db
    .insertInto('sign_in_challenges')
    .values({ token_hash: sha256Hex(token), person_id: personId, expires_at: ctl.now() + CHALLENGE_TTL_MS })
    .execute();
  await ctl.db.deleteFrom('sign_in_challenges').where('expires_at', '<=', ctl.now()).execute();
  return token;
}

/**
 * Counts one attempt on a challenge and returns its person id, or undefined when the challenge is
 * unknown, expired or out of attempts (it is then deleted).
 */
export async function useChallenge(ctl: ControlDb, token: string): Promise<string | undefined> {
  const tokenHash = sha256Hex(token);
  const row = await ctl.db
    .updateTable('sign_in_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('token_hash', '=', tokenHash)
    .returning(['person_id', 'expires_at', 'attempts'])
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.expires_at <= ctl.now() || row.attempts > CHALLENGE_MAX_ATTEMPTS) {
    await endChallenge(ctl, token);
    return undefined;
  }
  return row.person_id;
}

export async function endChallenge(ctl: ControlDb, token: string): Promise<void> {
  await ctl.db.deleteFrom('sign_in_challenges').where('token_hash', '=', sha256Hex(token)).execute();
}
