import { AppError } from '@footfall/http';
import { Secret, TOTP } from 'otpauth';
import type { ControlDb } from './open.ts';
import { randomId, sha256Hex } from './tokens.ts';

/** A started two-step setup must be confirmed within 10 minutes. */
export const TWO_STEP_SETUP_TTL_MS = 10 * 60_000;
const PERIOD = 30;
/** One step either side: a code is good for 90 seconds. */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const PURPOSE = 'two-step';

const totp = (secret: string, label = '') =>
  new TOTP({
    issuer: 'Footfall',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });

/** The time step a code matches at `now`, or undefined (RFC 6238, ±1 step). */
function matchingStep(secret: string, code: string, now: number): number | undefined {
  const delta = totp(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta;
}

/** What a new phone needs: the secret (base32) and the otpauth:// URI for a QR code. */
export interface TwoStepSetup {
  secret: string;
  uri: string;
  expiresAt: number;
}

/**
 * Starts setting up an authenticator: a new secret, sealed with the instance key, kept for 10
 * minutes until confirmed. The caller has already checked the password (and, when two-step is
 * on, a current code). A second start replaces the first.
 */
export async function beginTwoStepSetup(
  ctl: ControlDb,
  personId: string,
  label: string,
): Promise<TwoStepSetup> {
  const secret = new Secret({ size: 20 }).base32;
  const expiresAt = ctl.now() + TWO_STEP_SETUP_TTL_MS;
  const sealed = ctl.cipher.sealText(secret, PURPOSE);
  await ctl.db
    .insertInto('two_step_setups')
    .values({ person_id: personId, secret: sealed, expires_at: expiresAt })
    .onConflict((oc) => oc.column('person_id').doUpdateSet({ secret: sealed, expires_at: expiresAt }))
    .execute();
  return { secret, uri: totp(secret, label).toString(), expiresAt };
}

/**
 * Confirms a setup with a code from the new phone: the secret replaces any earlier one, and new
 * recovery codes (returned once, stored hashed) replace the old ones. The confirming code cannot
 * then be used to sign in.
 */
export async function confirmTwoStepSetup(ctl: ControlDb, personId: string, code: string): Promise<string[]> {
  const pending = await ctl.db
    .selectFrom('two_step_setups')
    .selectAll()
    .where('person_id', '=', personId)
    .executeTakeFirst();
  if (!pending || pending.expires_at <= ctl.now()) {
    if (pending) await ctl.db.deleteFrom('two_step_setups').where('person_id', '=', personId).execute();
    throw new AppError(
      'conflict',
      'no two-step setup in progress (they expire after 10 minutes): start again',
    );
  }
  const secret = ctl.cipher.openText(pending.secret, PURPOSE);
  const step = matchingStep(secret, code.trim(), ctl.now());
  if (step === undefined) throw new AppError('invalid_body', 'code: wrong code', { field: 'code' });
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const c = randomId(10);
    return `${c.slice(0, 5)}-${c.slice(5)}`;
  });
  await ctl.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('people')
      .set({ totp_secret: pending.secret, totp_last_step: step })
      .where('id', '=', personId)
      .execute();
    await trx.deleteFrom('two_step_setups').where('person_id', '=', personId).execute();
    await trx.deleteFrom('recovery_codes').where('person_id', '=', personId).execute();
    await trx
      .insertInto('recovery_codes')
      .values(codes.map((c) => ({ person_id: personId, code_hash: hashRecovery(c), used_at: null })))
      .execute();
  });
  return codes;
}

const hashRecovery = (code: string) =>
  sha256Hex(`footfall-recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);

/**
 * Checks a second-step code: a 6-digit authenticator code or a recovery code. An authenticator
 * code counts once: its time step must be newer than the last one used, so the same code, or an
 * older one still inside its 90-second window, is refused. A recovery code is spent.
 */
export async function verifyTwoStepCode(ctl: ControlDb, personId: string, code: string): Promise<boolean> {
  const c = code.trim();
  if (/^\d{6}$/.test(c)) {
    const row = await ctl.db
      .selectFrom('people')
      .select(['totp_secret'])
      .where('id', '=', personId)
      .executeTakeFirst();
    if (!row?.totp_secret) return false;
    let secret: string;
    try {
      secret = ctl.cipher.openText(row.totp_secret, PURPOSE);
    } catch {
      return false; // the instance key changed: recovery codes or `footfall admin disable-2fa` let them in
    }
    const step = matchingStep(secret, c, ctl.now());
    if (step === undefined) return false;
    // compare-and-set in one statement: two requests with the same code cannot both win
    const r = await ctl.db
      .updateTable('people')
      .set({ totp_last_step: step })
      .where('id', '=', personId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  const r = await ctl.db
    .updateTable('recovery_codes')
    .set({ used_at: ctl.now() })
    .where('person_id', '=', personId)
    .where('code_hash', '=', hashRecovery(c))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Recovery codes not yet spent. */
export async function recoveryCodesLeft(ctl: ControlDb, personId: string): Promise<number> {
  const row = await ctl.db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('person_id', '=', personId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Turns two-step off: secret, pending setup and recovery codes are removed. */
export async function disableTwoStep(ctl: ControlDb, personId: string): Promise<void> {
  await ctl.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('people')
      .set({ totp_secret: null, totp_last_step: null })
      .where('id', '=', personId)
      .execute();
    await trx.deleteFrom('two_step_setups').where('person_id', '=', personId).execute();
    await trx.deleteFrom('recovery_codes').where('person_id', '=', personId).execute();
  });
}
