import { stat, statfs } from 'node:fs/promises';
import { safeEqual } from '@footfall/control';
import { AppError } from '@footfall/http';
import { allConnections } from '@footfall/payments';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { AlertCounts } from './alerts/alerts.ts';
import type { QueryDeps } from './deps.ts';
import { dataUsage } from './disk.ts';
import type { EmailReportCounts } from './email-reports/run.ts';
import { disk } from './health-content.ts';
import { gatewayMetrics } from './ingest-status.ts';

/** The query service's metrics, and the middleware that times every answer. */
export interface QueryMetrics {
  registry: Registry;
  timing: MiddlewareHandler;
}

/** Seconds, from a cached answer (milliseconds) to the slowest report allowed (30 s by default). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const fileBytes = async (...paths: string[]) => {
  let total = 0;
  for (const p of paths)
    total += await stat(p).then(
      (s) => s.size,
      () => 0,
    );
  return total;
};

/**
 * The query service's metrics (docs/metrics.md): the latency of every answer by route, the report
 * cache, live streams, the write-ahead log's backlog and size, records applied, the databases' and
 * the disk's bytes and runway, payment webhooks waiting, and the process (memory, event-loop lag,
 * CPU, heap). Every series carries `process="query"`; values read elsewhere are read at scrape.
 */
export function queryMetrics(deps: QueryDeps): QueryMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ process: 'query' });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  // gauges named like counters (promtool refuses them); nodejs_active_handles & co. say the same
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    registry.removeSingleMetric(name);
  const { analytics, instance } = deps;
  const gauge = (
    name: string,
    help: string,
    read: (g: Gauge) => Promise<void> | void,
    labelNames: string[] = [],
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        await read(this);
      },
    });
  const latency = new Histogram({
    name: 'footfall_http_request_duration_seconds',
    help: 'Time to answer a request to the query service, by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: 'footfall_report_cache_lookups_total',
    help: 'Report answers looked for in the cache, by result (hit or miss)',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, analytics.cache.hits);
      this.inc({ result: 'miss' }, analytics.cache.misses);
    },
  });
  new Counter({
    name: 'footfall_wal_records_applied_total',
    help: 'Write-ahead log records applied to the analytics database',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(analytics.tailer.applied);
    },
  });
  gauge('footfall_rollups_queued', 'Day rollups (a site, zone and day each) waiting to be built', (g) =>
    g.set(analytics.engine.rollupWork.queuedDays),
  );
  new Counter({
    name: 'footfall_rollups_built_total',
    help: 'Day rollups (a site, zone and day each) built for reports',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(analytics.engine.rollupWork.builtDays);
    },
  });
  new Counter({
    name: 'footfall_rollup_builds_failed_total',
    help: 'Day rollup builds that failed (their days are counted from raw visits)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(analytics.engine.rollupWork.failedBuilds);
    },
  });
  gauge('footfall_wal_lag_records', 'Records in the write-ahead log not yet applied', async (g) =>
    g.set(await analytics.tailer.liveLag()),
  );
  gauge('footfall_wal_bytes', 'Bytes of write-ahead log segments on disk', async (g) =>
    g.set((await dataUsage(instance.paths.root)).top.get('wal') ?? 0),
  );
  gauge('footfall_live_streams', 'Live-view streams (Server-Sent Events) open', (g) =>
    g.set(analytics.live.listeners),
  );
  gauge(
    'footfall_database_bytes',
    'Bytes of each database on disk, with its write-ahead file',
    async (g) => {
      const { analyticsDb, controlDb } = instance.paths;
      g.set({ database: 'analytics' }, await fileBytes(analyticsDb, `${analyticsDb}.wal`));
      g.set({ database: 'control' }, await fileBytes(controlDb, `${controlDb}-wal`));
    },
    ['database'],
  );
  gauge(
    'footfall_disk_free_bytes',
    "Bytes free for Footfall on the data directory's file system",
    async (g) => {
      const fs = await statfs(instance.paths.root);
      g.set(Number(fs.bavail) * Number(fs.bsize));
    },
  );
  gauge(
    'footfall_disk_runway_seconds',
    "Seconds until the disk is full at the last seven days' rate (+Inf while nothing was stored)",
    async (g) => {
      const { runway_days } = await disk(deps);
      g.set(runway_days === null ? Number.POSITIVE_INFINITY : runway_days * 86_400);
    },
  );
  gauge('footfall_payment_connections', 'Payment connections of every site', (g) =>
    g.set(allConnections(deps.control).length),
  );
  gauge(
    'footfall_payment_webhooks_waiting',
    'Payment webhooks answered "retry later" because their connection has no signing secret yet',
    (g) => g.set(allConnections(deps.control).reduce((n, x) => n + x.waiting, 0)),
  );
  // e-mail reports count with the alerts, as kind `email_report` (they go through the same pass and mail server)
  const alertCounter = (
    name: string,
    help: string,
    read: (counts: AlertCounts) => Map<string, number>,
    readReports: (counts: EmailReportCounts) => number,
  ) =>
    new Counter({
      name,
      help,
      labelNames: ['kind', 'channel'],
      registers: [registry],
      collect() {
        this.reset();
        const counts = deps.alerts?.counts;
        if (counts === undefined) return;
        for (const [key, n] of read(counts)) {
          const [kind = '', channel = ''] = key.split('|');
          this.inc({ kind, channel }, n);
        }
        const reports = deps.alerts?.emailReports.counts;
        if (reports && readReports(reports) > 0) {
          this.inc({ kind: 'email_report', channel: 'email' }, readReports(reports));
        }
      },
    });
  alertCounter(
    'footfall_alerts_sent_total',
    'Alerts delivered, by kind and channel (webhook, email); e-mail reports as kind email_report',
    (c) => c.sent,
    (r) => r.sent,
  );
  alertCounter(
    'footfall_alert_attempts_failed_total',
    'Alert delivery attempts that failed (each retry counts), by kind and channel',
    (c) => c.attemptsFailed,
    (r) => r.attemptsFailed,
  );
  alertCounter(
    'footfall_alerts_failed_total',
    'Alerts given up after their last retry, by kind and channel',
    (c) => c.givenUp,
    (r) => r.givenUp,
  );
  new Counter({
    name: 'footfall_retention_deleted_total',
    help: 'Visits and events deleted by the visit retention (FOOTFALL_RETENTION_DAYS), by what',
    labelNames: ['what'],
    registers: [registry],
    collect() {
      this.reset();
      const counts = deps.retention?.counts;
      if (counts === undefined) return;
      this.inc({ what: 'visits' }, counts.visits);
      this.inc({ what: 'events' }, counts.events);
    },
  });
  const timing: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    await next();
    // the route's pattern, never the path: /api/v1/sites/:site/report, not a site id
    const route = routeOf(c);
    latency.observe(
      { route, method: c.req.method, status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
  };
  return { registry, timing };
}

/**
 * The pattern of the route that answers this request (as the access guard finds it), or
 * "unmatched" (the dashboard's files, the JSON 404): never the path, which holds ids.
 */
function routeOf(c: Context): string {
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  return (
    matchedRoutes(c)
      .filter((r) => r.method === method)
      .at(-1)?.path ?? 'unmatched'
  );
}

/**
 * `GET /metrics`: this process's metrics and every ingest gateway's (asked over its status
 * socket), in the Prometheus text format, for `Authorization: Bearer <FOOTFALL_METRICS_TOKEN>`
 * only. Closed (403, saying how to open it) while that is unset: it tells sign-in failures and
 * webhook activity, and the gateway is public.
 */
export function mountMetrics(app: Hono, deps: QueryDeps, metrics: QueryMetrics): void {
  app.get('/metrics', async (c) => {
    const token = deps.config.metricsToken;
    if (token === undefined) {
      throw new AppError(
        'forbidden',
        '/metrics is closed: set FOOTFALL_METRICS_TOKEN and scrape with it as a bearer token (docs/metrics.md)',
      );
    }
    const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
    if (!safeEqual(given, token)) {
      c.header('WWW-Authenticate', 'Bearer realm="footfall-metrics"');
      throw new AppError('unauthorized', 'send FOOTFALL_METRICS_TOKEN as a bearer token');
    }
    const parts = [
      await metrics.registry.getMetricsAsJSON(),
      ...(await gatewayMetrics(deps.instance.paths.run)),
    ];
    const text = await AggregatorRegistry.aggregate(
      parts as Parameters<typeof AggregatorRegistry.aggregate>[0],
    ).metrics();
    return c.body(text, 200, { 'content-type': metrics.registry.contentType });
  });
}
