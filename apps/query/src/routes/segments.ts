import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  SEGMENT_FILTERS_MAX,
  type Segment,
  type Site,
  updateSegment,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { parseFilter, ReportParamError } from '../engine/report-params.ts';
import { sessionPrincipal } from './auth-helpers.ts';

const name = v.pipe(v.string(), v.maxLength(1000));
const filters = v.pipe(v.array(v.pipe(v.string(), v.maxLength(2100))), v.maxLength(SEGMENT_FILTERS_MAX * 5));
const NewSegment = v.strictObject({ name, filters, shared: v.optional(v.boolean()) });
const SegmentPatch = v.strictObject({
  name: v.optional(name),
  filters: v.optional(filters),
  shared: v.optional(v.boolean()),
});

const iso = (ms: number) => new Date(ms).toISOString();

/** A segment as the API answers it. */
export const segmentJson = (s: Segment) => ({
  id: s.id,
  name: s.name,
  filters: s.filters,
  shared: s.shared,
  author: s.author,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
});

/** Each filter as a report takes it (`country:DE`); a bad one is a 400 naming its place. */
function checkedFilters(list: string[]): string[] {
  return list.map((raw, i) => {
    try {
      parseFilter(raw);
      return raw;
    } catch (e) {
      if (!(e instanceof ReportParamError)) throw e;
      throw new AppError('invalid_body', `filters[${i}]: ${e.message.replace(/^f: /, '')}`, {
        field: 'filters',
      });
    }
  });
}

/**
 * Saved segments: named sets of report filters. Anyone who reads a site lists the shared ones and
 * their own (an API key, the shared ones); any signed-in reader saves private ones; owners share
 * them. A segment is changed or deleted by its author, a shared one by any owner too.
 */
export function segmentRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  /** the segment as the caller may change it: theirs, or shared and they are an owner */
  const changeable = async (c: Context<AuthEnv>, site: Site) => {
    const principal = sessionPrincipal(c);
    const found = await getSegment(ctl, site.id, c.req.param('id') ?? '');
    const mine = found.author?.id === principal.person.id;
    if (!found.shared && !mine) throw new AppError('not_found', 'no such segment');
    if (!mine && principal.role !== 'owner') {
      throw new AppError('forbidden', 'only its author or an owner changes a shared segment');
    }
    return { principal, found };
  };
  return new Hono<AuthEnv>()
    .get('/sites/:site/segments', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const principal = c.get('principal');
      if (principal?.kind === 'share') throw new AppError('forbidden', 'a share link lists no segments');
      const person = principal?.kind === 'session' ? principal.person.id : null;
      return c.json({ segments: (await listSegments(ctl, site.id, person)).map(segmentJson) });
    })
    .post('/sites/:site/segments', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const principal = sessionPrincipal(c);
      const body = await readJson(c, NewSegment);
      if (body.shared && principal.role !== 'owner') {
        throw new AppError('forbidden', 'only owners share segments; save it as your own', {
          field: 'shared',
        });
      }
      const segment = await createSegment(ctl, {
        siteId: site.id,
        personId: principal.person.id,
        name: body.name,
        filters: checkedFilters(body.filters),
        shared: body.shared ?? false,
      });
      return c.json({ segment: segmentJson(segment) }, 201);
    })
    .patch('/sites/:site/segments/:id', async (c) => {
      // an unknown site before a bad body, a bad body before an unknown id
      const site = requireSiteRead(c, c.req.param('site'));
      const body = await readJson(c, SegmentPatch);
      const { principal, found } = await changeable(c, site);
      if (body.shared !== undefined && body.shared !== found.shared && principal.role !== 'owner') {
        throw new AppError('forbidden', 'only owners share segments', { field: 'shared' });
      }
      const segment = await updateSegment(ctl, site.id, found.id, {
        name: body.name,
        filters: body.filters === undefined ? undefined : checkedFilters(body.filters),
        shared: body.shared,
      });
      return c.json({ segment: segmentJson(segment) });
    })
    .delete('/sites/:site/segments/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      const { found } = await changeable(c, site);
      await deleteSegment(ctl, site.id, found.id);
      return c.body(null, 204);
    });
}
