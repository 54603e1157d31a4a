import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { createSite, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { connectProvider } from '@footfall/payments';
import { type FakeApi, stripeKit } from '@footfall/payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPayments } from './payments.ts';

/**
 * `footfall payments list` and `sync` on the server's data directory, with Stripe's documented API
 * answered locally: a connection's health, then a sale the webhooks missed read back once.
 */
let root: string;
let api: FakeApi;
let config: ReturnType<typeof loadConfig>;
let site: string;
let connection: string;
let out: string[];
let err: string[];
const io = { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) };
const run = async (args: string[]) => {
  out = [];
  err = [];
  return runPayments(args, config, io);
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ff-payments-cli-'));
  api = await stripeKit.start();
  config = loadConfig({
    FOOTFALL_DATA_DIR: join(root, 'data'),
    FOOTFALL_UNSAFE_PAYMENT_APIS: `stripe=${api.url}`,
  });
  const instance = prepareInstance(config);
  const ctl = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
  });
  site = (await createSite(ctl, { domain: 'shop.example.com' })).id;
  connection = (
    await connectProvider(ctl, {
      siteId: site,
      provider: 'stripe',
      apiKey: api.keys.live,
      webhookUrl: (id) => `https://stats.example.com/api/payments/${id}`,
      base: api.url,
    })
  ).id;
  await ctl.close();
});
afterAll(async () => {
  await api?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('footfall payments', () => {
  it('lists each site with its connections and their health', async () => {
    expect(await run(['list'])).toBe(0);
    expect(out[0]).toBe(`${site}  shop.example.com`);
    expect(out[1]).toMatch(new RegExp(`^  ${connection}  stripe  live  automatic `));
    expect(out).toContain('    last webhook: never');
    expect(out).toContain('    last reconciliation: never');
  });

  it('reconciles a sale the webhooks missed, once, and says so in the list', async () => {
    api.sale(
      { amount: 4900, tax: 0, currency: 'EUR', at: Date.now() - 3_600_000, kind: 'one_time' },
      api.secretFor(`https://stats.example.com/api/payments/${connection}`),
    );
    expect(await run(['sync', site]), err.join('\n')).toBe(0);
    expect(out).toEqual([`${connection}  stripe  read 1, added 1`]);
    expect(await run(['sync'])).toBe(0);
    expect(out).toEqual([`${connection}  stripe  read 1, added 0`]);
    expect(await run(['list'])).toBe(0);
    expect(out.find((l) => l.startsWith('    last reconciliation:'))).toMatch(/ \(ok\)$/);
  });

  it('refuses what it cannot do, saying why', async () => {
    expect(await run(['sync', 'nosuchsite'])).toBe(1);
    expect(err).toEqual(['footfall payments: no site nosuchsite']);
    expect(await run(['sync', site, '0'])).toBe(2);
    expect(await run(['frobnicate'])).toBe(2);
  });
});
