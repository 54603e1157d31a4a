import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const FOOTFALL_BIN = fileURLToPath(new URL('../../packages/cli/bin/footfall.mjs', import.meta.url));

export interface LogLine {
  msg?: string;
  proc?: string;
  [key: string]: unknown;
}

/** A `footfall` process started for a test, with its output collected. */
export interface RunningFootfall {
  child: ChildProcess;
  dataDir: string;
  /** raw stdout + stderr so far */
  output(): string;
  /** pino JSON lines parsed so far */
  logs(): LogLine[];
  waitForLog(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** resolves with the exit code (or signal) */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, wait for exit; then remove the temp data dir if this helper made it */
  stop(): Promise<void>;
}

/** Directories tempDir made for this test file: removed after its last test. */
const made = new Set<string>();
// Registered while the test file imports this module, so it is the file's first afterAll hook and
// runs last (vitest runs after-hooks in reverse): after the file's own hooks stop its processes.
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
});

/**
 * A fresh directory under the system temp directory, removed after the test file's last test, so a
 * test that kills its `footfall` or keeps its data for a later test leaves nothing behind.
 */
export function tempDir(prefix = 'ff-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/**
 * Runs `footfall <args>` with a temporary data directory (unless the env names one) and
 * FOOTFALL_ADDR=127.0.0.1:0 unless set, so tests never collide on ports.
 */
export function runFootfall(args: string[], env: Record<string, string> = {}): RunningFootfall {
  const ownDir = env.FOOTFALL_DATA_DIR === undefined ? tempDir() : undefined;
  const dataDir = env.FOOTFALL_DATA_DIR ?? join(ownDir!, 'data');
  const child = spawn(process.execPath, [FOOTFALL_BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      FOOTFALL_ADDR: '127.0.0.1:0',
      FOOTFALL_DRAIN_SECONDS: '3',
      FOOTFALL_GEO: 'off',
      ...env,
      FOOTFALL_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters) w();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      for (const w of waiters) w();
      resolve({ code, signal });
    }),
  );
  const logs = (): LogLine[] =>
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as LogLine];
        } catch {
          return [];
        }
      });
  const waitFor = <T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = probe();
        if (found !== undefined) {
          cleanup();
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          reject(new Error(`footfall exited before ${what}; output:\n${text}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; output:\n${text}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    child,
    dataDir,
    output: () => text,
    logs,
    exited,
    waitForLog: (match, timeoutMs = 20_000) => waitFor(() => logs().find(match), 'a log line', timeoutMs),
    waitForOutput: (re, timeoutMs = 20_000) =>
      waitFor(() => text.match(re) ?? undefined, String(re), timeoutMs),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

/** Starts `footfall start` and resolves once both children serve; returns the gateway's base URL. */
export async function startFootfall(env: Record<string, string> = {}) {
  const ff = runFootfall(['start'], env);
  const listening = await ff.waitForLog((l) => l.msg === 'ingest gateway listening');
  await ff.waitForLog((l) => l.msg === 'query service listening');
  return { ...ff, url: `http://127.0.0.1:${listening.port as number}` };
}
