import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';

/** One line naming the machine a benchmark ran on. */
export function machineLine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Resident memory of a process in bytes, from /proc (Linux), or null. */
export async function rssOf(pid: number): Promise<number | null> {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 2 ** 20).toFixed(1)} MiB`);

/** A TCP port free on 127.0.0.1 right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** The pids of a process and all its descendants, with their command names. */
export async function tree(pid: number): Promise<{ pid: number; name: string }[]> {
  const out = [{ pid, name: await nameOf(pid) }];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const child of children.split(/\s+/).filter(Boolean)) out.push(...(await tree(Number(child))));
  }
  return out;
}

/** What a process is: footfall's subcommand when it is one, else its executable name. */
export async function nameOf(pid: number): Promise<string> {
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
  const command = args.find((a) => ['start', 'ingest', 'query'].includes(a));
  if (command === 'start') return 'footfall start';
  if (command) return `footfall ${command}`;
  return args[0]?.split('/').at(-1) ?? String(pid);
}

/** Prepares a data directory for `env` (as the command would) and creates the site example.com. */
export async function benchSite(env: Record<string, string>): Promise<{ id: string }> {
  const instance = prepareInstance(loadConfig(env));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const site = await createSite(control, { domain: 'example.com' });
  await control.close();
  return site;
}

const BIN = join(fileURLToPath(new URL('..', import.meta.url)), 'packages/cli/bin/footfall.mjs');

/**
 * Runs the built `footfall <args>` as an operator would, on a data directory (geo off), and
 * samples its resident memory every 20 ms until it exits; throws with its output unless it exits 0.
 */
export async function runFootfall(
  args: string[],
  dataDir: string,
): Promise<{ seconds: number; peakMib: number; output: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', FOOTFALL_DATA_DIR: dataDir, FOOTFALL_GEO: 'off' },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c));
  child.stderr.on('data', (c: Buffer) => (output += c));
  let peak = 0;
  const timer = setInterval(async () => {
    peak = Math.max(peak, (await rssOf(child.pid as number)) ?? 0);
  }, 20);
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  clearInterval(timer);
  if (code !== 0) throw new Error(`footfall ${args.join(' ')} exited ${code}: ${output}`);
  return { seconds: (performance.now() - started) / 1000, peakMib: peak / 2 ** 20, output };
}
