import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restoreBackup } from '@footfall/backup';
import { loadConfig } from '@footfall/config';
import { createCipher, openControlDb } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from './engine/migrations.ts';
import { inspectDatabase, schemaOneDatabase } from './engine/test-fixtures.ts';
import { startQueryService } from './main.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the query service upgrading analytics.duckdb', () => {
  it('backs up everything into backups/before-upgrade before it changes the analytics database', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-upgrade-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    await schemaOneDatabase(instance.paths.analyticsDb);
    await (await startQueryService(config, logger)).stop();

    const dir = join(instance.paths.backups, 'before-upgrade');
    expect(readdirSync(dir)).toEqual([`footfall-${footfallVersion()}.ffbackup`]);
    const restored = join(root, 'restored');
    await restoreBackup({
      file: join(dir, `footfall-${footfallVersion()}.ffbackup`),
      dataDir: restored,
      cipher: createCipher(instance.secret),
      version: footfallVersion(),
    });
    expect(await inspectDatabase(join(restored, 'analytics.duckdb'))).toEqual({
      version: 1,
      streams: ['old'],
    });
    expect((await inspectDatabase(instance.paths.analyticsDb)).version).toBe(SCHEMA_VERSION);
  });

  it('puts the control database of the version it upgrades from in the same backup, and keeps only that', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-upgrade-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    // an instance last run by 0.0.9 with a site; an older upgrade's copies still there
    const old = openControlDb({ path: instance.paths.controlDb, secret: instance.secret, version: '0.0.9' });
    old.raw
      .prepare(
        `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at) VALUES ('s1', 'old.example', 'UTC', 'EUR', 'k', 0)`,
      )
      .run();
    await old.close();
    const dir = join(instance.paths.backups, 'before-upgrade');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'footfall-0.0.8.ffbackup'), 'an older upgrade');
    writeFileSync(join(dir, 'analytics-schema1.duckdb.sealed'), 'an older copy');
    await (await startQueryService(config, logger)).stop();

    expect(readdirSync(dir)).toEqual(['footfall-0.0.9.ffbackup']);
    const restored = join(root, 'restored');
    const manifest = await restoreBackup({
      file: join(dir, 'footfall-0.0.9.ffbackup'),
      dataDir: restored,
      cipher: createCipher(instance.secret),
      version: '0.0.9',
    });
    expect(manifest).toMatchObject({ footfall_version: '0.0.9', reason: 'before-upgrade' });
    const db = new Database(join(restored, 'app.db'), { readonly: true });
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'footfall_version'`).get()).toEqual({
      value: '0.0.9',
    });
    expect(db.prepare('SELECT domain FROM sites').all()).toEqual([{ domain: 'old.example' }]);
    db.close();
  });

  it('does not start, and changes nothing, when the copy cannot be written', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-upgrade-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    await schemaOneDatabase(instance.paths.analyticsDb);
    // a file where the directory should be: the copy cannot be written, as on a full disk
    mkdirSync(instance.paths.backups, { recursive: true });
    writeFileSync(join(instance.paths.backups, 'before-upgrade'), 'not a directory');
    await expect(startQueryService(config, logger)).rejects.toThrow(
      /cannot write the before-upgrade copy of the instance .*nothing was changed/,
    );
    expect(existsSync(instance.paths.querySocket)).toBe(false);
    expect(await inspectDatabase(instance.paths.analyticsDb)).toEqual({ version: 1, streams: ['old'] });
  });

  it('leaves app.db of an older version as it was when the backup cannot be written', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-upgrade-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    const old = openControlDb({ path: instance.paths.controlDb, secret: instance.secret, version: '0.0.9' });
    const schema = old.raw.pragma('user_version', { simple: true });
    await old.close();
    mkdirSync(instance.paths.backups, { recursive: true });
    writeFileSync(join(instance.paths.backups, 'before-upgrade'), 'not a directory');
    await expect(startQueryService(config, logger)).rejects.toThrow(/nothing was changed/);
    const db = new Database(instance.paths.controlDb, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(schema);
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'footfall_version'`).get()).toEqual({
      value: '0.0.9',
    });
    db.close();
  });
});
