import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MmdbGeoLookup } from './geo.ts';
import {
  dbipUrl,
  type FetchLike,
  GeoUpdater,
  geoFileName,
  installedMonth,
  monthOf,
  updateGeoDatabase,
} from './geo-download.ts';
import { buildMmdb, countryRecord } from './testing/mmdb-writer.ts';

const MARCH = () => new Date(Date.UTC(2025, 2, 15, 12));
const db = (iso: string) =>
  buildMmdb({ databaseType: 'DBIP-Country-Lite', networks: [['203.0.113.0/24', countryRecord(iso)]] });

/** A local stand-in for download.db-ip.com: path -> body (or a status code). */
let routes: Map<string, Buffer | number>;
let requests: string[];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const route = routes.get(req.url ?? '');
    if (route === undefined || typeof route === 'number') {
      res.writeHead(route ?? 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip' }).end(route);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/free`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let dir: string;
beforeEach(async () => {
  routes = new Map();
  requests = [];
  dir = await mkdtemp(join(tmpdir(), 'footfall-geodl-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const options = { kind: 'country' as const, now: MARCH, timeoutMs: 10_000 };

describe('dbipUrl and monthOf', () => {
  it('name the monthly DB-IP Lite file', () => {
    expect(monthOf(new Date(Date.UTC(2025, 0, 31, 23, 59)))).toBe('2025-01');
    expect(dbipUrl('country', '2025-03')).toBe(
      'https://download.db-ip.com/free/dbip-country-lite-2025-03.mmdb.gz',
    );
    expect(dbipUrl('city', '2025-03')).toBe('https://download.db-ip.com/free/dbip-city-lite-2025-03.mmdb.gz');
  });
});

describe('updateGeoDatabase from a local server', () => {
  it('downloads, unpacks and installs this month’s database that a lookup can then read', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    const outcome = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(outcome).toMatchObject({ ok: true, status: 'downloaded', month: '2025-03' });
    expect(await installedMonth(dir, 'country')).toBe('2025-03');
    const file = join(dir, geoFileName('country'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const geo = new MmdbGeoLookup({ file, mode: 'country' });
    await geo.load();
    expect(geo.lookup('203.0.113.9')?.country).toBe('NL');
    // No temp file is left behind.
    expect((await readdir(dir)).sort()).toEqual([geoFileName('country'), `${geoFileName('country')}.json`]);
  });

  it('does not download again within the same month', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    await updateGeoDatabase({ ...options, dir, baseUrl: base });
    requests = [];
    const again = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(again).toMatchObject({ ok: true, status: 'current', month: '2025-03' });
    expect(requests).toEqual([]);
  });

  it('refreshes when the month changes', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    routes.set('/free/dbip-country-lite-2025-04.mmdb.gz', gzipSync(db('BE')));
    await updateGeoDatabase({ ...options, dir, baseUrl: base });
    const april = await updateGeoDatabase({
      ...options,
      dir,
      baseUrl: base,
      now: () => new Date(Date.UTC(2025, 3, 2)),
    });
    expect(april).toMatchObject({ ok: true, status: 'downloaded', month: '2025-04' });
    const geo = new MmdbGeoLookup({ file: join(dir, geoFileName('country')), mode: 'country' });
    await geo.load();
    expect(geo.lookup('203.0.113.9')?.country).toBe('BE');
  });

  it('takes last month’s file when this month’s is not published yet', async () => {
    routes.set('/free/dbip-country-lite-2025-02.mmdb.gz', gzipSync(db('NL')));
    const outcome = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(outcome).toMatchObject({ ok: true, status: 'downloaded', month: '2025-02' });
    expect(requests).toEqual([
      '/free/dbip-country-lite-2025-03.mmdb.gz',
      '/free/dbip-country-lite-2025-02.mmdb.gz',
    ]);
    // Next run: this month still missing, last month installed: nothing to report as broken.
    const next = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(next).toMatchObject({ ok: true, status: 'current', month: '2025-02' });
  });

  it('reports an HTTP error and keeps the installed database', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    await updateGeoDatabase({ ...options, dir, baseUrl: base });
    routes.set('/free/dbip-country-lite-2025-04.mmdb.gz', 500);
    const outcome = await updateGeoDatabase({
      ...options,
      dir,
      baseUrl: base,
      now: () => new Date(Date.UTC(2025, 3, 2)),
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'HTTP 500', file: join(dir, geoFileName('country')) });
    expect(await installedMonth(dir, 'country')).toBe('2025-03');
  });

  it('refuses a download that is not a gzipped MaxMind database, leaving nothing behind', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', Buffer.from('<html>rate limited</html>'));
    const notGzip = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(notGzip.ok).toBe(false);
    routes.set(
      '/free/dbip-country-lite-2025-03.mmdb.gz',
      gzipSync(Buffer.from('gzip, but no database inside')),
    );
    const notDb = await updateGeoDatabase({ ...options, dir, baseUrl: base });
    expect(notDb).toMatchObject({ ok: false, reason: 'not a MaxMind database', file: null });
    const truncated = gzipSync(db('NL')).subarray(0, 40);
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', truncated);
    expect((await updateGeoDatabase({ ...options, dir, baseUrl: base })).ok).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a database that unpacks beyond the size limit', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    const outcome = await updateGeoDatabase({ ...options, dir, baseUrl: base, maxBytes: 100 });
    expect(outcome).toMatchObject({ ok: false, reason: 'database larger than 100 bytes' });
  });
});

describe('updateGeoDatabase without a network', () => {
  it('fails gracefully when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcome = await updateGeoDatabase({ ...options, dir, baseUrl: `http://127.0.0.1:${port}/free` });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).toMatch(/fetch failed.*ECONNREFUSED/);
  });

  it('fails gracefully when fetch throws, as it does with no DNS or route', async () => {
    const offline: FetchLike = () =>
      Promise.reject(new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } }));
    const outcome = await updateGeoDatabase({ ...options, dir, fetch: offline });
    expect(outcome).toEqual({
      ok: false,
      reason: 'fetch failed: ENOTFOUND',
      file: null,
      at: MARCH().getTime(),
    });
  });

  it('gives up after its time limit when the server never answers', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(init.signal.reason)),
      );
    const outcome = await updateGeoDatabase({ ...options, dir, fetch: hanging, timeoutMs: 50 });
    expect(outcome).toMatchObject({ ok: false, reason: 'timed out after 50 ms' });
  });

  it('fails gracefully when the directory cannot be written', async () => {
    const blocker = join(dir, 'file');
    await writeFile(blocker, 'x');
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    const outcome = await updateGeoDatabase({ ...options, dir: join(blocker, 'geo'), baseUrl: base });
    expect(outcome.ok).toBe(false);
  });
});

describe('GeoUpdater', () => {
  it('keeps the last success and failure for Health and does not retry too soon', async () => {
    let calls = 0;
    let nowMs = MARCH().getTime();
    const failing: FetchLike = () => {
      calls++;
      return Promise.reject(new TypeError('fetch failed', { cause: { code: 'EAI_AGAIN' } }));
    };
    const updater = new GeoUpdater({
      ...options,
      dir,
      fetch: failing,
      now: () => new Date(nowMs),
      retryAfterMs: 60_000,
    });
    expect(await updater.run()).toMatchObject({ ok: false });
    expect(updater.status()).toEqual({
      lastSuccess: null,
      lastFailure: { at: nowMs, reason: 'fetch failed: EAI_AGAIN' },
    });
    const callsAfterFirst = calls;
    await updater.run();
    expect(calls).toBe(callsAfterFirst);
    nowMs += 61_000;
    await updater.run();
    expect(calls).toBeGreaterThan(callsAfterFirst);
  });

  it('records a success and clears the failure', async () => {
    routes.set('/free/dbip-country-lite-2025-03.mmdb.gz', gzipSync(db('NL')));
    const updater = new GeoUpdater({ ...options, dir, baseUrl: base });
    await updater.run();
    expect(updater.status()).toEqual({
      lastSuccess: { at: MARCH().getTime(), month: '2025-03' },
      lastFailure: null,
    });
    expect(JSON.parse(await readFile(join(dir, `${geoFileName('country')}.json`), 'utf8')).month).toBe(
      '2025-03',
    );
  });
});
