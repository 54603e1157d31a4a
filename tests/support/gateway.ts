import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { type GeoLocator, type IngestGateway, startIngestGateway } from '@footfall/ingest';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { decodeWalRecord, type WalRecord } from '@footfall/schema';
import { listWalStreams, openWalReader } from '@footfall/wal';
import { tempDir } from './footfall.ts';

/** An in-process ingest gateway on a random port with a temp data dir, one site, and captured logs. */
export async function startTestGateway(env: Record<string, string> = {}, geo?: GeoLocator) {
  const root = tempDir('ff-gw-');
  const dataDir = join(root, 'data');
  const config = loadConfig({
    FOOTFALL_DATA_DIR: dataDir,
    FOOTFALL_ADDR: '127.0.0.1:0',
    FOOTFALL_DRAIN_SECONDS: '1',
    ...env,
  });
  const instance = prepareInstance(config);
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const site = await createSite(control, { domain: 'example.com', timezone: 'Europe/Berlin' });
  const cookieless = await createSite(control, { domain: 'quiet.example.org', cookieless: true });
  const logLines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    name: 'ingest',
    destination: { write: (l: string) => void logLines.push(l) },
  });
  const gateway: IngestGateway = await startIngestGateway(config, logger, geo ? { geo } : {});
  const url = `http://127.0.0.1:${gateway.port}`;
  return {
    url,
    dataDir,
    site,
    cookieless,
    gateway,
    control,
    logLines,
    /**
     * Every record in the WAL, decoded, including every append answered so far: readers follow the
     * writer's durable mark, written up to MARK_INTERVAL_MS after an append resolved, so this reads
     * again until the gateway's own stream shows its last durable seq (at most 5 s).
     */
    async records(): Promise<WalRecord[]> {
      const durable = gateway.deps.eventLog.lastSeq;
      const own = gateway.deps.eventLog.stream;
      for (const started = Date.now(); ; ) {
        const out: WalRecord[] = [];
        let seen = 0n;
        for (const stream of await listWalStreams(instance.paths.wal)) {
          const reader = await openWalReader({ dir: join(instance.paths.wal, stream) });
          const read = await reader.read({ after: 0n, maxRecords: 100_000 });
          await reader.close();
          out.push(...read.map((r) => decodeWalRecord(r.payload)));
          if (stream === own && read.length > 0) seen = read[read.length - 1]!.seq;
        }
        if (seen >= durable || Date.now() - started > 5000) return out;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    post(path: string, body: unknown, headers: Record<string, string> = {}) {
      return fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent':
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    async stop() {
      await gateway.stop();
      await control.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

let n = 0;
/** A valid pageview for the test site, with a fresh event id. */
export function pageview(siteId: string, extra: Record<string, unknown> = {}) {
  n++;
  return {
    s: siteId,
    k: 'pv',
    u: 'https://example.com/pricing?utm_source=newsletter&utm_medium=email',
    r: '',
    i: `evt${Date.now()}x${n}`,
    ...extra,
  };
}
