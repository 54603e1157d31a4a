import {
  canonicalTimeZone,
  faviconOf,
  type InstallCheck,
  importedRanges,
  installCheckOf,
  listSites,
  scopeAllows,
} from '@footfall/control';
import { AppError } from '@footfall/http';
import { hasConnections } from '@footfall/payments';
import { Hono } from 'hono';
import { STOPPED_AFTER_MS } from '../alerts/alerts.ts';
import type { AuthEnv } from '../auth/env.ts';
import { siteRead } from '../auth/site-read.ts';
import type { QueryDeps } from '../deps.ts';
import {
  type BreakdownName,
  parseReportParams,
  ReportParamError,
  VISIT_DIMENSIONS,
} from '../engine/index.ts';
import { resolveGoalFilters } from '../goals.ts';
import { breakdownWithImported, importedParam, readsImported } from '../imports/merge.ts';
import { breakdownWithRevenue, REVENUE_PARAMS, revenueOptions } from '../revenue.ts';

/**
 * A site's state (spec, Site lifecycle): waiting for its first visit, active, or stopped: the
 * install check found it quiet for two days (docs/alerts.md) and its last visit is still more than
 * two days old (a visit loaded after the check, from a backlog, makes it active again).
 */
function siteState(
  firstVisit: number | null,
  lastSeen: number | null,
  check: InstallCheck | undefined,
  now: number,
) {
  if (firstVisit === null) return 'waiting' as const;
  const stopped = (check?.stoppedAt ?? null) !== null && now - (lastSeen ?? 0) >= STOPPED_AFTER_MS;
  return stopped ? ('stopped' as const) : ('active' as const);
}

const BREAKDOWNS: readonly string[] = [...VISIT_DIMENSIONS, 'pages', 'events', 'hostname'];
const DAY_MS = 86_400_000;
const dayString = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);
const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / DAY_MS;
const today = (timeZone: string, nowMs: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone }).format(nowMs);

/** A query parameter given at most once, or undefined. */
function single(query: Record<string, string[]>, name: string): string | undefined {
  const values = query[name];
  if (values === undefined) return undefined;
  if (values.length > 1)
    throw new AppError('invalid_parameter', `${name} must be given once`, { field: name });
  return values[0];
}

function refuseUnknown(query: Record<string, string[]>, allowed: readonly string[]): void {
  for (const key of Object.keys(query)) {
    if (!allowed.includes(key))
      throw new AppError('invalid_parameter', `unknown parameter ${key}`, { field: key });
  }
}

/**
 * Reads the dashboard needs besides the report, each answering a whole view:
 * - `GET /sites/{site}/report/breakdown`: one breakdown in full (a panel opened on its own), with
 *   a text search over its values;
 * - `GET /sites/{site}/status`: whether the site has had its first visit (the install screen
 *   waits for it), the day it came and the last activity;
 * - `GET /site-trends`: distinct visitors per day of every site the caller may see, with each
 *   site's state (the sites list: its small charts, and which sites still wait for a first visit),
 *   in one request.
 */
export function siteReadRoutes(deps: QueryDeps, visited: Set<string> = new Set()) {
  const { engine } = deps.analytics;
  const reads = deps.reads;
  return new Hono<AuthEnv>()
    .get('/sites/:site/report/breakdown', siteRead(), async (c) => {
      const site = c.get('site');
      const query = c.req.queries();
      refuseUnknown(query, [
        'dim',
        'period',
        'from',
        'to',
        'f',
        'limit',
        'search',
        'imported',
        ...REVENUE_PARAMS,
      ]);
      const withImports = readsImported({ filters: query['f'] ?? [] }, importedParam(query));
      const options = revenueOptions(query);
      const dim = single(query, 'dim');
      if (dim === undefined || !BREAKDOWNS.includes(dim)) {
        throw new AppError('invalid_parameter', `dim must be one of ${BREAKDOWNS.join(', ')}`, {
          field: 'dim',
        });
      }
      const search = single(query, 'search');
      if (search !== undefined && (search.length < 1 || search.length > 200)) {
        throw new AppError('invalid_parameter', 'search must be 1 to 200 characters', { field: 'search' });
      }
      const { dim: _, search: __, attr: _attr, payments: _payments, imported: _imported, ...rest } = query;
      let params: ReturnType<typeof parseReportParams>;
      try {
        params = parseReportParams({ limit: ['100'], ...rest }, site.timezone, deps.now());
        params = { ...params, filters: resolveGoalFilters(deps.control, site, params.filters) };
      } catch (e) {
        if (e instanceof ReportParamError)
          throw new AppError('invalid_parameter', e.message, { field: e.param });
        throw e;
      }
      const timeZone = canonicalTimeZone(site.timezone);
      const native = await reads.run(c, (signal) =>
        engine.breakdown({ site: site.id, timeZone, params, name: dim as BreakdownName, search, signal }),
      );
      const answer = withImports
        ? breakdownWithImported(deps.control, site.id, params.period, params.limit, native, search)
        : { ...native, imported: null };
      if (!site.modules.revenue || !hasConnections(deps.control, site.id)) {
        return c.json({ ...answer, revenue: null });
      }
      return c.json(
        await reads.run(c, (signal) =>
          breakdownWithRevenue({
            control: deps.control,
            rates: deps.exchangeRates?.table,
            site,
            answer,
            params,
            options,
            search,
            attribute: (anchors) =>
              engine.attribute({
                site: site.id,
                anchors,
                model: options.model,
                filters: params.filters,
                signal,
              }),
          }),
        ),
      );
    })
    .get('/sites/:site/status', siteRead(), async (c) => {
      const site = c.get('site');
      const { firstVisit, lastSeen } = await reads.run(c, (signal) =>
        engine.status({ site: site.id, signal }),
      );
      const check = installCheckOf(deps.control, site.id);
      const imported = importedRanges(deps.control, site.id);
      if (firstVisit !== null) visited.add(site.id);
      return c.json({
        // received events the reports do not count yet (all sites': the log mixes them)
        loading_events: await deps.analytics.tailer.liveLag(),
        state: siteState(firstVisit, lastSeen, check, deps.now()),
        first_day: firstVisit === null ? null : today(site.timezone, firstVisit),
        last_seen: lastSeen === null ? null : new Date(lastSeen).toISOString(),
        imported:
          imported.length === 0
            ? null
            : {
                from: imported[0]!.from,
                to: imported
                  .map((r) => r.to)
                  .sort()
                  .at(-1)!,
              },
        install_check:
          check === undefined
            ? null
            : {
                checked_at: new Date(check.checkedAt).toISOString(),
                tracker: check.outcome.tracker,
                detail: check.outcome.detail,
              },
      });
    })
    .get('/sites/:site/favicon', siteRead(), (c) => {
      // fetched by the server through the outbound guard (alerts/install-check.ts), so the
      // dashboard never asks the site itself; only raster images are kept
      const image = faviconOf(deps.control, c.get('site').id)?.image;
      if (!image) throw new AppError('not_found', 'no favicon of this site yet');
      return c.body(new Uint8Array(image.bytes), 200, {
        'content-type': image.contentType,
        'cache-control': 'private, max-age=86400',
        'x-content-type-options': 'nosniff',
      });
    })
    .get('/site-trends', async (c) => {
      const principal = c.get('principal')!;
      const query = c.req.queries();
      refuseUnknown(query, ['days']);
      const raw = single(query, 'days') ?? '30';
      if (!/^\d{1,2}$/.test(raw) || Number(raw) < 1 || Number(raw) > 90) {
        throw new AppError('invalid_parameter', 'days must be a whole number from 1 to 90', {
          field: 'days',
        });
      }
      const days = Number(raw);
      const sites = listSites(deps.control).filter((s) => scopeAllows(principal.scope, s.id));
      const trends = await reads.run(c, (signal) =>
        Promise.all(
          sites.map(async (site) => {
            const to = today(site.timezone, deps.now());
            const period = { from: dayString(dayNumber(to) - days + 1), to };
            const [visitors, status] = await Promise.all([
              engine.dailyVisitors({
                site: site.id,
                timeZone: canonicalTimeZone(site.timezone),
                period,
                signal,
              }),
              engine.status({ site: site.id, signal }),
            ]);
            if (status.firstVisit !== null) visited.add(site.id);
            return {
              site: site.id,
              state: siteState(
                status.firstVisit,
                status.lastSeen,
                installCheckOf(deps.control, site.id),
                deps.now(),
              ),
              favicon: faviconOf(deps.control, site.id)?.image != null,
              last_seen: status.lastSeen === null ? null : new Date(status.lastSeen).toISOString(),
              from: period.from,
              to: period.to,
              visitors,
            };
          }),
        ),
      );
      return c.json({ days, trends });
    });
}
