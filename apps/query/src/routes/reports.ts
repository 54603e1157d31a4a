import type { Site } from '@footfall/control';
import { AppError } from '@footfall/http';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Analytics } from '../analytics.ts';
import type { AuthEnv } from '../auth/env.ts';
import { siteRead } from '../auth/site-read.ts';
import { CSV_BREAKDOWN_ROWS, reportCsv } from '../csv.ts';
import {
  parseReportParams,
  type RawReportQuery,
  ReportParamError,
  type ReportParams,
} from '../engine/index.ts';
import { dateRangeSpan } from '../report-cache.ts';

const REPORT_PARAMS = ['from', 'to', 'compare', 'cfrom', 'cto', 'bucket', 'f', 'daily', 'deep', 'limit'];
const PERIOD_PARAMS = ['from', 'to', 'f'];

/** Parses report parameters, refusing unknown ones; 400 naming the parameter. */
function params(query: RawReportQuery, allowed: readonly string[], site: Site, now: number): ReportParams {
  for (const key of Object.keys(query)) {
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
  }
  try {
    return parseReportParams(query, site.timezone, now);
  } catch (e) {
    if (e instanceof ReportParamError) throw new AppError('invalid_parameter', e.message, { field: e.param });
    throw e;
  }
}

/** A whole number query parameter within bounds, or the default. */
function intParam(value: string | undefined, name: string, def: number, max: number): number {
  if (value === undefined) return def;
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new AppError('invalid_parameter', `${name} must be a whole number from 1 to ${max}`, {
      field: name,
    });
  }
  return Number(value);
}

/**
 * The read routes of one site: the report (cached until a commit touches its range), its CSV,
 * right-now numbers, the recent feed, the live stream, heatmap, retention and one visitor's path.
 */
export function reportRoutes(a: Analytics, now: () => number = Date.now) {
  const report = async (site: Site, p: ReportParams) => {
    const key = `${site.id}|${site.timezone}|${JSON.stringify(p)}`;
    const hit = a.cache.get<Awaited<ReturnType<typeof a.engine.report>>>(key);
    if (hit) return hit;
    const value = await a.engine.report({ site: site.id, timeZone: site.timezone, params: p });
    const ranges = [dateRangeSpan(p.period.from, p.period.to)];
    if (p.compare) ranges.push(dateRangeSpan(p.compare.from, p.compare.to));
    a.cache.set(key, site.id, ranges, value);
    return value;
  };

  /** site, period and filters of a heatmap or retention request */
  const periodQuery = (c: Context<AuthEnv>) => {
    const site = c.get('site');
    const p = params(c.req.queries(), PERIOD_PARAMS, site, now());
    return { site: site.id, timeZone: site.timezone, period: p.period, filters: p.filters };
  };

  return new Hono<AuthEnv>()
    .get('/sites/:site/report', siteRead(), async (c) => {
      const site = c.get('site');
      return c.json(await report(site, params(c.req.queries(), REPORT_PARAMS, site, now())));
    })
    .get('/sites/:site/export.csv', siteRead(), async (c) => {
      const site = c.get('site');
      const query = c.req.queries();
      const p = params({ limit: [String(CSV_BREAKDOWN_ROWS)], ...query }, REPORT_PARAMS, site, now());
      const csv = reportCsv(await report(site, p));
      c.header('Content-Type', 'text/csv; charset=utf-8');
      c.header(
        'Content-Disposition',
        `attachment; filename="footfall-${site.domain}-${p.period.from}-${p.period.to}.csv"`,
      );
      return c.body(csv);
    })
    .get('/sites/:site/now', siteRead(), async (c) => {
      const limit = intParam(c.req.query('limit'), 'limit', 20, 200);
      return c.json(await a.engine.now({ site: c.get('site').id, limit }));
    })
    .get('/sites/:site/events', siteRead(), async (c) => {
      const limit = intParam(c.req.query('limit'), 'limit', 50, 500);
      return c.json({ events: await a.engine.recentEvents({ site: c.get('site').id, limit }) });
    })
    .get('/sites/:site/report/heatmap', siteRead(), async (c) =>
      c.json(await a.engine.heatmap(periodQuery(c))),
    )
    .get('/sites/:site/report/retention', siteRead(), async (c) =>
      c.json(await a.engine.retention(periodQuery(c))),
    )
    .get('/sites/:site/journey/:visitor', siteRead(), async (c) => {
      const visitor = c.req.param('visitor');
      if (!/^[A-Za-z0-9_-]{8,64}$/.test(visitor)) {
        throw new AppError('invalid_parameter', 'visitor must be 8 to 64 url-safe characters', {
          field: 'visitor',
        });
      }
      return c.json(await a.engine.journey({ site: c.get('site').id, visitor }));
    })
    .get('/sites/:site/live', siteRead(), (c) => {
      const site = c.get('site').id;
      c.header('X-Accel-Buffering', 'no');
      const res = streamSSE(c, async (stream) => {
        let queue = Promise.resolve();
        let end: () => void = () => {};
        const ended = new Promise<void>((resolve) => {
          end = resolve;
          stream.onAbort(resolve);
        });
        const unsubscribe = a.live.subscribe(
          site,
          (visits) => {
            queue = queue
              .then(() => stream.writeSSE({ event: 'visits', data: JSON.stringify(visits) }))
              .catch(() => {});
          },
          () => end(),
        );
        // a comment every 15 s keeps proxies from closing an idle stream
        const keepAlive = setInterval(() => {
          queue = queue.then(() => stream.write(': keep-alive\n\n').then(() => {})).catch(() => {});
        }, 15_000);
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ site }), retry: 3000 });
        await ended;
        clearInterval(keepAlive);
        unsubscribe();
      });
      // after streamSSE, which sets a bare `no-cache`: no-transform keeps compressing proxies from buffering
      res.headers.set('Cache-Control', 'no-cache, no-transform');
      return res;
    });
}
