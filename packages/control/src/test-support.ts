import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ControlDb, openControlDb } from './open.ts';

/** A clock tests move by hand. */
export interface TestClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 0, 15, 12, 0, 0)): TestClock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

export const TEST_SECRET = 'test-instance-secret-0123456789';

/** A control database in a fresh temporary directory; `cleanup` closes and removes it. */
export function tempControlDb(options: { clock?: TestClock; version?: string } = {}): {
  ctl: ControlDb;
  dir: string;
  cleanup: () => Promise<void>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'ff-control-'));
  const ctl = openControlDb({
    path: join(dir, 'app.db'),
    secret: TEST_SECRET,
    version: options.version ?? '0.1.0',
    now: options.clock?.now,
  });
  return {
    ctl,
    dir,
    cleanup: async () => {
      await ctl.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
