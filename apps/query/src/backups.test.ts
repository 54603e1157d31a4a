import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readState, writeState } from '@footfall/backup';
import { loadConfig } from '@footfall/config';
import { type ControlDb, openControlDb } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { type Instance, prepareInstance } from '@footfall/instance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminSocketPath, Backups } from './backups.ts';
import { createDuckDbEngine, type Engine } from './engine/index.ts';
import { ev, onStream } from './engine/test-fixtures.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
let root: string;
let instance: Instance;
let control: ControlDb;
let engine: Engine;
let clock: number;
let backups: Backups;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'ff-backups-'));
  const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
  instance = prepareInstance(config);
  control = openControlDb({ path: instance.paths.controlDb, secret: instance.secret, version: '0.1.0' });
  engine = await createDuckDbEngine({ path: instance.paths.analyticsDb, threads: 1, memoryLimit: '256MB' });
  await engine.applyBatch({ records: onStream('gw', [ev('2026-11-20T10:00:00Z')]) });
  clock = Date.UTC(2026, 10, 25, 12);
  backups = new Backups({ config, instance, control, engine, logger, now: () => clock });
});
afterEach(async () => {
  await backups.stop();
  await engine.close();
  await control.close();
  rmSync(root, { recursive: true, force: true });
});

const at = (ms: number) => new Date(ms).toISOString();
const HOUR = 3600_000;

describe('the daily backup', () => {
  it('is due at first, a day after the last one written, and an hour after a failure', () => {
    const dir = instance.paths.backups;
    expect(backups.due()).toBe(true);
    writeState(dir, { ...readState(dir), last_success: { at: at(clock - 23 * HOUR), file: 'f', bytes: 1 } });
    expect(backups.due()).toBe(false);
    clock += HOUR;
    expect(backups.due()).toBe(true);
    writeState(dir, {
      ...readState(dir),
      last_failure: { at: at(clock - 30 * 60_000), reason: 'disk full' },
    });
    expect(backups.due()).toBe(false);
    clock += 31 * 60_000;
    expect(backups.due()).toBe(true);
  });

  it('runs one backup at a time: a second ask while one runs gets the same answer', async () => {
    const [a, b] = await Promise.all([backups.run('manual'), backups.run('daily')]);
    expect(b).toBe(a);
    expect(a.manifest.reason).toBe('manual');
    expect(readdirSync(instance.paths.backups).filter((n) => n.endsWith('.ffbackup'))).toHaveLength(1);
    expect(readState(instance.paths.backups).last_success).toMatchObject({ at: at(clock), bytes: a.bytes });
    expect(backups.due()).toBe(false);
  });
});

describe('the admin socket', () => {
  const ask = (method: string, path: string) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request({ socketPath: adminSocketPath(instance), method, path }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      });
      req.on('error', reject);
      req.end();
    });

  it('writes a backup on POST /backup and answers nothing else', async () => {
    await backups.start();
    const done = await ask('POST', '/backup');
    expect(done.status).toBe(200);
    expect(String(done.body['file'])).toMatch(/footfall-\d{8}T\d{6}Z-v.+\.ffbackup$/);
    expect(done.body['offsite']).toBeNull();
    expect((await ask('GET', '/backup')).status).toBe(404);
    expect((await ask('POST', '/restore')).status).toBe(404);
  });
});
