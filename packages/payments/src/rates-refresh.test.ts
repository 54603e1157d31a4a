import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ECB_FULL_HISTORY, ECB_RECENT_HISTORY, ecbFileFor, refreshRates } from './rates-refresh.ts';
import { openRateStore, type RateStore } from './rates-store.ts';
import { histStyleXml } from './rates-test-support.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ff-refresh-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server on 127.0.0.1, port 0, closed after the test; answers what `handle` says. */
async function serve(handle: RequestListener): Promise<{ baseUrl: string; server: Server }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/stats/eurofxref/`, server };
}

/** A fake ECB: serves each file it is given under /stats/eurofxref/, recording every request. */
async function fakeEcb(files: Record<string, string>) {
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  const { baseUrl } = await serve((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    const body = files[(req.url ?? '').replace('/stats/eurofxref/', '')];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/xml' });
    res.end(body ?? 'not found');
  });
  return { baseUrl, requests };
}

const HIST = histStyleXml({
  '2024-01-02': { USD: '1.0956', JPY: '155.52' },
  '2024-01-03': { USD: '1.0919', JPY: '155.81' },
});
const RECENT = histStyleXml({
  '2024-01-03': { USD: '1.0919', JPY: '155.81' },
  '2024-01-04': { USD: '1.0953', JPY: '157.76' },
  '2024-01-05': { USD: '1.0921', JPY: '158.48' },
});
const on = (day: string) => () => Date.parse(`${day}T16:30:00Z`);

/** A store holding HIST, and how its file reads, to show a failed refresh changed nothing. */
function storeWithHistory(): { store: RateStore; file: string } {
  const store = openRateStore(temp());
  store.merge(new Map([['2024-01-02', new Map([['USD', 1.0956]])]]));
  return { store, file: readFileSync(store.path, 'utf8') };
}

describe('refreshRates', () => {
  it('fetches the full history into an empty store, then the last 90 days', async () => {
    const ecb = await fakeEcb({ [ECB_FULL_HISTORY]: HIST, [ECB_RECENT_HISTORY]: RECENT });
    const dir = temp();
    const store = openRateStore(dir);

    const first = await refreshRates({ store, baseUrl: ecb.baseUrl, now: on('2024-01-03') });
    expect(first).toEqual({ ok: true, file: ECB_FULL_HISTORY, days: 2, added: 2, newest: '2024-01-03' });
    expect(ecb.requests.map((r) => r.path)).toEqual(['/stats/eurofxref/eurofxref-hist.xml']);

    const second = await refreshRates({ store, baseUrl: ecb.baseUrl, now: on('2024-01-05') });
    expect(second).toEqual({ ok: true, file: ECB_RECENT_HISTORY, days: 4, added: 2, newest: '2024-01-05' });
    expect(ecb.requests.map((r) => r.path)).toEqual([
      '/stats/eurofxref/eurofxref-hist.xml',
      '/stats/eurofxref/eurofxref-hist-90d.xml',
    ]);

    const reopened = openRateStore(dir);
    expect(reopened).toMatchObject({ days: 4, oldest: '2024-01-02', newest: '2024-01-05' });
    expect(reopened.convertMinor(1000, 'EUR', 'JPY', '2024-01-07')).toBe(1585);
  });

  it('sends nothing but a plain User-Agent', async () => {
    const ecb = await fakeEcb({ [ECB_FULL_HISTORY]: HIST });
    await refreshRates({ store: openRateStore(temp()), baseUrl: ecb.baseUrl.slice(0, -1) });
    const [request] = ecb.requests;
    expect(request?.path).toBe('/stats/eurofxref/eurofxref-hist.xml');
    expect(request?.headers['user-agent']).toBe('Footfall');
    expect(Object.keys(request?.headers ?? {}).sort()).toEqual(['connection', 'host', 'user-agent']);
  });

  it('fetches the full history again when the store is more than 85 days behind', async () => {
    const ecb = await fakeEcb({ [ECB_FULL_HISTORY]: HIST });
    const { store } = storeWithHistory();
    const result = await refreshRates({ store, baseUrl: ecb.baseUrl, now: on('2024-04-01') });
    expect(result).toMatchObject({ ok: true, file: ECB_FULL_HISTORY });
    expect(ecb.requests.map((r) => r.path)).toEqual(['/stats/eurofxref/eurofxref-hist.xml']);
  });

  it('answers an HTTP error status as a reason, and changes nothing', async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(500);
      res.end('oops');
    });
    const { store, file } = storeWithHistory();
    const warned: unknown[] = [];
    const logger = { info: () => undefined, warn: (obj: unknown) => void warned.push(obj) };
    const result = await refreshRates({ store, baseUrl, logger, now: on('2024-01-05') });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(
        /127\.0\.0\.1:\d+ answered HTTP 500 for \/stats\/eurofxref\/eurofxref-hist-90d\.xml/,
      ),
    });
    expect(warned).toEqual([{ error: result.ok ? '' : result.error }]);
    expect(readFileSync(store.path, 'utf8')).toBe(file);
    expect(store.days).toBe(1);
  });

  it('gives up on a server that never answers, within the timeout', async () => {
    const { baseUrl } = await serve(() => undefined);
    const { store, file } = storeWithHistory();
    const started = Date.now();
    const result = await refreshRates({ store, baseUrl, fetchTimeoutMs: 300, now: on('2024-01-05') });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/no complete answer from .* within 300 ms/),
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(readFileSync(store.path, 'utf8')).toBe(file);
  }, 10_000);

  it('gives up on a server that stops in the middle of the file, within the timeout', async () => {
    const { baseUrl } = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(RECENT.length) });
      res.write(RECENT.slice(0, 200));
    });
    const { store, file } = storeWithHistory();
    const result = await refreshRates({ store, baseUrl, fetchTimeoutMs: 300, now: on('2024-01-05') });
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/within 300 ms/) });
    expect(readFileSync(store.path, 'utf8')).toBe(file);
  }, 10_000);

  it('reports an unreachable server', async () => {
    const { baseUrl, server } = await serve(() => undefined);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const { store, file } = storeWithHistory();
    const result = await refreshRates({ store, baseUrl, fetchTimeoutMs: 2000, now: on('2024-01-05') });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/could not download from 127\.0\.0\.1:\d+: .*ECONNREFUSED/),
    });
    expect(readFileSync(store.path, 'utf8')).toBe(file);
  });

  it('reports a file that is not ECB rates, or is cut short', async () => {
    for (const body of ['<html><body>Maintenance</body></html>', RECENT.slice(0, RECENT.length - 40)]) {
      const ecb = await fakeEcb({ [ECB_RECENT_HISTORY]: body });
      const { store, file } = storeWithHistory();
      const result = await refreshRates({ store, baseUrl: ecb.baseUrl, now: on('2024-01-05') });
      expect(result).toEqual({
        ok: false,
        error: expect.stringMatching(/^eurofxref-hist-90d\.xml from 127\.0\.0\.1:\d+: not an ECB rates file/),
      });
      expect(readFileSync(store.path, 'utf8')).toBe(file);
    }
  });

  it('reports a rates file it cannot write', async () => {
    const ecb = await fakeEcb({ [ECB_FULL_HISTORY]: HIST });
    const dir = join(temp(), 'data');
    const store = openRateStore(dir);
    writeFileSync(dir, 'a file where the data directory should be');
    const result = await refreshRates({ store, baseUrl: ecb.baseUrl });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/^could not save the rates to .*EEXIST/),
    });
    expect(store.days).toBe(0);
  });

  it('reports a base URL that is not http(s)', async () => {
    const result = await refreshRates({ store: openRateStore(temp()), baseUrl: 'ftp://example.org/' });
    expect(result).toEqual({ ok: false, error: expect.stringMatching(/not an http\(s\) URL/) });
  });
});

describe('ecbFileFor', () => {
  it('picks the full history for an empty store or one more than 85 days behind', () => {
    expect(ecbFileFor(undefined, '2024-01-05')).toBe(ECB_FULL_HISTORY);
    expect(ecbFileFor('2024-01-04', '2024-01-05')).toBe(ECB_RECENT_HISTORY);
    expect(ecbFileFor('2023-10-12', '2024-01-05')).toBe(ECB_RECENT_HISTORY); // 85 days
    expect(ecbFileFor('2023-10-11', '2024-01-05')).toBe(ECB_FULL_HISTORY); // 86 days
  });
});
