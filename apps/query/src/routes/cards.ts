import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import type { AuthEnv } from '../auth/env.ts';
import { siteRead } from '../auth/site-read.ts';
import type { CardData } from '../cards/render.ts';
import type { QueryDeps } from '../deps.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The windows a card covers, each ending now, and how its line is sliced. */
const PERIODS = {
  '24h': { ms: DAY, buckets: 24, words: 'in the last 24 hours', before: 'the 24 hours before' },
  '7d': { ms: 7 * DAY, buckets: 7, words: 'in the last 7 days', before: 'the 7 days before' },
  '30d': { ms: 30 * DAY, buckets: 30, words: 'in the last 30 days', before: 'the 30 days before' },
} as const;
const KINDS = ['visitors', 'visits', 'pageviews'] as const;
const PARAMS = ['kind', 'period', 'theme', 'accent'];

export function pick<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  field: string,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AppError('invalid_parameter', `${field}: one of ${allowed.join(', ')}`, { field });
  }
  return value as T;
}

/** The `accent` parameter: six hex digits, with or without `#` (default 4338ca). */
export function accentOf(raw: string | undefined, fallback = '4338ca'): string {
  const accent = (raw ?? fallback).replace(/^#/, '').toLowerCase();
  if (!/^[0-9a-f]{6}$/.test(accent)) {
    throw new AppError('invalid_parameter', 'accent: a colour as six hex digits (4338ca)', {
      field: 'accent',
    });
  }
  return accent;
}

/** Unknown query parameters are a 400 naming the first. */
export function onlyParams(query: Record<string, string>, allowed: readonly string[]): void {
  for (const key of Object.keys(query)) {
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
  }
}

/** Cards drawn lately, by what they show: the same words and numbers draw the same PNG. */
const drawn = new Map<string, Buffer>();
/** about 50 to 100 KB each */
const DRAWN_KEPT = 16;

/**
 * A card drawn in the card pool and answered as a PNG; 503 busy when 20 already wait. The last
 * cards drawn are kept: a milestone's card, shown above the report, takes a second or two to draw
 * on a busy machine and then nothing at all.
 * `cache` is the Cache-Control (private to the credential unless the card is public).
 */
export async function drawnCard(
  c: Context,
  deps: QueryDeps,
  data: CardData,
  cache = 'private, max-age=300',
): Promise<Response> {
  if (!deps.cards) throw new AppError('unavailable', 'cards are not drawn here');
  const key = JSON.stringify(data);
  let png = drawn.get(key);
  if (png === undefined) {
    png = await deps.cards.draw(data).catch((error: unknown) => {
      if (/queue is at limit/i.test((error as Error).message ?? ''))
        throw new AppError('busy', 'too many cards are being drawn: try again', { retryAfter: 2 });
      throw error;
    });
    if (drawn.size >= DRAWN_KEPT) drawn.delete(drawn.keys().next().value as string);
  } else {
    drawn.delete(key); // kept as the newest
  }
  drawn.set(key, png);
  return c.body(new Uint8Array(png), 200, {
    'content-type': 'image/png',
    'cache-control': cache,
    'x-content-type-options': 'nosniff',
  });
}

/**
 * `GET …/card`: a 1200 × 630 PNG of one number of the site (visitors, visits or pageviews) over a
 * rolling 24 hours, 7 or 30 days ending now, with its line and the change on the window before,
 * light or dark, in an accent colour. Drawn in the card pool's worker threads (cards/pool.ts),
 * never on the event loop.
 */
export function cardRoutes(deps: QueryDeps) {
  return new Hono<AuthEnv>().get('/sites/:site/card', siteRead(), async (c) => {
    const site = c.get('site');
    const query = c.req.query();
    onlyParams(query, PARAMS);
    const kind = pick(query.kind, KINDS, 'kind', 'visitors');
    const periodName = pick(query.period, Object.keys(PERIODS) as (keyof typeof PERIODS)[], 'period', '7d');
    const theme = pick(query.theme, ['light', 'dark'] as const, 'theme', 'light');
    const accent = accentOf(query.accent);
    const period = PERIODS[periodName];
    const to = deps.now();
    const engine = deps.analytics.engine;
    const [now, before] = await deps.reads.run(c, (signal) =>
      Promise.all([
        engine.windowTotals({ site: site.id, from: to - period.ms, to, buckets: period.buckets, signal }),
        engine.windowTotals({
          site: site.id,
          from: to - 2 * period.ms,
          to: to - period.ms,
          buckets: 1,
          signal,
        }),
      ]),
    );
    const value = now[kind];
    const was = before[kind];
    const change =
      was > 0
        ? ` · ${value >= was ? 'up' : 'down'} ${Math.round((Math.abs(value - was) / was) * 100)}% on ${period.before}`
        : '';
    return drawnCard(c, deps, {
      domain: site.domain,
      value: new Intl.NumberFormat('en').format(value),
      label: value === 1 ? kind.replace(/s$/, '') : kind,
      detail: `${period.words}${change}`,
      series: now.series.map((b) => b[kind]),
      theme,
      accent: `#${accent}`,
      width: 1200,
      height: 630,
    });
  });
}
