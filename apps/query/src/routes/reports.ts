import {
  type ControlDb,
  canonicalTimeZone,
  listFunnels,
  listGoalsNow,
  type Site,
  searchClicksByPath,
  searchConsoleOf,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { hasConnections, type RateTable } from '@footfall/payments';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { aiSearchReport } from '../ai-search.ts';
import { mergeReports } from '../all-sites.ts';
import type { Analytics } from '../analytics.ts';
import type { AuthEnv } from '../auth/env.ts';
import { siteRead } from '../auth/site-read.ts';
import { crawlerReport } from '../crawlers.ts';
import { CSV_BREAKDOWN_ROWS, reportCsv } from '../csv.ts';
import {
  parseReportParams,
  type RawReportQuery,
  ReportParamError,
  type ReportParams,
} from '../engine/index.ts';
import { reportGoals, resolveGoalFilters } from '../goals.ts';
import { importedParam, readsImported, withImported } from '../imports/merge.ts';
import type { ReadControl } from '../read-control.ts';
import { dateRangeSpan } from '../report-cache.ts';
import { REVENUE_PARAMS, revenueOptions, withRevenue } from '../revenue.ts';
import {
  ALL_SITES_AT_ONCE,
  ALL_SITES_PARAMS,
  breakdownList,
  inBatches,
  readableSites,
} from './all-sites-request.ts';
import { funnelReport } from './funnels.ts';
import { goalJson } from './goals.ts';
import { requireModule } from './modules.ts';

/** A site's report takes what a report of several sites takes, and its day rows and imported days. */
const REPORT_PARAMS = [...ALL_SITES_PARAMS, 'daily', 'imported'];

/** What revenue needs beside the analytics: the ledger, and the exchange rates held. */
export interface RevenueSources {
  control: ControlDb;
  rates: () => RateTable | undefined;
}
const PERIOD_PARAMS = ['period', 'from', 'to', 'f'];
/** How often an open live stream asks again whether its caller may still read the site. */
const LIVE_ACCESS_CHECK_MS = 2000;

/** Parses report parameters, refusing unknown ones; 400 naming the parameter. */
function params(
  query: RawReportQuery,
  allowed: readonly string[],
  site: Site,
  now: number,
  control: ControlDb | undefined,
): ReportParams {
  const engineQuery: RawReportQuery = {};
  for (const [key, value] of Object.entries(query)) {
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
    if (!REVENUE_PARAMS.includes(key) && key !== 'imported') engineQuery[key] = value;
  }
  try {
    const p = parseReportParams(engineQuery, site.timezone, now);
    return { ...p, filters: resolveGoalFilters(control, site, p.filters) };
  } catch (e) {
    if (e instanceof ReportParamError) throw new AppError('invalid_parameter', e.message, { field: e.param });
    throw e;
  }
}

/**
 * The site's zone as the analytics engine is given it: Intl's name for it, which every ICU knows
 * (`Europe/Kyiv` is handed over as `Europe/Kiev`); answers carry the name the owner chose.
 */
const engineZone = (site: Site): string => canonicalTimeZone(site.timezone);

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
 * Every read runs under `reads`: stopped when its client leaves or its time limit passes.
 */
export function reportRoutes(
  a: Analytics,
  reads: ReadControl,
  now: () => number = Date.now,
  sources?: RevenueSources,
) {
  /** The report with its revenue when the site has a payment connection (never cached: the ledger moves on its own). */
  const reportWithRevenue = async (
    c: Context<AuthEnv>,
    site: Site,
    p: ReportParams,
    query: RawReportQuery,
  ) => {
    const options = revenueOptions(query);
    const counted = await report(c, site, p);
    // imported days are added last: goals and revenue are native only
    const imported = <T extends typeof counted>(answer: T) =>
      sources && readsImported(p, importedParam(query))
        ? withImported(sources.control, site.id, p, answer)
        : { ...answer, imported: null };
    const goals = sources
      ? await reads.run(c, (signal) =>
          reportGoals(sources.control, a.engine, {
            site,
            timeZone: engineZone(site),
            period: p.period,
            filters: p.filters,
            visitors: counted.kpis.visitors,
            signal,
          }),
        )
      : null;
    const analytics = { ...counted, goals };
    // revenue is shown once the site has a payment connection, and while its module is on
    if (!sources || !site.modules.revenue || !hasConnections(sources.control, site.id)) {
      return imported({ ...analytics, revenue: null });
    }
    const matches = (goals ?? []).map((g) => ({ kind: g.kind, match: g.match, prop: g.prop }));
    const { goal_revenue: goalRevenue, ...answer } = await reads.run(c, (signal) =>
      withRevenue({
        control: sources.control,
        rates: sources.rates(),
        site,
        report: analytics,
        params: p,
        options,
        attribute: (anchors) =>
          a.engine.attribute({ site: site.id, anchors, model: options.model, filters: p.filters, signal }),
        goals: matches,
        goalPayers: (anchors, list) => a.engine.goalPayers({ site: site.id, anchors, goals: list, signal }),
      }),
    );
    // with revenue, each goal says what the people who reached it paid
    return imported({
      ...answer,
      goals: goals?.map((g, i) => ({ ...g, revenue: goalRevenue?.[i] ?? 0 })) ?? null,
    });
  };
  const report = async (c: Context<AuthEnv>, site: Site, p: ReportParams) => {
    // the site's zone as the engine knows it; the answer says it as the owner chose it
    const key = `${site.id}|${site.timezone}|${JSON.stringify(p)}`;
    const hit = a.cache.get<Awaited<ReturnType<typeof a.engine.report>>>(key);
    if (hit) return hit;
    // stored under the generation before the query: a batch committed meanwhile makes it stale
    const generation = a.cache.generation;
    const value = await reads.run(c, async (signal) => ({
      ...(await a.engine.report({ site: site.id, timeZone: engineZone(site), params: p, signal })),
      time_zone: site.timezone,
    }));
    const ranges = [dateRangeSpan(p.period.from, p.period.to)];
    if (p.compare) ranges.push(dateRangeSpan(p.compare.from, p.compare.to));
    a.cache.set(key, site.id, ranges, value, generation);
    return value;
  };

  /** site, period and filters of a heatmap or retention request */
  const periodQuery = (c: Context<AuthEnv>) => {
    const site = c.get('site');
    const p = params(c.req.queries(), PERIOD_PARAMS, site, now(), sources?.control);
    return { site: site.id, timeZone: engineZone(site), period: p.period, filters: p.filters };
  };

  return new Hono<AuthEnv>()
    .get('/sites/:site/report', siteRead(), async (c) => {
      const site = c.get('site');
      const query = c.req.queries();
      const p = params(query, [...REPORT_PARAMS, ...REVENUE_PARAMS], site, now(), sources?.control);
      return c.json(await reportWithRevenue(c, site, p, query));
    })
    .get('/report', async (c) => {
      const { sites: asked, breakdowns, ...query } = c.req.queries();
      const chosen = readableSites(c, asked);
      const only = breakdownList(breakdowns);
      const each = chosen.map((site) => ({
        site,
        p: { ...params(query, ALL_SITES_PARAMS, site, now(), sources?.control), ...(only ? { only } : {}) },
      }));
      // a few sites at a time: each report is its own statements (and cached on its own), and the
      // engine's threads overlap one site's wait with another's work
      const parts = await inBatches(each, ALL_SITES_AT_ONCE, async ({ site, p }) => ({
        id: site.id,
        domain: site.domain,
        report: await report(c, site, p),
      }));
      return c.json(mergeReports(parts, each[0]!.p.limit));
    })
    .get('/sites/:site/export.csv', siteRead(), async (c) => {
      const site = c.get('site');
      const query = c.req.queries();
      const all = [...REPORT_PARAMS, ...REVENUE_PARAMS];
      const p = params({ limit: [String(CSV_BREAKDOWN_ROWS)], ...query }, all, site, now(), sources?.control);
      const csv = reportCsv(await reportWithRevenue(c, site, p, query));
      c.header('Content-Type', 'text/csv; charset=utf-8');
      c.header(
        'Content-Disposition',
        `attachment; filename="footfall-${site.domain}-${p.period.from}-${p.period.to}.csv"`,
      );
      return c.body(csv);
    })
    .get('/sites/:site/now', siteRead(), async (c) => {
      const limit = intParam(c.req.query('limit'), 'limit', 20, 200);
      const site = c.get('site').id;
      return c.json(await reads.run(c, (signal) => a.engine.now({ site, limit, signal })));
    })
    .get('/sites/:site/events', siteRead(), async (c) => {
      const limit = intParam(c.req.query('limit'), 'limit', 50, 500);
      const site = c.get('site').id;
      const events = await reads.run(c, (signal) => a.engine.recentEvents({ site, limit, signal }));
      return c.json({ events });
    })
    .get('/sites/:site/report/heatmap', siteRead(), async (c) => {
      const q = periodQuery(c);
      return c.json(await reads.run(c, (signal) => a.engine.heatmap({ ...q, signal })));
    })
    .get('/sites/:site/report/retention', siteRead(), async (c) => {
      requireModule(c.get('site'), 'retention');
      const q = periodQuery(c);
      return c.json(await reads.run(c, (signal) => a.engine.retention({ ...q, signal })));
    })
    .get('/sites/:site/report/charts', siteRead(), async (c) => {
      const site = c.get('site');
      const p = params(c.req.queries(), [...PERIOD_PARAMS, 'bucket'], site, now(), sources?.control);
      const goals = site.modules.goals && sources ? listGoalsNow(sources.control, site.id) : [];
      const charts = await reads.run(c, (signal) =>
        a.engine.charts({
          site: site.id,
          timeZone: engineZone(site),
          period: p.period,
          filters: p.filters,
          bucket: p.bucket,
          goals:
            goals.length === 0 ? null : goals.map((g) => ({ kind: g.kind, match: g.match, prop: g.prop })),
          signal,
        }),
      );
      return c.json({ period: p.period, ...charts });
    })
    .get('/sites/:site/moments', siteRead(), async (c) => {
      const site = c.get('site');
      const query = c.req.queries();
      const bucket = query.bucket?.[0] ?? 'day';
      if (bucket !== 'day' && bucket !== 'hour') {
        throw new AppError('invalid_parameter', 'bucket: moments come by day or hour', { field: 'bucket' });
      }
      const p = params(
        { ...query, bucket: [bucket] },
        [...PERIOD_PARAMS, 'bucket'],
        site,
        now(),
        sources?.control,
      );
      const moments = await reads.run(c, (signal) =>
        a.engine.moments({
          site: site.id,
          timeZone: engineZone(site),
          period: p.period,
          filters: p.filters,
          bucket,
          signal,
        }),
      );
      return c.json({ period: p.period, ...moments });
    })
    .get('/sites/:site/report/crawlers', siteRead(), async (c) => {
      requireModule(c.get('site'), 'crawlers');
      const q = periodQuery(c);
      return c.json(await reads.run(c, () => crawlerReport(a.engine, q)));
    })
    .get('/sites/:site/report/goal-props', siteRead(), async (c) => {
      const site = c.get('site');
      requireModule(site, 'goals');
      const { goal: names, ...rest } = c.req.queries();
      if (names === undefined || names.length !== 1 || !names[0]) {
        throw new AppError('invalid_parameter', "goal: the goal's name, once", { field: 'goal' });
      }
      const found = sources
        ? listGoalsNow(sources.control, site.id).find((g) => g.name === names[0])
        : undefined;
      if (!found) {
        throw new AppError('invalid_parameter', `goal: the site has no goal named ${names[0]}`, {
          field: 'goal',
        });
      }
      const p = params(rest, PERIOD_PARAMS, site, now(), sources?.control);
      const properties = await reads.run(c, (signal) =>
        a.engine.goalProperties({
          site: site.id,
          timeZone: engineZone(site),
          period: p.period,
          filters: p.filters,
          goal: { kind: found.kind, match: found.match, prop: found.prop },
          signal,
        }),
      );
      return c.json({ period: p.period, goal: goalJson(found), properties });
    })
    .get('/sites/:site/report/funnels', siteRead(), async (c) => {
      requireModule(c.get('site'), 'funnels');
      const q = periodQuery(c);
      const funnels = sources ? await listFunnels(sources.control, q.site) : [];
      // one read per funnel, one after another (a site has ten at most)
      const counted = await reads.run(c, async (signal) => {
        const out = [];
        for (const f of funnels) {
          const steps = f.steps.map((s) => ({ kind: s.kind, match: s.match, prop: s.prop }));
          out.push({
            funnel: f,
            counts: await a.engine.funnel({ ...q, steps, withinDays: f.withinDays, signal }),
          });
        }
        return out;
      });
      return c.json({
        period: q.period,
        funnels: counted.map(({ funnel, counts }) => funnelReport(funnel, counts)),
      });
    })
    .get('/sites/:site/report/ai-search', siteRead(), async (c) => {
      requireModule(c.get('site'), 'crawlers');
      const q = periodQuery(c);
      const connection = sources ? searchConsoleOf(sources.control, q.site) : undefined;
      const search =
        sources && connection
          ? {
              property: connection.property,
              syncedAt: connection.syncedAt,
              clicks: searchClicksByPath(sources.control, q.site, q.period.from, q.period.to),
            }
          : null;
      return c.json(await reads.run(c, (signal) => aiSearchReport(a.engine, { ...q, signal }, search)));
    })
    .get('/sites/:site/report/vitals', siteRead(), async (c) => {
      requireModule(c.get('site'), 'vitals');
      const q = periodQuery(c);
      return c.json({
        period: q.period,
        ...(await reads.run(c, (signal) => a.engine.vitals({ ...q, signal }))),
      });
    })
    .get('/sites/:site/journey/:visitor', siteRead(), async (c) => {
      const visitor = c.req.param('visitor');
      if (!/^[A-Za-z0-9_-]{8,64}$/.test(visitor)) {
        throw new AppError('invalid_parameter', 'visitor must be 8 to 64 url-safe characters', {
          field: 'visitor',
        });
      }
      const site = c.get('site').id;
      return c.json(await reads.run(c, (signal) => a.engine.journey({ site, visitor, signal })));
    })
    .get('/sites/:site/live', siteRead(), (c) => {
      const site = c.get('site').id;
      const mayStillRead = c.get('mayStillRead');
      c.header('X-Accel-Buffering', 'no');
      const res = streamSSE(c, async (stream) => {
        let queue = Promise.resolve();
        let end: () => void = () => {};
        let open = true;
        const ended = new Promise<void>((resolve) => {
          end = () => {
            open = false;
            resolve();
          };
          stream.onAbort(end);
        });
        const unsubscribe = a.live.subscribe(
          site,
          (visits) => {
            if (!open) return;
            queue = queue
              .then(() => stream.writeSSE({ event: 'visits', data: JSON.stringify(visits) }))
              .catch(() => {});
          },
          () => end(),
        );
        // the stream lives as long as its access: a deleted key, a session signed out or a person
        // removed, site access withdrawn or the site deleted ends it within LIVE_ACCESS_CHECK_MS
        const accessCheck = setInterval(() => {
          void mayStillRead(site).then((ok) => {
            if (!ok) end();
          });
        }, LIVE_ACCESS_CHECK_MS);
        // an event every 15 s keeps proxies from closing an idle stream, and lets a client tell a
        // quiet stream from a blocked one (EventSource does not show comments): the dashboard
        // falls back to polling when it hears nothing for 25 s
        const keepAlive = setInterval(() => {
          queue = queue
            .then(() => stream.writeSSE({ event: 'ping', data: String(Date.now()) }))
            .catch(() => {});
        }, 15_000);
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ site }), retry: 3000 });
        await ended;
        clearInterval(keepAlive);
        clearInterval(accessCheck);
        unsubscribe();
      });
      // after streamSSE, which sets a bare `no-cache`: no-transform keeps compressing proxies from buffering
      res.headers.set('Cache-Control', 'no-cache, no-transform');
      return res;
    });
}
