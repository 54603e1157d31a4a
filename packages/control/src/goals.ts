import { AppError } from '@footfall/http';
import { sql } from 'kysely';
import type { ControlDb } from './open.ts';
import type { GoalsTable } from './schema.ts';
import { randomId } from './tokens.ts';

/** The most goals a site has: every one is counted in every report. */
export const GOALS_PER_SITE_MAX = 50;

/**
 * A goal of a site: reached by a pageview whose path matches `match` (`*` matches any run of
 * characters, so `/blog/*` is every post and `/thanks` one page), or by a custom event named
 * `match`, optionally only when its property `prop.key` has the value `prop.value`.
 */
export interface Goal {
  id: string;
  siteId: string;
  name: string;
  kind: 'page' | 'event';
  match: string;
  prop: { key: string; value: string } | null;
  createdAt: number;
}

export interface GoalInput {
  name: string;
  kind: 'page' | 'event';
  match: string;
  prop?: { key: string; value: string } | null | undefined;
}

const bad = (field: string, message: string) =>
  new AppError('invalid_body', `${field}: ${message}`, { field });

/**
 * What a goal (or a funnel's step) matches, checked and trimmed: a page path pattern, or a custom
 * event's name with an optional property value. A 400 naming `<at>match` or `<at>prop` otherwise.
 */
export function checkMatch(
  input: Pick<GoalInput, 'kind' | 'match' | 'prop'>,
  at = '',
): { kind: 'page' | 'event'; match: string; prop: { key: string; value: string } | null } {
  const match = input.match.trim();
  if (input.kind === 'page') {
    if (!match.startsWith('/') || match.length > 2048) {
      throw bad(`${at}match`, 'a page path starting with /, where * matches any characters (2048 at most)');
    }
    if (input.prop) throw bad(`${at}prop`, 'only a custom event matches a property');
  } else if (match.length === 0 || match.length > 120) {
    throw bad(`${at}match`, "the custom event's name, 1 to 120 characters");
  }
  const prop = input.prop ?? null;
  if (prop !== null) {
    if (prop.key.length === 0 || prop.key.length > 64) throw bad(`${at}prop`, 'key: 1 to 64 characters');
    if (prop.value.length > 500) throw bad(`${at}prop`, 'value: 500 characters at most');
  }
  return { kind: input.kind, match, prop };
}

/** A goal's fields, checked and trimmed; a 400 naming the field otherwise. */
function check(input: GoalInput): Omit<GoalsTable, 'id' | 'site_id' | 'created_at'> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 120) throw bad('name', '1 to 120 characters');
  const { kind, match, prop } = checkMatch(input);
  return { name, kind, match, prop_key: prop?.key ?? null, prop_value: prop?.value ?? null };
}

const toGoal = (r: GoalsTable): Goal => ({
  id: r.id,
  siteId: r.site_id,
  name: r.name,
  kind: r.kind,
  match: r.match,
  prop: r.prop_key === null ? null : { key: r.prop_key, value: r.prop_value ?? '' },
  createdAt: r.created_at,
});

/** A site's goals, oldest first (the order reports list them in). */
export async function listGoals(ctl: ControlDb, siteId: string): Promise<Goal[]> {
  const rows = await ctl.db
    .selectFrom('goals')
    .selectAll()
    .where('site_id', '=', siteId)
    // the order they were made in (rowid), also within one millisecond
    .orderBy(sql`rowid`)
    .execute();
  return rows.map(toGoal);
}

/** The same as listGoals, read at once (for parsing a report's `goal:` filters). */
export function listGoalsNow(ctl: ControlDb, siteId: string): Goal[] {
  const rows = ctl.raw
    .prepare('SELECT * FROM goals WHERE site_id = ? ORDER BY rowid')
    .all(siteId) as GoalsTable[];
  return rows.map(toGoal);
}

export async function getGoal(ctl: ControlDb, siteId: string, id: string): Promise<Goal> {
  const row = await ctl.db
    .selectFrom('goals')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'no such goal');
  return toGoal(row);
}

export async function createGoal(ctl: ControlDb, siteId: string, input: GoalInput): Promise<Goal> {
  const fields = check(input);
  const count = await ctl.db
    .selectFrom('goals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= GOALS_PER_SITE_MAX) {
    throw new AppError('conflict', `a site has at most ${GOALS_PER_SITE_MAX} goals: delete one first`);
  }
  const id = randomId();
  await ctl.db
    .insertInto('goals')
    .values({ id, site_id: siteId, created_at: ctl.now(), ...fields })
    .execute();
  return getGoal(ctl, siteId, id);
}

/** Changes what is given; the kind stays unless given with a match that fits it. */
export async function updateGoal(
  ctl: ControlDb,
  siteId: string,
  id: string,
  patch: Partial<GoalInput>,
): Promise<Goal> {
  const goal = await getGoal(ctl, siteId, id);
  const fields = check({
    name: patch.name ?? goal.name,
    kind: patch.kind ?? goal.kind,
    match: patch.match ?? goal.match,
    prop: patch.prop === undefined ? goal.prop : patch.prop,
  });
  await ctl.db.updateTable('goals').set(fields).where('site_id', '=', siteId).where('id', '=', id).execute();
  return getGoal(ctl, siteId, id);
}

export async function deleteGoal(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const done = await ctl.db
    .deleteFrom('goals')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(done.numDeletedRows) === 0) throw new AppError('not_found', 'no such goal');
}
