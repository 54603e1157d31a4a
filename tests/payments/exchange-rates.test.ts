import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { createConnection } from '@footfall/payments';
import { afterEach, describe, expect, it } from 'vitest';
import { histStyleXml } from '../../packages/payments/src/rates-test-support.ts';
import { startFootfall, tempDir } from '../support/footfall.ts';

/**
 * The query service keeps the ECB's rates in data/rates once a site has a payment connection,
 * from FOOTFALL_RATES_URL (here a local server speaking the ECB's format), and says in Health how
 * fresh they are, or why a download failed. Without a connection it never calls out.
 */
const OPERATOR = 'rates-operator-token-0123456789';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A data directory with one site, and a payment connection when asked. */
async function dataDir(withConnection: boolean): Promise<string> {
  const dir = join(tempDir('ff-rates-'), 'data');
  mkdirSync(dir, { recursive: true });
  const instance = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dir }));
  const control = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  const site = await createSite(control, { domain: 'shop.example', currency: 'USD' });
  if (withConnection) createConnection(control, { siteId: site.id, provider: 'custom' });
  await control.close();
  return dir;
}

/** An HTTP server answering the ECB's file names; records what was asked. */
async function ecbServer(): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.setHeader('content-type', 'text/xml');
    res.end(
      histStyleXml({
        '2026-11-20': { USD: '1.0412', GBP: '0.8301' },
        '2026-11-19': { USD: '1.0398', GBP: '0.8299' },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/stats/eurofxref/`, asked };
}

async function paymentsHealth(url: string) {
  const res = await fetch(`${url}/_footfall/health`, { headers: { authorization: `Bearer ${OPERATOR}` } });
  return ((await res.json()) as { payments: Record<string, unknown> | null }).payments;
}

async function until<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() - started > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('exchange rates', () => {
  it('downloads the full history once a site has a payment connection, and Health shows the newest day', async () => {
    const ecb = await ecbServer();
    const ff = await startFootfall({
      FOOTFALL_DATA_DIR: await dataDir(true),
      FOOTFALL_RATES_URL: ecb.url,
      FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    });
    cleanups.push(() => ff.stop());
    const payments = await until(async () => {
      const p = await paymentsHealth(ff.url);
      return (p?.exchange_rates as { newest_day: string | null } | undefined)?.newest_day ? p : undefined;
    });
    expect(payments).toMatchObject({
      connections: 1,
      last_webhook_at: null,
      waiting: 0,
      exchange_rates: { newest_day: '2026-11-20', error: null },
    });
    expect(ecb.asked).toEqual(['/stats/eurofxref/eurofxref-hist.xml']);
  }, 60_000);

  it('fails quietly offline: the service serves, Health says why', async () => {
    const ff = await startFootfall({
      FOOTFALL_DATA_DIR: await dataDir(true),
      FOOTFALL_RATES_URL: 'http://127.0.0.1:9/',
      FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    });
    cleanups.push(() => ff.stop());
    const rates = await until(async () => {
      const r = (await paymentsHealth(ff.url))?.exchange_rates as { error: string | null } | undefined;
      return r?.error ? r : undefined;
    });
    expect(rates).toMatchObject({ newest_day: null, error: expect.stringMatching(/ECONNREFUSED|refused/i) });
    expect((await fetch(`${ff.url}/livez`)).status).toBe(200);
  }, 60_000);

  it('never calls out while no site has a payment connection', async () => {
    const ecb = await ecbServer();
    const ff = await startFootfall({
      FOOTFALL_DATA_DIR: await dataDir(false),
      FOOTFALL_RATES_URL: ecb.url,
      FOOTFALL_OPERATOR_TOKEN: OPERATOR,
    });
    cleanups.push(() => ff.stop());
    await new Promise((r) => setTimeout(r, 7000));
    expect(await paymentsHealth(ff.url)).toBeNull();
    expect(ecb.asked).toEqual([]);
  }, 60_000);
});
