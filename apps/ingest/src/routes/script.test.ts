import { NO_SHIELDS, SITE_DEFAULTS, type Site } from '@footfall/control';
import { describe, expect, it } from 'vitest';
import { CachedSites, siteInfo } from '../sites.ts';
import { scriptRoutes } from './script.ts';

const stored: Site = {
  ...SITE_DEFAULTS,
  id: 'k3m9x2p7qa',
  domain: 'shop.example.com',
  proxyKey: 'k'.repeat(32),
  icon: null,
  colour: null,
  createdAt: 0,
  consentText: null,
  consentBackground: null,
  consentForeground: null,
  retentionDays: null,
  umamiWebsiteId: null,
  shields: NO_SHIELDS,
  modules: {
    notes: true,
    goals: true,
    funnels: true,
    revenue: true,
    retention: true,
    vitals: true,
    crawlers: true,
    milestones: true,
    shares: true,
  },
};

/** The route over a site directory that reads `site` afresh every 2 s, as the gateway's does. */
function gateway(site: { current: Site }, paddle = { current: false }) {
  let now = 0;
  const sites = new CachedSites(() => siteInfo(site.current, paddle.current), { now: () => now });
  const app = scriptRoutes({ sites });
  return {
    get: (query = '', headers: Record<string, string> = {}) =>
      app.request(`/js/${stored.id}.js${query}`, { headers }),
    later: () => {
      now += 2000;
    },
  };
}

describe('GET /js/<site>.js and the consent bar', () => {
  it('serves the consent build, with both variants, only while the site has the bar on', async () => {
    const site = { current: stored };
    const gw = gateway(site);
    expect(await (await gw.get()).text()).not.toContain('footfall_consent');

    site.current = { ...stored, consentBar: true, consentText: 'Count me in?' };
    gw.later();
    const withBar = await (await gw.get()).text();
    expect(withBar).toContain('footfall_consent');
    expect(withBar).toContain('"Count me in?"');
    expect(withBar).not.toContain('PerformanceObserver');
    const both = await (await gw.get('?variant=vitals')).text();
    expect(both).toContain('footfall_consent');
    expect(both).toContain('PerformanceObserver');

    site.current = stored;
    gw.later();
    expect(await (await gw.get()).text()).not.toContain('footfall_consent');
  });

  it('adds the Paddle.js add-on while the site has a Paddle connection, with a new ETag', async () => {
    const paddle = { current: false };
    const gw = gateway({ current: stored }, paddle);
    const plain = await gw.get();
    expect(await plain.text()).not.toContain('Paddle');
    paddle.current = true;
    gw.later();
    const withAddon = await gw.get('', { 'if-none-match': plain.headers.get('etag')! });
    expect(withAddon.status).toBe(200);
    expect(await withAddon.text()).toContain('Paddle?.Checkout');
    expect(await (await gw.get('?variant=vitals')).text()).toContain('Paddle?.Checkout');
  });

  it('keeps the ETag while the settings stay, and changes it when the text or a colour changes', async () => {
    const site = { current: { ...stored, consentBar: true } };
    const gw = gateway(site);
    const first = await gw.get();
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toMatch(/max-age=3600/);
    expect((await gw.get('', { 'if-none-match': etag })).status).toBe(304);

    const seen = new Set([etag]);
    for (const change of [{ consentText: 'Other words' }, { consentBackground: '#0b3d91' }]) {
      site.current = { ...site.current, ...change };
      gw.later();
      const res = await gw.get('', { 'if-none-match': etag });
      expect(res.status).toBe(200);
      seen.add(res.headers.get('etag')!);
    }
    expect(seen.size).toBe(3);
  });
});
