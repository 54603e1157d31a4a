/**
 * The real query service (`footfall query`) as a child process for benchmarks, and a small client
 * that calls its API over the unix socket the way the ingest gateway forwards requests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUERY_NODE_FLAGS } from '@footfall/cli/node-flags';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface QueryProcess {
  child: ChildProcess;
  pid: number;
  socketPath: string;
  /** performance.now() when the service logged that it listens (the tailer starts then) */
  listeningAt: number;
  /** GET a path; resolves with status, body and the Server-Timing total in ms (NaN if absent) */
  get(path: string): Promise<{ status: number; body: string; serverMs: number; clientMs: number }>;
  stop(): Promise<void>;
}

/** Starts `footfall query` on a data directory, with the node options `footfall start` gives it, and waits until it listens. */
export function startQuery(
  dataDir: string,
  env: Record<string, string>,
  token: string,
): Promise<QueryProcess> {
  const child = spawn(
    process.execPath,
    [...QUERY_NODE_FLAGS, join(root, 'packages/cli/bin/footfall.mjs'), 'query'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        FOOTFALL_DATA_DIR: dataDir,
        FOOTFALL_API_TOKEN: token,
        // /metrics is closed without its own token: the same one opens it here
        FOOTFALL_METRICS_TOKEN: token,
        FOOTFALL_GEO: 'off',
        FOOTFALL_LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const socketPath = join(dataDir, 'run', 'query.sock');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let log = '';
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      log += c.toString();
      if (log.length > 100_000) log = log.slice(-50_000);
      if (/"msg":"query service listening"/.test(log)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({
          child,
          pid: child.pid!,
          socketPath,
          listeningAt: performance.now(),
          get: (path) => get(socketPath, path, token),
          stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(c));
    child.once('exit', (code) =>
      reject(new Error(`footfall query exited early (${code}):\n${log.slice(-2000)}`)),
    );
  });
}

function get(
  socketPath: string,
  path: string,
  token: string,
): Promise<{ status: number; body: string; serverMs: number; clientMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path,
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          // what the gateway adds when it forwards a request
          'x-footfall-client-address': '127.0.0.1',
          'x-footfall-client-proto': 'http',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            serverMs: serverTotal(res.headers['server-timing']),
            clientMs: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The `total;dur=` entry of a Server-Timing header, in ms. */
export function serverTotal(header: string | string[] | undefined): number {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const m = /(?:^|,)\s*total;(?:[^,]*;)?dur=([\d.]+)/.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * CPU seconds (user + system) a process has used, from /proc (Linux), or null. `children` gives
 * instead what its children that have exited and been waited for used.
 */
export async function cpuSecondsOf(
  pid: number | 'self',
  whose: 'own' | 'children' = 'own',
): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime and cstime are fields 14 to 17 of the whole line, in clock ticks (100 per second)
    const at = whose === 'own' ? 11 : 13;
    return (Number(fields[at]) + Number(fields[at + 1])) / 100;
  } catch {
    return null;
  }
}

/** The p-th percentile (0..100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
