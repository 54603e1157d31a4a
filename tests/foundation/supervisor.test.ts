import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from '@footfall/cli';
import { createLogger } from '@footfall/http';
import { describe, expect, it } from 'vitest';
import { alive } from '../support/process.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

const STAY = ['-e', 'setInterval(() => {}, 1000)'];

describe('Supervisor', () => {
  it('restarts a child killed with SIGKILL, with a new pid', async () => {
    const sup = new Supervisor({
      logger,
      drainMs: 2000,
      backoffMs: 50,
      children: [{ name: 'a', args: STAY }],
    });
    sup.start();
    const first = await until(() => sup.pid('a'));
    process.kill(first, 'SIGKILL');
    const second = await until(() => {
      const p = sup.pid('a');
      return p !== undefined && p !== first ? p : undefined;
    });
    expect(alive(second)).toBe(true);
    await sup.stop();
    expect(alive(second)).toBe(false);
  });

  it('backs off longer and longer while a child keeps crashing at once', async () => {
    const delays: number[] = [];
    const captured = createLogger({
      level: 'info',
      name: 'test',
      destination: {
        write: (line: string) => {
          const entry = JSON.parse(line) as { restartInMs?: number };
          if (entry.restartInMs !== undefined) delays.push(entry.restartInMs);
        },
      },
    });
    const sup = new Supervisor({
      logger: captured,
      drainMs: 1000,
      backoffMs: 50,
      maxBackoffMs: 400,
      children: [{ name: 'crash', args: ['-e', 'process.exit(3)'] }],
    });
    sup.start();
    await until(() => (delays.length >= 5 ? true : undefined), 15_000);
    await sup.stop();
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 400, 400]);
  });

  it('gives children the drain time after SIGTERM, then kills one that does not finish', async () => {
    // each child writes a file once its SIGTERM handler is installed, so the test never races it
    const dir = mkdtempSync(join(tmpdir(), 'ff-sup-'));
    const ready = (name: string) =>
      `require('node:fs').writeFileSync(${JSON.stringify(join(dir, name))}, '')`;
    const graceful = [
      '-e',
      `process.on('SIGTERM', () => setTimeout(() => process.exit(0), 200)); ${ready('graceful')}; setInterval(() => {}, 1000)`,
    ];
    const stubborn = [
      '-e',
      `process.on('SIGTERM', () => {}); ${ready('stubborn')}; setInterval(() => {}, 1000)`,
    ];
    const sup = new Supervisor({
      logger,
      drainMs: 1500,
      children: [
        { name: 'graceful', args: graceful },
        { name: 'stubborn', args: stubborn },
      ],
    });
    sup.start();
    const g = await until(() => sup.pid('graceful'));
    const s = await until(() => sup.pid('stubborn'));
    await until(() =>
      existsSync(join(dir, 'graceful')) && existsSync(join(dir, 'stubborn')) ? true : undefined,
    );
    const t0 = Date.now();
    await sup.stop();
    const took = Date.now() - t0;
    rmSync(dir, { recursive: true, force: true });
    expect(alive(g)).toBe(false);
    expect(alive(s)).toBe(false);
    // the stubborn child was only killed once the drain time was over
    expect(took).toBeGreaterThanOrEqual(1400);
  });
});
