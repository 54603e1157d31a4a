import {
  type Annotation,
  createAnnotation,
  deleteAnnotation,
  listAnnotations,
  updateAnnotation,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AuthEnv } from '../auth/env.ts';
import { readJson } from '../auth/json.ts';
import { requireSiteRead, siteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import { NAMED_PERIODS, type NamedPeriod, resolveNamedPeriod } from '../engine/named-periods.ts';
import { todayIn } from '../engine/report-params.ts';
import { sessionPrincipal } from './auth-helpers.ts';
import { requireModule } from './modules.ts';

const day = v.pipe(v.string(), v.maxLength(10));
const text = v.pipe(v.string(), v.maxLength(2000));
const NewAnnotation = v.strictObject({ date: day, end_date: v.optional(v.nullable(day)), text });
const AnnotationPatch = v.strictObject({
  date: v.optional(day),
  end_date: v.optional(v.nullable(day)),
  text: v.optional(text),
});

const iso = (ms: number) => new Date(ms).toISOString();

/** A note as the API answers it: its day or span, its text, its author (never on a share). */
export const annotationJson = (a: Annotation) => ({
  id: a.id,
  date: a.day,
  end_date: a.endDay,
  text: a.text,
  author: a.author,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
});

/** `from` and `to`, or a named `period` resolved in the site's zone (as the report takes them). */
function daysAsked(c: Context<AuthEnv>, now: number): { from?: string; to?: string } {
  const period = c.req.query('period');
  if (period === undefined) return { from: c.req.query('from'), to: c.req.query('to') };
  if (c.req.query('from') !== undefined || c.req.query('to') !== undefined) {
    throw new AppError('invalid_parameter', 'give either period or from and to, not both', {
      field: 'period',
    });
  }
  if (!(NAMED_PERIODS as readonly string[]).includes(period)) {
    throw new AppError('invalid_parameter', `period must be one of ${NAMED_PERIODS.join(', ')}`, {
      field: 'period',
    });
  }
  return resolveNamedPeriod(period as NamedPeriod, todayIn(c.get('site').timezone, now));
}

/**
 * Notes on a site's chart (annotations): anyone who reads the site reads them; owners write, edit
 * and delete them. Each carries its author.
 */
export function annotationRoutes(deps: QueryDeps) {
  const ctl = deps.control;
  return new Hono<AuthEnv>()
    .get('/sites/:site/annotations', siteRead(), async (c) => {
      requireModule(c.get('site'), 'notes');
      const principal = c.get('principal');
      if (principal?.kind === 'share' && !principal.showNotes) {
        throw new AppError('forbidden', 'this share link does not show notes');
      }
      const query = c.req.queries();
      for (const key of Object.keys(query)) {
        if (key !== 'from' && key !== 'to' && key !== 'period') {
          throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
        }
      }
      const found = await listAnnotations(ctl, c.get('site').id, daysAsked(c, deps.now())).catch(
        (error: unknown) => {
          // a bad from/to is a parameter, not a body
          if (error instanceof AppError && error.code === 'invalid_body') {
            throw new AppError('invalid_parameter', error.message, { field: error.field ?? 'from' });
          }
          throw error;
        },
      );
      // a share link never shows who wrote a note
      const shared = principal?.kind === 'share';
      return c.json({
        annotations: found.map((a) => ({ ...annotationJson(a), author: shared ? null : a.author })),
      });
    })
    .post('/sites/:site/annotations', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'notes');
      const body = await readJson(c, NewAnnotation);
      const made = await createAnnotation(ctl, {
        siteId: site.id,
        day: body.date,
        endDay: body.end_date,
        text: body.text,
        authorId: sessionPrincipal(c).person.id,
      });
      return c.json({ annotation: annotationJson(made) }, 201);
    })
    .patch('/sites/:site/annotations/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'notes');
      const body = await readJson(c, AnnotationPatch);
      const changed = await updateAnnotation(ctl, site.id, c.req.param('id'), {
        day: body.date,
        endDay: body.end_date,
        text: body.text,
      });
      return c.json({ annotation: annotationJson(changed) });
    })
    .delete('/sites/:site/annotations/:id', async (c) => {
      const site = requireSiteRead(c, c.req.param('site'));
      requireModule(site, 'notes');
      await deleteAnnotation(ctl, site.id, c.req.param('id'));
      return c.body(null, 204);
    });
}
