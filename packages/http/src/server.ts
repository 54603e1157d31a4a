import type { Server } from 'node:http';

/** Starts listening on a TCP address or a unix socket path and resolves once bound. */
export function listen(
  server: Server,
  target: { host: string | undefined; port: number } | { path: string },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    const done = () => {
      server.off('error', onError);
      resolve();
    };
    if ('path' in target) server.listen(target.path, done);
    else server.listen(target.port, target.host, done);
  });
}

/**
 * Stops accepting connections and waits for in-flight requests to finish, at most `ms`; then cuts
 * the connections still open (long-lived streams such as Server-Sent Events).
 */
export function drainServer(server: Server, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => {
        server.closeAllConnections();
      },
      Math.max(0, ms),
    );
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The port a server listening on TCP got (useful with port 0 in tests). */
export function boundPort(server: Server): number {
  const a = server.address();
  return a !== null && typeof a === 'object' ? a.port : 0;
}
