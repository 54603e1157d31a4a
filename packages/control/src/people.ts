import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import { hashIsCurrent, hashPassword, passwordProblem } from './password.ts';
import type { PeopleTable } from './schema.ts';
import { randomId } from './tokens.ts';

export type Role = 'owner' | 'viewer';

/** A person as the API shows them. */
export interface Person {
  id: string;
  email: string;
  role: Role;
  mustChangePassword: boolean;
  twoStep: boolean;
  createdAt: number;
}

export type PersonRow = PeopleTable;

export const toPerson = (row: PersonRow): Person => ({
  id: row.id,
  email: row.email,
  role: row.role,
  mustChangePassword: row.must_change_password === 1,
  twoStep: row.totp_secret !== null,
  createdAt: row.created_at,
});

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** Trims and lower-cases an e-mail address; throws a 400 naming `field` when it is not one. */
export function normalizeEmail(email: string, field = 'email'): string {
  const e = email.trim().toLowerCase();
  if (!EMAIL.test(e) || e.length > 254)
    throw new AppError('invalid_body', `${field}: not an e-mail address`, { field });
  return e;
}

export async function findPersonByEmail(ctl: ControlDb, email: string): Promise<PersonRow | undefined> {
  return ctl.db
    .selectFrom('people')
    .selectAll()
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
}

export async function getPerson(ctl: ControlDb, id: string): Promise<PersonRow | undefined> {
  return ctl.db.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPeople(ctl: ControlDb): Promise<Person[]> {
  const rows = await ctl.db.selectFrom('people').selectAll().orderBy('created_at').orderBy('email').execute();
  return rows.map(toPerson);
}

/** Whether the first owner exists (setup is done). */
export async function hasOwner(ctl: ControlDb): Promise<boolean> {
  const row = await ctl.db
    .selectFrom('people')
    .select('id')
    .where('role', '=', 'owner')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Adds a person. The password is hashed here; `mustChangePassword` makes them replace it at the
 * next sign-in (generated passwords). A taken e-mail is a 409.
 */
export async function createPerson(
  ctl: ControlDb,
  input: { email: string; password: string; role: Role; mustChangePassword?: boolean },
): Promise<Person> {
  const email = normalizeEmail(input.email);
  const problem = passwordProblem(input.password);
  if (problem) throw new AppError('invalid_body', `password ${problem}`, { field: 'password' });
  const row: PersonRow = {
    id: randomId(),
    email,
    password_hash: await hashPassword(input.password),
    role: input.role,
    must_change_password: input.mustChangePassword ? 1 : 0,
    all_sites: 1,
    totp_secret: null,
    totp_last_step: null,
    created_at: ctl.now(),
  };
  const inserted = await ctl.db
    .insertInto('people')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    throw new AppError('conflict', `${email} already has an account`, { field: 'email' });
  }
  return toPerson(row);
}

/**
 * Changes a person's role. The last owner can never be demoted: the check and the change run in
 * one transaction, so two owners demoting each other at once cannot leave none.
 */
export async function changeRole(ctl: ControlDb, id: string, role: Role): Promise<Person> {
  return ctl.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('people').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('not_found', 'no such person');
    if (row.role === 'owner' && role !== 'owner') await assertAnotherOwner(trx, id);
    // an owner sees every site; made a viewer again, they keep seeing all until limited
    await trx
      .updateTable('people')
      .set(role === 'owner' ? { role, all_sites: 1 } : { role })
      .where('id', '=', id)
      .execute();
    if (role === 'owner') await trx.deleteFrom('site_access').where('person_id', '=', id).execute();
    return toPerson({ ...row, role });
  });
}

/** Removes a person, their sessions and keys' authorship; never the last owner. */
export async function removePerson(ctl: ControlDb, id: string): Promise<void> {
  await ctl.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('people').select(['id', 'role']).where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('not_found', 'no such person');
    if (row.role === 'owner') await assertAnotherOwner(trx, id);
    await trx.deleteFrom('people').where('id', '=', id).execute();
  });
}

async function assertAnotherOwner(trx: Pick<ControlDb['db'], 'selectFrom'>, id: string): Promise<void> {
  const other = await trx
    .selectFrom('people')
    .select('id')
    .where('role', '=', 'owner')
    .where('id', '!=', id)
    .limit(1)
    .executeTakeFirst();
  if (!other) throw new AppError('conflict', 'the last owner cannot be removed or made a viewer');
}

/**
 * Sets a new password and signs the person out everywhere (except the session in `keepSession`,
 * the one that changed it). `mustChange` marks a generated password to be replaced.
 */
export async function setPassword(
  ctl: ControlDb,
  id: string,
  password: string,
  options: { mustChange?: boolean; keepSessionHash?: string } = {},
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('invalid_body', `password ${problem}`, { field: 'password' });
  const hash = await hashPassword(password);
  await ctl.db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('people')
      .set({ password_hash: hash, must_change_password: options.mustChange ? 1 : 0 })
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw new AppError('not_found', 'no such person');
    let del = trx.deleteFrom('sessions').where('person_id', '=', id);
    if (options.keepSessionHash) del = del.where('token_hash', '!=', options.keepSessionHash);
    await del.execute();
    await trx.deleteFrom('sign_in_challenges').where('person_id', '=', id).execute();
  });
}

/**
 * After a right password, remakes a hash made with older parameters (password.ts): same password,
 * no one signed out. Written only if the hash is still the one checked, so a password changed
 * meanwhile is never overwritten. Resolves whether it was remade.
 */
export async function upgradePasswordHash(
  ctl: ControlDb,
  person: Pick<PersonRow, 'id' | 'password_hash'>,
  password: string,
): Promise<boolean> {
  if (hashIsCurrent(person.password_hash)) return false;
  const hash = await hashPassword(password);
  const r = await ctl.db
    .updateTable('people')
    .set({ password_hash: hash })
    .where('id', '=', person.id)
    .where('password_hash', '=', person.password_hash)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
