import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';

/** One gateway as Health sees it: its own status answer, or that it did not answer. */
export type GatewayHealth =
  | ({ reachable: true } & Record<string, unknown>)
  | { reachable: false; stream: string };

/**
 * Asks every ingest gateway sharing this data volume for its status (availability, counters, geo)
 * over its unix socket `run/ingest-<stream>.sock`; a socket nobody answers on is a gateway that is
 * down (or gone: its socket stays until that stream's gateway starts again).
 */
export async function gatewayHealth(runDir: string, timeoutMs = 500): Promise<GatewayHealth[]> {
  const names = (await readdir(runDir).catch(() => [] as string[])).filter(
    (n) => n.startsWith('ingest-') && n.endsWith('.sock'),
  );
  return Promise.all(
    names.sort().map(async (name) => {
      const stream = name.slice('ingest-'.length, -'.sock'.length);
      const body = await getJson(join(runDir, name), '/status', timeoutMs);
      return body === null ? { reachable: false as const, stream } : { reachable: true as const, ...body };
    }),
  );
}

/** Every answering gateway's Prometheus metrics, as prom-client's JSON (a gateway that does not answer is left out). */
export async function gatewayMetrics(runDir: string, timeoutMs = 1000): Promise<unknown[]> {
  const names = (await readdir(runDir).catch(() => [] as string[])).filter(
    (n) => n.startsWith('ingest-') && n.endsWith('.sock'),
  );
  const answers = await Promise.all(
    names.sort().map((name) => getJson(join(runDir, name), '/metrics', timeoutMs)),
  );
  return answers.filter((a) => a !== null);
}

function getJson(
  socketPath: string,
  path: string,
  timeoutMs: number,
): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => {
        try {
          const parsed: unknown = JSON.parse(text);
          resolve(
            res.statusCode === 200 && typeof parsed === 'object' && parsed !== null
              ? (parsed as Record<string, unknown>)
              : null,
          );
        } catch {
          resolve(null);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}
