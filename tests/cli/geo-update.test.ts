import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMmdb, countryRecord } from '../../apps/ingest/src/enrich/testing/mmdb-writer.ts';
import { FOOTFALL_BIN, tempDir } from '../support/footfall.ts';

/**
 * `footfall geo update <dir>` against a local server speaking DB-IP's download layout
 * (`/dbip-<kind>-lite-<YYYY-MM>.mmdb.gz`): it installs this month's database, says when it is
 * already the newest, and without network leaves the directory as it was.
 */
let server: Server;
let base: string;
let requests: string[];
const month = new Date().toISOString().slice(0, 7);
const db = buildMmdb({ databaseType: 'DBIP-Country-Lite', networks: [['1.2.3.0/24', countryRecord('NL')]] });

beforeAll(async () => {
  requests = [];
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === `/dbip-country-lite-${month}.mmdb.gz`) {
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(db));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs the command without blocking this process, whose server answers its downloads. */
const geo = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [FOOTFALL_BIN, 'geo', ...args],
      {
        env: { PATH: process.env.PATH ?? '', FOOTFALL_DATA_DIR: join(tempDir(), 'data'), ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ status: error ? (error.code as number) : 0, stdout, stderr }),
    );
  });

describe('footfall geo update', () => {
  it("installs this month's database, then finds it current and downloads nothing", async () => {
    const dir = join(tempDir(), 'shared-geo');
    const first = await geo(['update', dir], { FOOTFALL_UNSAFE_GEO_URL: base });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`country database of ${month} is now in`);
    const file = join(dir, 'dbip-country-lite.mmdb');
    expect(readFileSync(file).equals(db)).toBe(true);
    // other services read a shared directory: the file is readable by them
    expect(statSync(file).mode & 0o044).toBe(0o044);
    const count = requests.length;
    const again = await geo(['update', dir], { FOOTFALL_UNSAFE_GEO_URL: base });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('already the newest');
    expect(requests.length).toBe(count);
  });

  it('says so without network and leaves the directory as it was', async () => {
    const dir = join(tempDir(), 'offline-geo');
    mkdirSync(dir);
    const file = join(dir, 'dbip-country-lite.mmdb');
    writeFileSync(file, 'an older database');
    const run = await geo(['update', dir], { FOOTFALL_UNSAFE_GEO_URL: 'http://127.0.0.1:9' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/could not update the country database: .+\. .*offline-geo is left as it was/);
    expect(readFileSync(file, 'utf8')).toBe('an older database');
    const empty = join(tempDir(), 'empty-geo');
    const none = await geo(['update', empty, '--kind', 'city'], {
      FOOTFALL_UNSAFE_GEO_URL: 'http://127.0.0.1:9',
    });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('left as it was');
    expect(existsSync(join(empty, 'dbip-city-lite.mmdb'))).toBe(false);
  });

  it('explains its usage', async () => {
    const run = await geo(['update']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: footfall geo update <dir>');
    expect((await geo(['update', '/tmp/x', '--kind', 'planet'])).stderr).toContain(
      '--kind must be country or city',
    );
  });
});
