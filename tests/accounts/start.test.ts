import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { listSites, openControlDb } from '@footfall/control';
import { createLogger } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { startQueryService } from '@footfall/query';
import { afterEach, describe, expect, it } from 'vitest';

const logger = createLogger({ level: 'silent', name: 'test' });
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the query service and the control database at start', () => {
  it('creates the FOOTFALL_SITES sites once, across restarts', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-start-'));
    const config = loadConfig({
      FOOTFALL_DATA_DIR: join(root, 'data'),
      FOOTFALL_SITES: 'https://www.example.com/,shop.example.org',
    });
    await (await startQueryService(config, logger)).stop();
    await (await startQueryService(config, logger)).stop();
    const instance = prepareInstance(config);
    const ctl = openControlDb({
      path: instance.paths.controlDb,
      secret: instance.secret,
      version: footfallVersion(),
    });
    expect(listSites(ctl).map((s) => s.domain)).toEqual(['example.com', 'shop.example.org']);
    await ctl.close();
  });

  it('does not start on a database from a newer version, and leaves it as it was', async () => {
    root = mkdtempSync(join(tmpdir(), 'ff-start-'));
    const config = loadConfig({ FOOTFALL_DATA_DIR: join(root, 'data') });
    const instance = prepareInstance(config);
    const ctl = openControlDb({ path: instance.paths.controlDb, secret: instance.secret, version: '99.0.0' });
    await ctl.close();
    await expect(startQueryService(config, logger)).rejects.toThrow(/written by Footfall 99\.0\.0/);
    expect(existsSync(instance.paths.querySocket)).toBe(false);
    expect(existsSync(join(instance.paths.backups, 'before-upgrade'))).toBe(false);
  });
});
