import { AppError } from '@footfall/http';
import { sql } from 'kysely';
import { checkMatch } from './goals.ts';
import type { ControlDb } from './open.ts';
import { randomId } from './tokens.ts';

/** The most funnels a site has: each is counted by the funnels report. */
export const FUNNELS_PER_SITE_MAX = 10;
export const FUNNEL_STEPS_MIN = 2;
export const FUNNEL_STEPS_MAX = 8;

/** One step: a page path pattern (`*` matches anything) or a custom event, as a goal matches. */
export interface FunnelStep {
  name: string;
  kind: 'page' | 'event';
  match: string;
  prop: { key: string; value: string } | null;
}

/**
 * A funnel: ordered steps a visitor goes through, counted within one visit (`withinDays` null) or
 * within that many days from their first step.
 */
export interface Funnel {
  id: string;
  siteId: string;
  name: string;
  steps: FunnelStep[];
  withinDays: number | null;
  createdAt: number;
}

export interface FunnelInput {
  name: string;
  steps: {
    name?: string | undefined;
    kind: 'page' | 'event';
    match: string;
    prop?: FunnelStep['prop'] | undefined;
  }[];
  withinDays?: number | null | undefined;
}

const bad = (field: string, message: string) =>
  new AppError('invalid_body', `${field}: ${message}`, { field });

function check(input: FunnelInput): { name: string; steps: FunnelStep[]; withinDays: number | null } {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 120) throw bad('name', '1 to 120 characters');
  if (input.steps.length < FUNNEL_STEPS_MIN || input.steps.length > FUNNEL_STEPS_MAX) {
    throw bad('steps', `${FUNNEL_STEPS_MIN} to ${FUNNEL_STEPS_MAX} steps`);
  }
  const steps = input.steps.map((s, i) => {
    const matched = checkMatch(s, `steps.${i}.`);
    const stepName = (s.name ?? '').trim() || matched.match;
    if (stepName.length > 120) throw bad(`steps.${i}.name`, '120 characters at most');
    return { name: stepName, ...matched };
  });
  const withinDays = input.withinDays ?? null;
  if (withinDays !== null && (!Number.isInteger(withinDays) || withinDays < 1 || withinDays > 90)) {
    throw bad('within_days', 'a whole number of days from 1 to 90, or null for one visit');
  }
  return { name, steps, withinDays };
}

type Row = {
  id: string;
  site_id: string;
  name: string;
  steps: string;
  within_days: number | null;
  created_at: number;
};

const toFunnel = (r: Row): Funnel => ({
  id: r.id,
  siteId: r.site_id,
  name: r.name,
  steps: JSON.parse(r.steps) as FunnelStep[],
  withinDays: r.within_days,
  createdAt: r.created_at,
});

/** A site's funnels, oldest first. */
export async function listFunnels(ctl: ControlDb, siteId: string): Promise<Funnel[]> {
  const rows = await ctl.db
    .selectFrom('funnels')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy(sql`rowid`)
    .execute();
  return rows.map(toFunnel);
}

export async function getFunnel(ctl: ControlDb, siteId: string, id: string): Promise<Funnel> {
  const row = await ctl.db
    .selectFrom('funnels')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'no such funnel');
  return toFunnel(row);
}

export async function createFunnel(ctl: ControlDb, siteId: string, input: FunnelInput): Promise<Funnel> {
  const f = check(input);
  const count = await ctl.db
    .selectFrom('funnels')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= FUNNELS_PER_SITE_MAX) {
    throw new AppError('conflict', `a site has at most ${FUNNELS_PER_SITE_MAX} funnels: delete one first`);
  }
  const id = randomId();
  await ctl.db
    .insertInto('funnels')
    .values({
      id,
      site_id: siteId,
      name: f.name,
      steps: JSON.stringify(f.steps),
      within_days: f.withinDays,
      created_at: ctl.now(),
    })
    .execute();
  return getFunnel(ctl, siteId, id);
}

/** Changes what is given: the name, the steps (all of them) or the window. */
export async function updateFunnel(
  ctl: ControlDb,
  siteId: string,
  id: string,
  patch: Partial<FunnelInput>,
): Promise<Funnel> {
  const was = await getFunnel(ctl, siteId, id);
  const f = check({
    name: patch.name ?? was.name,
    steps: patch.steps ?? was.steps,
    withinDays: patch.withinDays === undefined ? was.withinDays : patch.withinDays,
  });
  await ctl.db
    .updateTable('funnels')
    .set({ name: f.name, steps: JSON.stringify(f.steps), within_days: f.withinDays })
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .execute();
  return getFunnel(ctl, siteId, id);
}

export async function deleteFunnel(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const done = await ctl.db
    .deleteFrom('funnels')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(done.numDeletedRows) === 0) throw new AppError('not_found', 'no such funnel');
}
