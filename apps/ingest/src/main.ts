import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Config } from '@footfall/config';
import {
  getSite,
  getSiteByDomain,
  getSiteByUmamiId,
  openControlDb,
  waitForControlUpgrade,
} from '@footfall/control';
import { bodyLimitFor, boundPort, drainServer, type Logger, listen } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { hasConnections } from '@footfall/payments';
import { getRequestListener } from '@hono/node-server';
import { createIngestApp } from './app.ts';
import type { IngestDeps } from './deps.ts';
import { clientAddress } from './enrich/client-address.ts';
import { createGeo } from './enrich/geo-setup.ts';
import { EventLog } from './event-log.ts';
import { declaresTooLarge, forwardToQuery, isIngestPath } from './front-door.ts';
import type { GeoLocator } from './pipeline.ts';
import { handleIngestPost, POST_ROUTES } from './post-handler.ts';
import { INGEST_LIMITS, RateLimiter } from './rate-limit.ts';
import { SqliteSaltStore } from './salts.ts';
import { CachedSites, siteInfo } from './sites.ts';
import { IngestStats } from './stats.ts';
import { serveStatus } from './status.ts';

/** A running ingest gateway. */
export interface IngestGateway {
  /** the TCP port it listens on */
  port: number;
  deps: IngestDeps;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  /** the geo lookup; defaults to recording no location */
  geo?: GeoLocator;
  /** stops waiting for the query service to upgrade app.db (a signal while starting) */
  signal?: AbortSignal;
}

const GEO_REFRESH_MS = 6 * 60 * 60 * 1000;

/**
 * The gateway's one wiring point: the front door on FOOTFALL_ADDR. It answers ingest paths itself
 * and forwards every other request to the query service's unix socket.
 */
export async function startIngestGateway(
  config: Config,
  logger: Logger,
  options: GatewayOptions = {},
): Promise<IngestGateway> {
  const instance = prepareInstance(config);
  // an app.db from an older version is the query service's to migrate, after its before-upgrade
  // backup: until then the gateway does not listen (trackers and servers retry)
  await waitForControlUpgrade(instance.paths.controlDb, footfallVersion(), {
    signal: options.signal,
    onWaiting: () => logger.info('waiting for the query service to back up and upgrade app.db'),
  });
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
    log: logger,
  });
  const geo = options.geo
    ? { lookup: options.geo, reader: null, updater: null, timer: undefined }
    : startGeo(config, instance.paths.geo, logger);
  const eventLog = new EventLog({ walRoot: instance.paths.wal, logger, now: Date.now });
  await eventLog.open();
  const deps: IngestDeps = {
    config,
    instance,
    logger,
    now: Date.now,
    sites: new CachedSites(
      (id) => {
        const site = getSite(control, id);
        return siteInfo(site, site !== undefined && hasConnections(control, id, 'paddle'));
      },
      {
        byDomain: (domain) => {
          const site = getSiteByDomain(control, domain);
          return siteInfo(site, site !== undefined && hasConnections(control, site.id, 'paddle'));
        },
        byUmamiId: (umamiId) => {
          const site = getSiteByUmamiId(control, umamiId);
          return siteInfo(site, site !== undefined && hasConnections(control, site.id, 'paddle'));
        },
      },
    ),
    control,
    eventLog,
    stats: new IngestStats(),
    geo: geo.lookup,
    salts: new SqliteSaltStore(control.raw),
    limits: {
      address: new RateLimiter(INGEST_LIMITS.address),
      visitor: new RateLimiter(INGEST_LIMITS.visitor),
      crawl: new RateLimiter(INGEST_LIMITS.crawl),
    },
  };
  const own = getRequestListener(createIngestApp(deps).fetch);
  const pathOf = (req: IncomingMessage) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    return query === -1 ? url : url.slice(0, query);
  };
  const forwarded = (req: IncomingMessage, path: string) =>
    !(req.method === 'POST' && POST_ROUTES[path]) && !isIngestPath(path);
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req);
    const post = req.method === 'POST' ? POST_ROUTES[path] : undefined;
    if (post) {
      handleIngestPost(deps, post, req, res);
      return;
    }
    if (isIngestPath(path)) {
      void own(req, res);
      return;
    }
    forwardToQuery(req, res, {
      socketPath: instance.paths.querySocket,
      logger,
      maxBodyBytes: bodyLimitFor(path),
      clientAddress: (r) =>
        clientAddress(config.trustProxy, {
          socketAddress: r.socket.remoteAddress,
          headers: r.headers,
          platform: config.platform ?? null,
          proxyKeyValid: false,
        }) ?? '',
      clientProto: (r) =>
        config.trustProxy.mode !== 'none' && r.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http',
    });
  };
  const server = createServer(handle);
  // `Expect: 100-continue` (curl's way with bodies over 1 KiB): a body the query service would
  // refuse is refused before the client sends it; any other is asked for, then handled as usual
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(forwarded(req, pathOf(req)) && declaresTooLarge(req))) res.writeContinue();
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  const status = await serveStatus(deps, geo);
  await listen(server, config.addr);
  const port = boundPort(server);
  logger.info({ port, stream: eventLog.stream }, 'ingest gateway listening');
  return {
    port,
    deps,
    async stop() {
      await drainServer(server, config.drainSeconds * 1000 - 500);
      if (geo.timer) clearInterval(geo.timer);
      await status.close();
      await eventLog.close();
      await control.close();
      logger.info('ingest gateway stopped');
    },
  };
}

/**
 * FOOTFALL_GEO: loads the database if there is one, then keeps it fresh (download when missing or
 * from a past month, every few hours). Without network the download fails quietly: no location is
 * recorded, and the failure is kept for Health.
 */
function startGeo(config: Config, ownDir: string, logger: Logger) {
  const geo = createGeo({
    mode: config.geo,
    dir: config.geoDir ?? ownDir,
    shared: config.geoDir !== undefined,
    baseUrl: config.unsafe.geoUrl,
  });
  const refresh = async () => {
    const outcome = await geo.updater?.run();
    if (outcome && !outcome.ok) logger.warn({ reason: outcome.reason }, 'geo database not updated');
    await geo.reader?.load();
  };
  void geo.reader?.load().then(refresh);
  const timer = geo.updater ? setInterval(() => void refresh(), GEO_REFRESH_MS) : undefined;
  timer?.unref();
  return { ...geo, timer };
}
