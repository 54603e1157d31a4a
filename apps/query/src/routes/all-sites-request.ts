import { getSite, listSites, type Site, scopeAllows } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Context } from 'hono';
import type { AuthEnv } from '../auth/env.ts';
import { VISIT_DIMENSIONS } from '../engine/index.ts';

/**
 * What `GET /api/v1/report` (several sites at once, reports.ts; merged by ../all-sites.ts) reads of
 * its request: which sites, which breakdowns, and how many sites' reports run at once.
 */

/** What a report of several sites takes beside `sites`: no revenue, daily or imported days (per site only). */
export const ALL_SITES_PARAMS = [
  'period',
  'from',
  'to',
  'compare',
  'cfrom',
  'cto',
  'bucket',
  'f',
  'deep',
  'limit',
];
/** Most sites one report of several sites reads. */
export const MAX_REPORT_SITES = 200;
/** Sites whose reports are read at once for one report of several sites. */
export const ALL_SITES_AT_ONCE = 3;
const BREAKDOWN_NAMES: readonly string[] = [...VISIT_DIMENSIONS, 'pages', 'events'];

/** `breakdowns=channel,pages`: the breakdowns wanted (undefined: all); 400 naming an unknown one. */
export function breakdownList(raw: string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = [
    ...new Set(
      raw
        .flatMap((b) => b.split(','))
        .map((b) => b.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = names.find((n) => !BREAKDOWN_NAMES.includes(n));
  if (unknown !== undefined || names.length === 0)
    throw new AppError(
      'invalid_parameter',
      `breakdowns: ${unknown === undefined ? 'name at least one' : `no breakdown ${unknown.slice(0, 40)}`} (${BREAKDOWN_NAMES.join(', ')})`,
      { field: 'breakdowns' },
    );
  return names;
}

/** `work` over `items`, at most `n` at a time, the answers in the items' order. */
export async function inBatches<T, R>(
  items: readonly T[],
  n: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/**
 * The sites of `GET /api/v1/report`: those asked for (`sites=a,b` or repeated), each one the caller
 * may read, or every site the caller may read. A site they may not read, or that does not exist,
 * is a 403 naming it (one answer for both, so no one probes which ids exist).
 */
export function readableSites(c: Context<AuthEnv>, asked: string[] | undefined): Site[] {
  const principal = c.get('principal');
  if (!principal) throw new AppError('unauthorized', 'sign in or send an API key');
  const control = c.get('control');
  const ids = [
    ...new Set(
      (asked ?? [])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (asked !== undefined && ids.length === 0)
    throw new AppError('invalid_parameter', 'sites: name at least one site id', { field: 'sites' });
  const sites =
    ids.length === 0
      ? listSites(control).filter((s) => scopeAllows(principal.scope, s.id))
      : ids.map((id) => {
          const site = getSite(control, id);
          if (!site || !scopeAllows(principal.scope, id))
            throw new AppError('forbidden', `you may not read site ${id.slice(0, 40)}`, { field: 'sites' });
          return site;
        });
  if (sites.length === 0) throw new AppError('not_found', 'there is no site you may read');
  if (sites.length > MAX_REPORT_SITES)
    throw new AppError(
      'invalid_parameter',
      `sites: at most ${MAX_REPORT_SITES} sites in one report (name them with sites=)`,
      { field: 'sites' },
    );
  return sites;
}
