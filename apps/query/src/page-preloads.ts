import { NAMED_PERIODS } from './engine/named-periods.ts';
import { BUCKETS } from './engine/report-params.ts';

/** The dashboard's default period, written nowhere in its URL (apps/dashboard/src/site/period.ts). */
const DEFAULT_PERIOD = '30d';
/** The cookie the dashboard sets while a person's chosen view of a site is the live one (mode.ts). */
export const LIVE_MODE_COOKIE = 'footfall_mode=live';

/** Sites known to have had a visit: their page shows a report, not the install screen. */
export type VisitedSites = ReadonlySet<string>;
/** A site's modules that add a request to its first view, or undefined for no such site. */
export type SiteModules = (site: string) => { notes: boolean; milestones: boolean } | undefined;
/**
 * The card of the milestone whose moment a site's report shows the signed-in person first (the
 * newest they have not closed: apps/dashboard/src/site/Milestones.tsx), or null for none: its
 * path, and whether it shows an amount, as the dashboard's `milestoneCardUrl` writes them.
 */
export interface MomentCard {
  path: string;
  amount: 'show' | 'hide';
}
export type MomentOf = (site: string) => MomentCard | null;
/** A site's page: its report (or, with `/live`, its live view). */
export const SITE_PAGE = /^\/sites\/([a-z2-9]{10})(\/live)?$/;

/**
 * The API answers the page will ask for first, named in a `Link` header so the browser fetches
 * them while it still loads the page's script (the dashboard's own `fetch` then takes the
 * preloaded answer): the session always; on a site's page the site and its status; and on its
 * report, for a site known to have visits, everything else its first view asks for: the people
 * there now, its milestones and notes (when those modules are on) and the report itself (a named
 * period: reportPreload), and the card of the milestone moment it shows (`momentOf`), in each
 * colour scheme for the browser whose scheme it is. Each is exactly the URL the dashboard asks
 * for, or the browser fetches it twice (apps/dashboard/src/site/preload.test.ts).
 */
export function preloads(
  path: string,
  search: URLSearchParams,
  cookie: string | undefined,
  visited: VisitedSites,
  modulesOf: SiteModules = () => undefined,
  momentOf: MomentOf = () => null,
): string {
  const links = ['/api/v1/session'];
  const images: string[] = [];
  const m = SITE_PAGE.exec(path);
  const site = m?.[1];
  if (site) {
    const base = `/api/v1/sites/${site}`;
    links.push(base, `${base}/status`);
    // `/sites/<id>` alone opens the view chosen last: the live one has no report
    const report = !m?.[2] && visited.has(site) && (search.size > 0 || !hasCookie(cookie, LIVE_MODE_COOKIE));
    const modules = report ? modulesOf(site) : undefined;
    if (modules) {
      links.push(`${base}/now?limit=1`);
      const card = modules.milestones ? momentOf(site) : null;
      if (modules.milestones) links.push(`${base}/milestones`);
      // the theme the dashboard draws in when the person chose none: the system's (theme.ts)
      if (card !== null) {
        for (const [theme, media] of [
          ['light', 'not all and (prefers-color-scheme: dark)'],
          ['dark', '(prefers-color-scheme: dark)'],
        ]) {
          images.push(
            `<${card.path}?theme=${theme}&amount=${card.amount}>; rel=preload; as=image; media="${media}"`,
          );
        }
      }
      const query = reportPreload(search);
      if (query !== null) {
        links.push(`${base}/report?${query}`);
        // the notes of the same period: a named one by its name, a custom range by its days
        if (modules.notes) links.push(`${base}/annotations?${notesPreload(search)}`);
      }
    }
  }
  return [...links.map((url) => `<${url}>; rel=preload; as=fetch; crossorigin`), ...images].join(', ');
}

/**
 * The query string of the report the dashboard asks for on a report page with this URL query,
 * exactly as its client writes it (apps/dashboard/src/site/view.ts readView and scope.ts
 * reportQuery, serialized by openapi-fetch: name=encodeURIComponent(value), in that order), or
 * null when the page names what only the script can resolve (All time, a custom comparison, a saved
 * segment) or
 * something it would correct (a custom range with a wrong day): then nothing is preloaded, never a
 * wrong report. A custom range goes by its two days, as the dashboard sends it.
 */
export function reportPreload(search: URLSearchParams): string | null {
  // a saved segment's filters are the script's to look up
  if (search.has('segment')) return null;
  const period = search.get('period') ?? DEFAULT_PERIOD;
  const range = customRange(search);
  if (range === null && !(NAMED_PERIODS as readonly string[]).includes(period)) return null;
  const compare = search.get('compare');
  if (compare !== null && compare !== 'off' && compare !== 'previous' && compare !== 'year') return null;
  const bucket = search.get('bucket');
  if (bucket !== null && !(BUCKETS as readonly string[]).includes(bucket)) return null;
  const filters = [...new Set(search.getAll('f').filter((f) => /^[a-z_]+:/.test(f)))].slice(0, 20);
  const pairs: [string, string][] =
    range === null
      ? [['period', period]]
      : [
          ['from', range.from],
          ['to', range.to],
        ];
  for (const f of filters) pairs.push(['f', f]);
  if (compare === 'previous' || compare === 'year') pairs.push(['compare', compare]);
  if (bucket !== null) pairs.push(['bucket', bucket]);
  return pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
}

function hasCookie(header: string | undefined, pair: string): boolean {
  return (header ?? '').split(';').some((part) => part.trim() === pair);
}

/** The notes' query string of the period reportPreload names (it must have named one). */
function notesPreload(search: URLSearchParams): string {
  const range = customRange(search);
  return range === null
    ? `period=${search.get('period') ?? DEFAULT_PERIOD}`
    : `from=${range.from}&to=${range.to}`;
}

/**
 * A custom range's days as the dashboard reads them (apps/dashboard/src/site/period.ts
 * resolvePeriod and isDay): two real days from 1970 on, in order; null for any other page.
 */
function customRange(search: URLSearchParams): { from: string; to: string } | null {
  if (search.get('period') !== 'custom') return null;
  const from = search.get('from');
  const to = search.get('to');
  return isDay(from) && isDay(to) && from <= to ? { from, to } : null;
}

function isDay(text: string | null): text is string {
  const m = text === null ? null : /^(\d{4})-\d{2}-\d{2}$/.exec(text);
  if (!m) return false;
  const at = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === text && Number(m[1]) >= 1970;
}
