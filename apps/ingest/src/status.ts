import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { listen } from '@footfall/http';
import type { IngestDeps } from './deps.ts';
import type { MmdbGeoLookup } from './enrich/geo.ts';
import type { GeoUpdater } from './enrich/geo-download.ts';
import { ingestMetrics } from './metrics.ts';

/** What one gateway reports for Health. No address, no secret. */
export interface IngestStatus {
  stream: string;
  pid: number;
  /** accepting, or refusing while the disk is full (with why and since when) */
  availability: IngestDeps['eventLog']['state'];
  /** the WAL stream's last durable sequence number */
  last_seq: string;
  counters: ReturnType<IngestDeps['stats']['toJSON']>;
  geo: {
    mode: string;
    loaded_from: string | null;
    last_load_error: { at: number; reason: string } | null;
    last_download: { at: number; month: string } | null;
    last_download_failure: { at: number; reason: string } | null;
  };
}

/** The socket of one gateway's status, named for its WAL stream. */
export const statusSocketPath = (runDir: string, stream: string) => join(runDir, `ingest-${stream}.sock`);

/**
 * Serves `GET /status` on a unix socket in the data directory, for the query service's Health
 * (the two processes share only the volume), and `GET /metrics`: this gateway's Prometheus
 * metrics as prom-client's JSON, which the query service serves with its own at `/metrics`. It writes nothing to disk, so it still answers while
 * the disk is full.
 */
export async function serveStatus(
  deps: IngestDeps,
  geo: { reader: MmdbGeoLookup | null; updater: GeoUpdater | null },
): Promise<{ path: string; close(): Promise<void> }> {
  const path = statusSocketPath(deps.instance.paths.run, deps.eventLog.stream);
  const metrics = ingestMetrics(deps);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      metrics.getMetricsAsJSON().then(
        (json) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json)),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (req.method !== 'GET' || req.url !== '/status') {
      res.writeHead(404).end();
      return;
    }
    const load = geo.reader?.state();
    const download = geo.updater?.status();
    const body: IngestStatus = {
      stream: deps.eventLog.stream,
      pid: process.pid,
      availability: deps.eventLog.state,
      last_seq: String(deps.eventLog.lastSeq),
      counters: deps.stats.toJSON(),
      geo: {
        mode: deps.config.geo,
        loaded_from: load?.loadedFrom ?? null,
        last_load_error: load?.lastError ?? null,
        last_download: download?.lastSuccess ?? null,
        last_download_failure: download?.lastFailure ?? null,
      },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await unlink(path).catch(() => {}); // our stream's lock is held, so a socket here is a stale one
  await listen(server, { path });
  await chmod(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
