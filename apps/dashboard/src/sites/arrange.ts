import { t } from '../i18n/sites.ts';

/** The account-wide layout of sites, as `GET /api/v1/site-layout` gives it. */
export interface SiteLayout {
  order: string[];
  pins: string[];
  groups: { name: string; sites: string[] }[];
}

export interface Section<S> {
  /** null for the one section of a layout without pins or groups */
  title: string | null;
  sites: S[];
}

/**
 * The sites list's sections: pinned sites first, then each named group, then the rest; within
 * each, the saved order (sites not in it after, by domain). A site shows once: a pinned site is
 * not repeated in its group, and a site in two groups shows in the first.
 */
export function arrangeSites<S extends { id: string; domain: string }>(
  sites: S[],
  layout: SiteLayout,
): Section<S>[] {
  const rank = new Map(layout.order.map((id, i) => [id, i]));
  const sorted = [...sites].sort(
    (a, b) =>
      (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER) ||
      a.domain.localeCompare(b.domain),
  );
  const placed = new Set<string>();
  const take = (ids: Set<string>) =>
    sorted.filter((s) => {
      if (!ids.has(s.id) || placed.has(s.id)) return false;
      placed.add(s.id);
      return true;
    });
  const sections: Section<S>[] = [];
  const pinned = take(new Set(layout.pins));
  if (pinned.length > 0) sections.push({ title: t('pinned'), sites: pinned });
  for (const group of layout.groups) {
    const members = take(new Set(group.sites));
    if (members.length > 0) sections.push({ title: group.name, sites: members });
  }
  const rest = sorted.filter((s) => !placed.has(s.id));
  if (rest.length > 0) sections.push({ title: sections.length > 0 ? t('otherSites') : null, sites: rest });
  return sections;
}

/** `list` with the item at `index` moved by `by` places (clamped at the ends). */
export function moveItem<T>(list: readonly T[], index: number, by: number): T[] {
  const next = [...list];
  const to = Math.max(0, Math.min(list.length - 1, index + by));
  const [item] = next.splice(index, 1);
  next.splice(to, 0, item as T);
  return next;
}
