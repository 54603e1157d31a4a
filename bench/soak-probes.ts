// What the soak bench (soak.ts) does beside the load: a live stream held open, the dashboard's
// first view asked every 10 s, a backup in the middle, and the stored events counted at the end.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { dataPaths } from '@footfall/instance';

/**
 * Asks `path` of the API with the bench's token; resolves with the status (0 when unreachable).
 * `took`, when given, is told the milliseconds to the whole answer and its Server-Timing.
 */
async function ask(
  base: string,
  token: string,
  path: string,
  took?: (ms: number, serverTiming: string) => void,
): Promise<number> {
  const started = performance.now();
  try {
    const res = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    took?.(performance.now() - started, res.headers.get('server-timing') ?? '');
    return res.status;
  } catch {
    return 0;
  }
}

/** One round of the dashboard's reads: how long until the last answered, and the failed ones. */
export interface ViewRound {
  t: number;
  /** the first view's API requests as the dashboard makes them, in parallel: ms to the last answer */
  firstViewMs: number;
  /** today's report filtered by a page (never rolled up: the whole day is read), ms */
  todayMs: number;
  /** requests answered with anything but 200 */
  failed: string[];
  /** each first-view request's milliseconds and Server-Timing, by its path's last word */
  requests: Record<string, { ms: number; timing: string }>;
}

/**
 * The dashboard's first view of the site (its API requests, as bench:dashboard lists them, less
 * the session a token does not have) and, after it, today's report filtered by a page.
 */
export async function viewRound(base: string, token: string, site: string, t: number): Promise<ViewRound> {
  const today = new Date().toISOString().slice(0, 10);
  const first = [
    `/sites/${site}`,
    `/sites/${site}/status`,
    `/sites/${site}/now`,
    `/sites/${site}/milestones`,
    `/sites/${site}/report`,
    `/sites/${site}/annotations`,
  ];
  const failed: string[] = [];
  let started = performance.now();
  const requests: ViewRound['requests'] = {};
  const statuses = await Promise.all(
    first.map((path) =>
      ask(base, token, path, (ms, timing) => {
        requests[path.split('/').pop() ?? path] = { ms, timing };
      }),
    ),
  );
  const firstViewMs = performance.now() - started;
  statuses.forEach((status, i) => {
    if (status !== 200) failed.push(`${first[i]} ${status}`);
  });
  const todayPath = `/sites/${site}/report?from=${today}&to=${today}&f=${encodeURIComponent('page:/pricing')}`;
  started = performance.now();
  const status = await ask(base, token, todayPath);
  if (status !== 200) failed.push(`today's filtered report ${status}`);
  return { t, firstViewMs, todayMs: performance.now() - started, failed, requests };
}

/**
 * Holds the site's live stream open (`GET …/live`, server-sent events) until `signal` aborts,
 * opening it again when it ends early; counts the messages and the times it had to reopen.
 */
export function holdLiveStream(
  base: string,
  token: string,
  site: string,
  signal: AbortSignal,
): { messages: () => number; reopened: () => number; done: Promise<void> } {
  let messages = 0;
  let reopened = -1;
  const done = (async () => {
    while (!signal.aborted) {
      reopened += 1;
      try {
        const res = await fetch(`${base}/api/v1/sites/${site}/live`, {
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
          signal,
        });
        if (res.status !== 200 || !res.body) throw new Error(`live ${res.status}`);
        const decoder = new TextDecoder();
        const reader = res.body.getReader();
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          // each message has one data: line (and the first may open the stream)
          messages += `\n${decoder.decode(read.value, { stream: true })}`.split('\ndata:').length - 1;
        }
      } catch {
        if (!signal.aborted) await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
  return { messages: () => messages, reopened: () => Math.max(0, reopened), done };
}

/** Runs `footfall backup now` against the running service: how long it took and how it ended. */
export function backupNow(
  root: string,
  env: Record<string, string>,
): Promise<{ seconds: number; code: number | null; output: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'packages/cli/bin/footfall.mjs'), 'backup', 'now'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => {
    output += c;
  });
  child.stderr.on('data', (c) => {
    output += c;
  });
  return new Promise((resolve) =>
    child.once('exit', (code) => resolve({ seconds: (performance.now() - started) / 1000, code, output })),
  );
}

/** Events stored in the analytics database (read-only, with Footfall stopped): rows and distinct ids. */
export async function storedEvents(dataDir: string): Promise<{ rows: number; ids: number }> {
  const db = await DuckDBInstance.create(dataPaths(dataDir).analyticsDb, { access_mode: 'READ_ONLY' });
  const connection = await db.connect();
  try {
    const reader = await connection.runAndReadAll(
      'SELECT count(*)::BIGINT AS r, count(DISTINCT (site, id))::BIGINT AS i FROM events',
    );
    const [row] = reader.getRowObjectsJS();
    return { rows: Number(row?.['r'] ?? 0), ids: Number(row?.['i'] ?? 0) };
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

/** The p-th percentile (0–1) of some numbers, nearest rank; 0 for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}
