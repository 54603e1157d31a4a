import type { ControlDb } from './open.ts';

/** The account-wide arrangement of the sites list: order, pinned sites and named groups. */
export interface SiteLayout {
  order: string[];
  pins: string[];
  groups: { name: string; sites: string[] }[];
}

export const EMPTY_LAYOUT: SiteLayout = { order: [], pins: [], groups: [] };

/** The stored layout, reduced to the sites in `visible` (deleted sites and sites a viewer may not see drop out). */
export async function getSiteLayout(
  ctl: ControlDb,
  visible: (siteId: string) => boolean,
): Promise<SiteLayout> {
  const row = await ctl.db.selectFrom('site_layout').select('layout').where('id', '=', 1).executeTakeFirst();
  const stored = row ? (JSON.parse(row.layout) as SiteLayout) : EMPTY_LAYOUT;
  return {
    order: stored.order.filter(visible),
    pins: stored.pins.filter(visible),
    groups: stored.groups.map((g) => ({ name: g.name, sites: g.sites.filter(visible) })),
  };
}

/** Replaces the layout (the caller validated its shape). */
export async function saveSiteLayout(ctl: ControlDb, layout: SiteLayout): Promise<void> {
  const value = JSON.stringify({ order: layout.order, pins: layout.pins, groups: layout.groups });
  await ctl.db
    .insertInto('site_layout')
    .values({ id: 1, layout: value, updated_at: ctl.now() })
    .onConflict((oc) => oc.column('id').doUpdateSet({ layout: value, updated_at: ctl.now() }))
    .execute();
}
