import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INGEST_NODE_FLAGS, QUERY_NODE_FLAGS } from '@footfall/cli/node-flags';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FOOTFALL_BIN,
  type RunningFootfall,
  runFootfall,
  startFootfall,
  tempDir,
} from '../support/footfall.ts';
import { alive } from '../support/process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'processes-test-token-0123456789';
const running: RunningFootfall[] = [];
afterEach(async () => {
  for (const ff of running.splice(0)) await ff.stop();
});

describe('footfall start', () => {
  it('serves the API through the gateway with Server-Timing on every answer', async () => {
    const ff = await startFootfall({ FOOTFALL_API_TOKEN: TOKEN });
    running.push(ff);
    const res = await fetch(`${ff.url}/api/v1/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
    const body = (await res.json()) as { version: string; uptime_seconds: number };
    expect(body.version).toBe(readFileSync(new URL('../../VERSION', import.meta.url), 'utf8').trim());
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    const missing = await fetch(`${ff.url}/api/v1/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('server-timing')).toMatch(/dur=/);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  it('is the gateway itself, with its node options from the command, and runs the query service without them', async () => {
    // started the way a person starts it from the PATH: the file itself, through its shebang
    const dataDir = join(tempDir(), 'data');
    const child = spawn(FOOTFALL_BIN, ['start'], {
      env: {
        PATH: process.env.PATH ?? '',
        FOOTFALL_DATA_DIR: dataDir,
        FOOTFALL_ADDR: '127.0.0.1:0',
        FOOTFALL_GEO: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
    });
    try {
      while (!out.includes('"msg":"query service listening"')) await new Promise((r) => setTimeout(r, 50));
      const args = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(args(child.pid!)).toEqual(expect.arrayContaining([...INGEST_NODE_FLAGS, 'start']));
      const logs = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const query = logs.find((l) => l.msg === 'child started' && l.child === 'query')?.pid as number;
      for (const flag of INGEST_NODE_FLAGS) expect(args(query)).not.toContain(flag);
      expect(args(query)).toEqual(expect.arrayContaining([...QUERY_NODE_FLAGS, 'query']));
      // two processes: the gateway and the query service
      expect(logs.filter((l) => l.msg === 'child started')).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('restarts a killed child', async () => {
    const ff = await startFootfall();
    running.push(ff);
    const first = ff.logs().find((l) => l.msg === 'child started' && l.child === 'query');
    const pid = first?.pid as number;
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await ff.waitForLog((l) => l.msg === 'child exited; restarting' && l.child === 'query');
    const again = await ff.waitForLog(
      (l) => l.msg === 'child started' && l.child === 'query' && l.pid !== pid,
    );
    expect(again.pid).not.toBe(pid);
    await ff.waitForLog(
      (l) =>
        l.msg === 'query service listening' &&
        ff.logs().filter((x) => x.msg === 'query service listening').length >= 2,
    );
    const back = await fetch(`${ff.url}/livez`);
    expect(back.status).toBe(200);
    // answered by the new query service, not only by the gateway: a 401 comes from the query service
    expect((await fetch(`${ff.url}/api/v1/health`)).status).toBe(401);
  });

  it('drains the gateway and the query service on SIGTERM and exits once both are done', async () => {
    const ff = await startFootfall();
    const query = ff.logs().find((l) => l.msg === 'child started')?.pid as number;
    ff.child.kill('SIGTERM');
    const { code } = await ff.exited;
    expect(code, ff.output()).toBe(0);
    expect(
      ff
        .logs()
        .filter((l) => l.msg === 'draining')
        .map((l) => l.proc)
        .sort(),
    ).toEqual(['ingest', 'query']);
    expect(alive(query)).toBe(false);
    await ff.stop();
  });

  it('leaves nothing running when the README start command is stopped with SIGTERM', async () => {
    // `npx pnpm start` as the README runs it: npm's runner exits on SIGTERM without stopping its
    // children, so footfall start must notice its parent went away
    const dataDir = join(tempDir(), 'data');
    const runner = spawn('npx', ['--yes', 'pnpm@10', 'start'], {
      cwd: ROOT,
      env: { ...process.env, FOOTFALL_DATA_DIR: dataDir, FOOTFALL_ADDR: '127.0.0.1:0', FOOTFALL_GEO: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    runner.stdout!.on('data', (c: Buffer) => {
      out += c;
    });
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes('"msg":"query service listening"') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const ours = footfallProcessesOf(dataDir);
      expect(ours).toHaveLength(2);
      runner.kill('SIGTERM');
      await once(runner, 'exit');
      const gone = Date.now() + 15_000;
      while (footfallProcessesOf(dataDir).length > 0 && Date.now() < gone)
        await new Promise((r) => setTimeout(r, 100));
      expect(footfallProcessesOf(dataDir)).toEqual([]);
      expect(out).toContain('"signal":"parent exited","msg":"draining"');
    } finally {
      for (const pid of footfallProcessesOf(dataDir)) process.kill(pid, 'SIGKILL');
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('stops the query service when footfall start is killed outright', async () => {
    const ff = await startFootfall();
    const query = ff.logs().find((l) => l.msg === 'child started')?.pid as number;
    ff.child.kill('SIGKILL');
    await ff.exited;
    const gone = Date.now() + 15_000;
    while (alive(query) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    expect(alive(query)).toBe(false);
    await ff.stop();
  });

  it('answers footfall live for each service while it runs, and not after', async () => {
    const ff = await startFootfall();
    running.push(ff);
    const port = new URL(ff.url).port;
    const live = (service: string) =>
      spawnSync(process.execPath, [FOOTFALL_BIN, 'live', service], {
        env: {
          PATH: process.env.PATH ?? '',
          FOOTFALL_DATA_DIR: ff.dataDir,
          FOOTFALL_ADDR: `127.0.0.1:${port}`,
        },
      }).status;
    expect(live('ingest')).toBe(0);
    expect(live('query')).toBe(0);
    expect(await (await fetch(`${ff.url}/livez`)).json()).toEqual({ status: 'up' });
    ff.child.kill('SIGTERM');
    await ff.exited;
    expect(live('ingest')).toBe(1);
    expect(live('query')).toBe(1);
    expect(live('other')).toBe(2);
  });
});

/** The pids of footfall's node processes whose environment names this data directory. */
function footfallProcessesOf(dataDir: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      const node = cmd.split('\0')[0]!.endsWith('node');
      if (node && cmd.includes('footfall.mjs') && env.split('\0').includes(`FOOTFALL_DATA_DIR=${dataDir}`)) {
        out.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('footfall ingest without a query service', () => {
  it('answers forwarded requests with 503 and Retry-After, and keeps answering its own routes', async () => {
    const ff = runFootfall(['ingest']);
    running.push(ff);
    const listening = await ff.waitForLog((l) => l.msg === 'ingest gateway listening');
    const url = `http://127.0.0.1:${listening.port as number}`;
    const res = await fetch(`${url}/api/v1/health`);
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ code: 'unavailable' });
    const own = await fetch(`${url}/js/no-such-site.js`);
    expect(own.status).toBe(404);
    expect(own.headers.get('server-timing')).toMatch(/dur=/);
  });
});

describe('operator health across the two processes', () => {
  it('carries each gateway status: availability, counters and geo', async () => {
    const ff = await startFootfall({ FOOTFALL_OPERATOR_TOKEN: 'operator-token-0123456789' });
    running.push(ff);
    const res = await fetch(`${ff.url}/_footfall/health`, {
      headers: { authorization: 'Bearer operator-token-0123456789' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ingest: Record<string, unknown>[]; writer: { lag_events: number } };
    expect(body.ingest).toHaveLength(1);
    expect(body.ingest[0]).toMatchObject({
      reachable: true,
      availability: { state: 'accepting' },
      counters: { accepted: 0, rejected: 0 },
      geo: { mode: 'off' },
    });
    expect(body.writer.lag_events).toBe(0);
  });
});
