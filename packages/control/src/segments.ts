import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import { randomId } from './tokens.ts';

/** The longest segment name, in characters. */
export const SEGMENT_NAME_MAX = 100;
/** The most filters one segment holds (a report takes any number; a saved set stays readable). */
export const SEGMENT_FILTERS_MAX = 20;
/** The most segments a site keeps, private and shared together. */
export const SEGMENTS_PER_SITE_MAX = 500;

/**
 * A named set of report filters ("Paid traffic from Germany"): private to the person who saved
 * it, or shared with everyone who reads the site (owners share). `filters` are the report's `f`
 * values (`country:DE`), checked by the query service before they are stored.
 */
export interface Segment {
  id: string;
  siteId: string;
  name: string;
  filters: string[];
  shared: boolean;
  /** null once the author was removed (a shared segment stays) */
  author: { id: string; email: string } | null;
  createdAt: number;
  updatedAt: number;
}

function checkName(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > SEGMENT_NAME_MAX) {
    throw new AppError('invalid_body', `name: 1 to ${SEGMENT_NAME_MAX} characters`, { field: 'name' });
  }
  return name;
}

function checkFilters(filters: string[]): string[] {
  if (filters.length === 0 || filters.length > SEGMENT_FILTERS_MAX) {
    throw new AppError('invalid_body', `filters: 1 to ${SEGMENT_FILTERS_MAX} filters`, { field: 'filters' });
  }
  return [...new Set(filters)];
}

function rows(ctl: ControlDb) {
  return ctl.db
    .selectFrom('segments as s')
    .leftJoin('people as p', 'p.id', 's.person_id')
    .select([
      's.id',
      's.site_id',
      's.name',
      's.filters',
      's.shared',
      's.person_id',
      'p.email',
      's.created_at',
      's.updated_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof rows>['execute']>>[number];

const toSegment = (r: Row): Segment => ({
  id: r.id,
  siteId: r.site_id,
  name: r.name,
  filters: JSON.parse(r.filters) as string[],
  shared: r.shared === 1,
  author: r.person_id !== null && r.email !== null ? { id: r.person_id, email: r.email } : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The segments `personId` sees on a site: the shared ones and their own, by name; null sees the shared ones only. */
export async function listSegments(
  ctl: ControlDb,
  siteId: string,
  personId: string | null,
): Promise<Segment[]> {
  let q = rows(ctl).where('s.site_id', '=', siteId);
  q =
    personId === null
      ? q.where('s.shared', '=', 1)
      : q.where((eb) => eb.or([eb('s.shared', '=', 1), eb('s.person_id', '=', personId)]));
  const found = await q.orderBy('s.name').orderBy('s.id').execute();
  return found.map(toSegment);
}

/** A segment of the site, whoever may see it (the caller checks who asks). */
export async function getSegment(ctl: ControlDb, siteId: string, id: string): Promise<Segment> {
  const row = await rows(ctl).where('s.site_id', '=', siteId).where('s.id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'no such segment');
  return toSegment(row);
}

export async function createSegment(
  ctl: ControlDb,
  input: { siteId: string; personId: string; name: string; filters: string[]; shared: boolean },
): Promise<Segment> {
  const name = checkName(input.name);
  const filters = checkFilters(input.filters);
  const count = await ctl.db
    .selectFrom('segments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', input.siteId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= SEGMENTS_PER_SITE_MAX) {
    throw new AppError(
      'conflict',
      `a site keeps at most ${SEGMENTS_PER_SITE_MAX} segments: delete some first`,
    );
  }
  const id = randomId();
  const now = ctl.now();
  await ctl.db
    .insertInto('segments')
    .values({
      id,
      site_id: input.siteId,
      person_id: input.personId,
      name,
      filters: JSON.stringify(filters),
      shared: input.shared ? 1 : 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return getSegment(ctl, input.siteId, id);
}

export async function updateSegment(
  ctl: ControlDb,
  siteId: string,
  id: string,
  patch: { name?: string | undefined; filters?: string[] | undefined; shared?: boolean | undefined },
): Promise<Segment> {
  const set: { name?: string; filters?: string; shared?: number; updated_at: number } = {
    updated_at: ctl.now(),
  };
  if (patch.name !== undefined) set.name = checkName(patch.name);
  if (patch.filters !== undefined) set.filters = JSON.stringify(checkFilters(patch.filters));
  if (patch.shared !== undefined) set.shared = patch.shared ? 1 : 0;
  const r = await ctl.db
    .updateTable('segments')
    .set(set)
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) throw new AppError('not_found', 'no such segment');
  return getSegment(ctl, siteId, id);
}

export async function deleteSegment(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const r = await ctl.db
    .deleteFrom('segments')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new AppError('not_found', 'no such segment');
}
