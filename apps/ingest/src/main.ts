import { createServer, type IncomingMessage } from 'node:http';
import type { Config } from '@footfall/config';
import { boundPort, drainServer, type Logger, listen } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { getRequestListener } from '@hono/node-server';
import { createIngestApp } from './app.ts';
import type { IngestDeps } from './deps.ts';
import { forwardToQuery, isIngestPath } from './front-door.ts';

/** A running ingest gateway. */
export interface IngestGateway {
  /** the TCP port it listens on */
  port: number;
  stop(): Promise<void>;
}

/**
 * The gateway's one wiring point: the front door on FOOTFALL_ADDR. It answers ingest paths itself
 * and forwards every other request to the query service's unix socket.
 */
export async function startIngestGateway(config: Config, logger: Logger): Promise<IngestGateway> {
  const instance = prepareInstance(config);
  const deps: IngestDeps = { config, instance, logger, now: Date.now };
  const app = createIngestApp(deps);
  const own = getRequestListener(app.fetch);
  const socketAddress = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (isIngestPath(path)) {
      void own(req, res);
      return;
    }
    forwardToQuery(req, res, {
      socketPath: instance.paths.querySocket,
      logger,
      clientAddress: socketAddress,
      clientProto: () => 'http',
    });
  });
  server.keepAliveTimeout = 65_000;
  await listen(server, config.addr);
  const port = boundPort(server);
  logger.info({ port }, 'ingest gateway listening');
  return {
    port,
    async stop() {
      await drainServer(server, config.drainSeconds * 1000 - 500);
      logger.info('ingest gateway stopped');
    },
  };
}
