import { unlinkSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { Config } from '@footfall/config';
import { drainServer, type Logger, listen } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { createAdaptorServer } from '@hono/node-server';
import { createQueryApp } from './app.ts';
import type { QueryDeps } from './deps.ts';

/** A running query service. */
export interface QueryService {
  socketPath: string;
  /** stops serving, finishing work within the drain time */
  stop(): Promise<void>;
}

/**
 * The query service's one wiring point: builds its dependencies, serves `/api/v1` on the unix
 * socket in the data directory (the ingest gateway forwards to it), and stops cleanly.
 */
export async function startQueryService(config: Config, logger: Logger): Promise<QueryService> {
  const instance = prepareInstance(config);
  const deps: QueryDeps = { config, instance, logger, startedAt: Date.now(), now: Date.now };
  const app = createQueryApp(deps);
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const socketPath = instance.paths.querySocket;
  await removeStaleSocket(socketPath);
  await listen(server, { path: socketPath });
  await chmod(socketPath, 0o600);
  logger.info({ socket: socketPath }, 'query service listening');
  return {
    socketPath,
    async stop() {
      await drainServer(server, config.drainSeconds * 1000 - 500);
      logger.info('query service stopped');
    },
  };
}

/** A socket file left by a crashed process is removed; one that a live process answers on is not. */
async function removeStaleSocket(path: string): Promise<void> {
  const live = await new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (live) throw new Error(`another query service is already serving ${path}`);
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
