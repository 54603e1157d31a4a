import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createCipher, unsealFile } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { prepareInstance } from '@footfall/instance';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from './engine/migrations.ts';
import { inspectDatabase, schemaOneDatabase } from './engine/test-fixtures.ts';
import { startQueryService } from './main.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the query service upgrading analytics.duckdb', () => {
  it('seals a copy of the old database into backups/before-upgrade first', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-upgrade-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    await schemaOneDatabase(instance.paths.analyticsDb);
    await (await startQueryService(config, logger)).stop();

    const dir = join(instance.paths.backups, 'before-upgrade');
    expect(readdirSync(dir).filter((n) => n.startsWith('analytics-'))).toEqual([
      'analytics-schema1.duckdb.sealed',
    ]);
    const restored = join(root, 'restored.duckdb');
    unsealFile(join(dir, 'analytics-schema1.duckdb.sealed'), restored, createCipher(instance.secret));
    expect(await inspectDatabase(restored)).toEqual({ version: 1, streams: ['old'] });
    expect((await inspectDatabase(instance.paths.analyticsDb)).version).toBe(SCHEMA_VERSION);
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
      /cannot write the before-upgrade copy of the analytics database .*nothing was changed/,
    );
    expect(existsSync(instance.paths.querySocket)).toBe(false);
    expect(await inspectDatabase(instance.paths.analyticsDb)).toEqual({ version: 1, streams: ['old'] });
  });
});
