import { AppError } from '@footfall/http';
import type { ControlDb } from './open.ts';
import { randomId } from './tokens.ts';

/** The longest note, in characters: a sentence or two. */
export const ANNOTATION_TEXT_MAX = 500;
/** The most notes a site keeps: far past any chart, and a bound on what one read answers. */
export const ANNOTATIONS_PER_SITE_MAX = 5000;

/** A note on a site's chart: a day or a span of days, its text, and who wrote it. */
export interface Annotation {
  id: string;
  siteId: string;
  day: string;
  endDay: string | null;
  text: string;
  /** null once the author was removed */
  author: { id: string; email: string } | null;
  createdAt: number;
  updatedAt: number;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day between 1970-01-01 and 9999-12-31, or a 400 naming `field`. */
function checkDay(value: string, field: string): string {
  const m = DAY.exec(value);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== value || Number(m[1]) < 1970) {
    throw new AppError('invalid_body', `${field}: must be a day YYYY-MM-DD from 1970 on`, { field });
  }
  return value;
}

function checkText(value: string): string {
  const text = value.trim();
  if (text.length === 0 || text.length > ANNOTATION_TEXT_MAX) {
    throw new AppError('invalid_body', `text: 1 to ${ANNOTATION_TEXT_MAX} characters`, { field: 'text' });
  }
  return text;
}

function checkSpan(day: string, endDay: string | null): void {
  if (endDay !== null && endDay <= day) {
    throw new AppError('invalid_body', 'end_date: must be after date (leave it out for one day)', {
      field: 'end_date',
    });
  }
}

function rows(ctl: ControlDb) {
  return ctl.db
    .selectFrom('annotations as a')
    .leftJoin('people as p', 'p.id', 'a.author_id')
    .select([
      'a.id',
      'a.site_id',
      'a.day',
      'a.end_day',
      'a.text',
      'a.author_id',
      'p.email',
      'a.created_at',
      'a.updated_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof rows>['execute']>>[number];

const toAnnotation = (r: Row): Annotation => ({
  id: r.id,
  siteId: r.site_id,
  day: r.day,
  endDay: r.end_day,
  text: r.text,
  author: r.author_id !== null && r.email !== null ? { id: r.author_id, email: r.email } : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A site's notes touching the days from..to (both optional, inclusive), by day. */
export async function listAnnotations(
  ctl: ControlDb,
  siteId: string,
  range: { from?: string | undefined; to?: string | undefined } = {},
): Promise<Annotation[]> {
  let q = rows(ctl).where('a.site_id', '=', siteId);
  if (range.to !== undefined) q = q.where('a.day', '<=', checkDay(range.to, 'to'));
  if (range.from !== undefined) {
    const from = checkDay(range.from, 'from');
    q = q.where((eb) => eb.or([eb('a.day', '>=', from), eb('a.end_day', '>=', from)]));
  }
  const found = await q.orderBy('a.day').orderBy('a.created_at').orderBy('a.id').execute();
  return found.map(toAnnotation);
}

export async function getAnnotation(ctl: ControlDb, siteId: string, id: string): Promise<Annotation> {
  const row = await rows(ctl).where('a.site_id', '=', siteId).where('a.id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'no such note');
  return toAnnotation(row);
}

/** Writes a note by `authorId` on a day (or a span) of the site. */
export async function createAnnotation(
  ctl: ControlDb,
  input: { siteId: string; day: string; endDay?: string | null | undefined; text: string; authorId: string },
): Promise<Annotation> {
  const day = checkDay(input.day, 'date');
  const endDay = input.endDay == null ? null : checkDay(input.endDay, 'end_date');
  checkSpan(day, endDay);
  const text = checkText(input.text);
  const count = await ctl.db
    .selectFrom('annotations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('site_id', '=', input.siteId)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= ANNOTATIONS_PER_SITE_MAX) {
    throw new AppError(
      'conflict',
      `a site keeps at most ${ANNOTATIONS_PER_SITE_MAX} notes: delete some first`,
    );
  }
  const id = randomId();
  const now = ctl.now();
  await ctl.db
    .insertInto('annotations')
    .values({
      id,
      site_id: input.siteId,
      day,
      end_day: endDay,
      text,
      author_id: input.authorId,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return getAnnotation(ctl, input.siteId, id);
}

/** Changes a note's day, span or text; `endDay: null` makes it one day again. */
export async function updateAnnotation(
  ctl: ControlDb,
  siteId: string,
  id: string,
  change: { day?: string | undefined; endDay?: string | null | undefined; text?: string | undefined },
): Promise<Annotation> {
  const current = await getAnnotation(ctl, siteId, id);
  const day = change.day === undefined ? current.day : checkDay(change.day, 'date');
  const endDay =
    change.endDay === undefined
      ? current.endDay
      : change.endDay === null
        ? null
        : checkDay(change.endDay, 'end_date');
  checkSpan(day, endDay);
  const text = change.text === undefined ? current.text : checkText(change.text);
  await ctl.db
    .updateTable('annotations')
    .set({ day, end_day: endDay, text, updated_at: ctl.now() })
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .execute();
  return getAnnotation(ctl, siteId, id);
}

export async function deleteAnnotation(ctl: ControlDb, siteId: string, id: string): Promise<void> {
  const r = await ctl.db
    .deleteFrom('annotations')
    .where('site_id', '=', siteId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numDeletedRows) === 0) throw new AppError('not_found', 'no such note');
}
