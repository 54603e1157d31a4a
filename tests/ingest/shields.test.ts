import { createSite, updateSite } from '@footfall/control';
import type { WalRecord } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestMetrics } from '../../apps/ingest/src/metrics.ts';
import { pageview, startTestGateway, type TestGateway } from '../support/gateway.ts';

/**
 * Shields through the real gateway: a shielded event is answered 202, leaves no event in the WAL,
 * and is counted by kind (a `shield_<kind>` drop record, the gateway's counters, /metrics). The
 * test's requests come from 127.0.0.1; the geo stub places every address in France.
 */
let gw: TestGateway;
let sites: Record<'ip' | 'country' | 'pages' | 'open', string>;
beforeAll(async () => {
  gw = await startTestGateway({}, { lookup: () => ({ country: 'FR', region: null, city: null }) });
  const make = async (domain: string, shields: Parameters<typeof updateSite>[2]['shields']) => {
    const site = await createSite(gw.control, { domain });
    if (shields) await updateSite(gw.control, site.id, { shields });
    return site.id;
  };
  sites = {
    ip: await make('ip.example.net', { ips: ['10.0.0.0/8', '127.0.0.0/8', '::1'] }),
    country: await make('country.example.net', { countries: ['fr'] }),
    pages: await make('pages.example.net', { pages: ['/admin/*'], hostnames: ['staging.pages.example.net'] }),
    open: await make('open.example.net', { ips: ['192.0.2.0/24'], countries: ['DE'] }),
  };
});
afterAll(() => gw?.stop());

const eventIds = async () => new Set((await gw.records()).flatMap((r) => (r.t === 'event' ? [r.id] : [])));
const drops = async (site: string) =>
  (await gw.records()).filter((r): r is Extract<WalRecord, { t: 'bot' }> => r.t === 'bot' && r.site === site);

describe("a site's shields", () => {
  it('keep out the addresses, countries, pages and hosts they name, answering 202 and keeping only a count', async () => {
    const cases: [site: string, url: string, kind: string][] = [
      [sites.ip, 'https://ip.example.net/', 'shield_ip'],
      [sites.country, 'https://country.example.net/pricing', 'shield_country'],
      [sites.pages, 'https://pages.example.net/admin/users', 'shield_page'],
      [sites.pages, 'https://staging.pages.example.net/', 'shield_hostname'],
    ];
    for (const [site, u, kind] of cases) {
      const e = pageview(site, { u });
      expect((await gw.post('/api/e', e)).status).toBe(202);
      expect((await eventIds()).has(e.i), u).toBe(false);
      expect((await drops(site)).map((d) => d.kind)).toContain(kind);
    }
    expect(gw.gateway.deps.stats.shielded).toEqual({ ip: 1, country: 1, page: 1, hostname: 1 });
    expect(gw.gateway.deps.stats.toJSON().dropped_by_shields).toBe(4);
    const metrics = await ingestMetrics(gw.gateway.deps).metrics();
    expect(metrics).toMatch(/footfall_events_shielded_total\{kind="ip"[^}]*\} 1/);
    expect(metrics).toMatch(/footfall_events_shielded_total\{kind="hostname"[^}]*\} 1/);
  });

  it('let every other event through, and never write the address down', async () => {
    const passing = [
      pageview(sites.pages, { u: 'https://pages.example.net/admin' }),
      pageview(sites.pages, { u: 'https://www.pages.example.net/pricing' }),
      pageview(sites.open, { u: 'https://open.example.net/' }),
    ];
    for (const e of passing) expect((await gw.post('/api/e', e)).status).toBe(202);
    const ids = await eventIds();
    for (const e of passing) expect(ids.has(e.i)).toBe(true);
    const everything = JSON.stringify(await gw.records()) + gw.logLines.join('\n');
    expect(everything).not.toContain('127.0.0.1');
  });

  it('take effect on a running gateway once the site is read again', async () => {
    await updateSite(gw.control, sites.open, { shields: { pages: ['/checkout'] } });
    // the gateway reads a site again at most every few seconds (sites.ts, CachedSites)
    await expect
      .poll(
        async () => {
          const e = pageview(sites.open, { u: 'https://open.example.net/checkout' });
          await gw.post('/api/e', e);
          return (await eventIds()).has(e.i);
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(false);
  });
});
