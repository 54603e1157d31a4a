import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import { getPerson, type PersonRow } from './people.ts';

/** The sites one person may see: every site, or a chosen set. */
export type SiteScope = 'all' | ReadonlySet<string>;

/** One viewer's access, as `GET /api/v1/site-access` lists it. */
export interface ViewerAccess {
  personId: string;
  email: string;
  sites: 'all' | string[];
}

/** Owners see every site; a viewer sees all or the set chosen for them. */
export async function siteScopeOf(
  ctl: ControlDb,
  person: Pick<PersonRow, 'id' | 'role' | 'all_sites'>,
): Promise<SiteScope> {
  if (person.role === 'owner' || person.all_sites === 1) return 'all';
  const rows = await ctl.db
    .selectFrom('site_access')
    .select('site_id')
    .where('person_id', '=', person.id)
    .execute();
  return new Set(rows.map((r) => r.site_id));
}

export const scopeAllows = (scope: SiteScope, siteId: string) => scope === 'all' || scope.has(siteId);

export async function listSiteAccess(ctl: ControlDb): Promise<ViewerAccess[]> {
  const viewers = await ctl.db
    .selectFrom('people')
    .select(['id', 'email', 'all_sites'])
    .where('role', '=', 'viewer')
    .orderBy('email')
    .execute();
  const grants = await ctl.db
    .selectFrom('site_access')
    .select(['person_id', 'site_id'])
    .orderBy('site_id')
    .execute();
  return viewers.map((v) => ({
    personId: v.id,
    email: v.email,
    sites: v.all_sites === 1 ? 'all' : grants.filter((g) => g.person_id === v.id).map((g) => g.site_id),
  }));
}

/**
 * Sets the sites one viewer may see. Owners always see every site (409); every listed site must
 * exist (400 naming `sites`).
 */
export async function setSiteAccess(
  ctl: ControlDb,
  personId: string,
  sites: 'all' | readonly string[],
): Promise<ViewerAccess> {
  const person = await getPerson(ctl, personId);
  if (!person) throw new AppError('not_found', 'no such person');
  if (person.role !== 'viewer')
    throw new AppError('conflict', 'owners see every site; only viewers can be limited');
  const wanted = sites === 'all' ? [] : [...new Set(sites)];
  await ctl.db.transaction().execute(async (trx) => {
    if (wanted.length > 0) {
      const found = await trx.selectFrom('sites').select('id').where('id', 'in', wanted).execute();
      const missing = wanted.filter((id) => !found.some((f) => f.id === id));
      if (missing.length > 0) {
        throw new AppError('invalid_body', `sites: no site ${missing.join(', ')}`, { field: 'sites' });
      }
    }
    await trx
      .updateTable('people')
      .set({ all_sites: sites === 'all' ? 1 : 0 })
      .where('id', '=', personId)
      .execute();
    await trx.deleteFrom('site_access').where('person_id', '=', personId).execute();
    if (wanted.length > 0) {
      await trx
        .insertInto('site_access')
        .values(wanted.map((site_id) => ({ person_id: personId, site_id })))
        .execute();
    }
  });
  return { personId, email: person.email, sites: sites === 'all' ? 'all' : wanted.sort() };
}
