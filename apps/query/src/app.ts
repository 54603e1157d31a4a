import { getSite, resolveSession, scopeAllows, siteScopeOf } from '@footfall/control';
import {
  API_BODY_BYTES,
  bodyLimitFor,
  IMPORT_BODY_BYTES,
  limitBody,
  livenessRoutes,
  onError,
} from '@footfall/http';
import { Hono } from 'hono';
import { timing } from 'hono/timing';
import { accessGuard } from './auth/guard.ts';
import { dashboardFallback } from './dashboard.ts';
import type { QueryDeps } from './deps.ts';
import { mountMcp } from './mcp.ts';
import { mountMetrics, queryMetrics } from './metrics.ts';
import { accountRoutes } from './routes/account.ts';
import { alertRoutes } from './routes/alerts.ts';
import { annotationRoutes } from './routes/annotations.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { cardRoutes } from './routes/cards.ts';
import { emailReportRoutes } from './routes/email-reports.ts';
import { funnelRoutes } from './routes/funnels.ts';
import { goalRoutes } from './routes/goals.ts';
import { healthRoutes } from './routes/health.ts';
import { importRoutes } from './routes/imports.ts';
import { milestoneRoutes, momentCard } from './routes/milestones.ts';
import { operatorRoutes } from './routes/operator.ts';
import { paymentRoutes } from './routes/payments.ts';
import { peopleRoutes } from './routes/people.ts';
import { reportRoutes } from './routes/reports.ts';
import { searchConsoleRoutes } from './routes/search-console.ts';
import { segmentRoutes } from './routes/segments.ts';
import { sessionRoutes } from './routes/session.ts';
import { setupRoutes } from './routes/setup.ts';
import { shareRoutes } from './routes/shares.ts';
import { siteAccessRoutes } from './routes/site-access.ts';
import { siteLayoutRoutes } from './routes/site-layout.ts';
import { siteReadRoutes } from './routes/site-reads.ts';
import { siteRoutes } from './routes/sites.ts';
import { ssoRoutes } from './routes/sso.ts';

/**
 * The query service's HTTP app: `/api/v1`, the operator endpoints and the dashboard.
 * Every answer carries `Server-Timing`. Every route's access is declared in auth/access.ts and
 * checked by the guard before its handler runs; no body over API_BODY_BYTES is read.
 */
export function createQueryApp(deps: QueryDeps) {
  const app = new Hono();
  const metrics = queryMetrics(deps);
  app.use('*', timing({ crossOrigin: false }));
  app.use('*', metrics.timing);
  app.use('*', accessGuard(deps));
  // after the guard, so a caller it refuses has none of the body read; by Content-Length at once,
  // a chunked body as it is read: no request holds more than this in memory
  const [apiBodies, importBodies] = [limitBody(API_BODY_BYTES), limitBody(IMPORT_BODY_BYTES)];
  app.use('*', (c, next) =>
    (bodyLimitFor(c.req.path) === IMPORT_BODY_BYTES ? importBodies : apiBodies)(c, next),
  );
  app.onError(onError(deps.logger));
  // no route: the dashboard's files and pages, or the JSON 404
  // sites whose status or trend said they have visits: their page preloads the report too
  const visited = new Set<string>();
  app.notFound(
    dashboardFallback(
      deps.dashboardDir,
      deps.config.updateCheck,
      visited,
      (site) => getSite(deps.control, site)?.modules,
      async (token) => {
        const session = await resolveSession(deps.control, token);
        if (session === undefined) return undefined;
        const scope = await siteScopeOf(deps.control, session.person);
        return (id) => {
          const site = getSite(deps.control, id);
          return site && scopeAllows(scope, id) ? momentCard(deps.control, site, session.person.id) : null;
        };
      },
    ),
  );
  app.route('/', livenessRoutes());
  app.route('/api/v1', healthRoutes(deps));
  app.route('/api/v1', setupRoutes(deps));
  app.route('/api/v1', sessionRoutes(deps));
  app.route('/api/v1', ssoRoutes(deps));
  app.route('/api/v1', accountRoutes(deps));
  app.route('/api/v1', peopleRoutes(deps));
  app.route('/api/v1', apiKeyRoutes(deps));
  app.route('/api/v1', siteRoutes(deps));
  app.route('/api/v1', siteLayoutRoutes(deps));
  app.route('/api/v1', siteAccessRoutes(deps));
  app.route(
    '/api/v1',
    reportRoutes(deps.analytics, deps.reads, deps.now, {
      control: deps.control,
      rates: () => deps.exchangeRates?.table,
    }),
  );
  app.route('/api/v1', siteReadRoutes(deps, visited));
  app.route('/api/v1', paymentRoutes(deps));
  app.route('/api/v1', annotationRoutes(deps));
  app.route('/api/v1', segmentRoutes(deps));
  app.route('/api/v1', goalRoutes(deps));
  app.route('/api/v1', funnelRoutes(deps));
  app.route('/api/v1', alertRoutes(deps));
  app.route('/api/v1', shareRoutes(deps));
  app.route('/api/v1', searchConsoleRoutes(deps));
  app.route('/api/v1', importRoutes(deps));
  app.route('/api/v1', cardRoutes(deps));
  app.route('/', milestoneRoutes(deps));
  app.route('/', emailReportRoutes(deps));
  app.route('/_footfall', operatorRoutes(deps));
  mountMcp(app);
  mountMetrics(app, deps, metrics);
  return app;
}
