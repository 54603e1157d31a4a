// `footfall start` as a benchmark runs it: the built command on a data directory, the engine at its
// defaults, with an operator token to read Health; and waiting until the write-ahead log is loaded.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const OPERATOR = 'bench-operator-token-0123456789';

export interface Footfall {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `footfall start` on the data directory; resolves when the gateway listens. */
export async function startFootfall(dataDir: string, env: Record<string, string> = {}): Promise<Footfall> {
  const child = spawn(process.execPath, [join(root, 'packages/cli/bin/footfall.mjs'), 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      FOOTFALL_DATA_DIR: dataDir,
      FOOTFALL_ADDR: '127.0.0.1:0',
      FOOTFALL_GEO: 'off',
      FOOTFALL_OPERATOR_TOKEN: OPERATOR,
      FOOTFALL_ENGINE_THREADS: '2',
      FOOTFALL_ENGINE_MEMORY: '256MB',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => (text += c));
  child.stderr?.on('data', (c: Buffer) => (text += c));
  const started = Date.now();
  for (;;) {
    const port = /"port":(\d+).*ingest gateway listening/.exec(text)?.[1];
    if (port && /query service listening/.test(text)) {
      return {
        child,
        url: `http://127.0.0.1:${port}`,
        output: () => text,
        async stop() {
          child.kill('SIGTERM');
          await new Promise((r) => child.once('exit', r));
        },
      };
    }
    if (child.exitCode !== null || Date.now() - started > 120_000)
      throw new Error(`footfall did not start:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the write-ahead log is all in reports. */
export async function waitTailed(url: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${url}/_footfall/health`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    if (res.ok) {
      const health = (await res.json()) as { writer: { lag_events: number } };
      if (health.writer.lag_events === 0) return (performance.now() - started) / 1000;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
