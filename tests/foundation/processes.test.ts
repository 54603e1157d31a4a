import { readFileSync } from 'node:fs';
import { INGEST_NODE_FLAGS } from '@footfall/cli/node-flags';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningFootfall, runFootfall, startFootfall } from '../support/footfall.ts';
import { alive } from '../support/process.ts';

const running: RunningFootfall[] = [];
afterEach(async () => {
  for (const ff of running.splice(0)) await ff.stop();
});

describe('footfall start', () => {
  it('serves the API through the gateway with Server-Timing on every answer', async () => {
    const ff = await startFootfall();
    running.push(ff);
    const res = await fetch(`${ff.url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
    const body = (await res.json()) as { version: string; uptime_seconds: number };
    expect(body.version).toBe('0.1.0');
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    const missing = await fetch(`${ff.url}/api/v1/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('server-timing')).toMatch(/dur=/);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  it('runs the ingest gateway with its node options and the query service without them', async () => {
    const ff = await startFootfall();
    running.push(ff);
    const pidOf = (child: string) =>
      ff.logs().find((l) => l.msg === 'child started' && l.child === child)?.pid as number;
    const args = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(args(pidOf('ingest'))).toEqual(expect.arrayContaining([...INGEST_NODE_FLAGS, 'ingest']));
    for (const flag of INGEST_NODE_FLAGS) expect(args(pidOf('query'))).not.toContain(flag);
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
    const back = await fetch(`${ff.url}/api/v1/health`);
    expect(back.status).toBe(200);
  });

  it('forwards SIGTERM to both children and exits once they drained', async () => {
    const ff = await startFootfall();
    const pids = ff
      .logs()
      .filter((l) => l.msg === 'child started')
      .map((l) => l.pid as number);
    expect(pids).toHaveLength(2);
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
    for (const pid of pids) expect(alive(pid)).toBe(false);
    await ff.stop();
  });
});

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
