/**
 * The ClickHouse server of a benchmark: `pnpm clickhouse:test-server` (ClickHouse 26.x embedded by
 * chdb behind its HTTP interface, a test tool) as a process of its own, so its memory and CPU are
 * measured apart from the query service's. A real server runs queries on all cores at once; this
 * one runs them one at a time (packages/clickhouse-test-server/src/server.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './machine.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface BenchClickHouse {
  pid: number;
  url: string;
  /** bytes on disk of the active parts of a database's tables */
  bytesOf(database: string): Promise<number>;
  /** merges each table of a database into one part per partition (`OPTIMIZE ... FINAL`) */
  merge(database: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startClickHouse(path: string): Promise<BenchClickHouse> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'packages/clickhouse-test-server/src/main.ts'),
      '--port',
      String(port),
      '--path',
      path,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (/^ready$/m.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`clickhouse test server exited (${code}): ${out}`)));
  });
  const url = `http://default:@127.0.0.1:${port}`;
  const run = async (query: string, params: Record<string, string> = {}) => {
    const search = new URLSearchParams({
      query,
      ...Object.fromEntries(Object.entries(params).map(([k, v]) => [`param_${k}`, v])),
    });
    const res = await fetch(`http://127.0.0.1:${port}/?${search}`, { method: 'POST' });
    const text = await res.text();
    if (!res.ok) throw new Error(`${query.slice(0, 60)} answered ${res.status}: ${text}`);
    return text;
  };
  return {
    pid: child.pid!,
    url,
    async bytesOf(database) {
      const sql = 'SELECT sum(bytes_on_disk) FROM system.parts WHERE database = {db:String} AND active';
      return Number((await run(sql, { db: database })).trim());
    },
    async merge(database) {
      for (const table of ['events', 'sessions'])
        await run(`OPTIMIZE TABLE {db:Identifier}.${table} FINAL`, { db: database });
    },
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
