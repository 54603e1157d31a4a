import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type GeoLocator, RateLimiter } from '@footfall/ingest';
import { afterEach, describe, expect, it } from 'vitest';
import { pageview, startTestGateway, type TestGateway } from '../support/gateway.ts';

/** A geo database stand-in that remembers which address each lookup saw (in the test's memory). */
function recordingGeo() {
  const seen: string[] = [];
  const geo: GeoLocator = {
    lookup(address) {
      seen.push(address);
      return { country: 'DE', region: null, city: null };
    },
  };
  return { geo, seen };
}

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});

describe('FOOTFALL_TRUST_PROXY', () => {
  const modes: [string, Record<string, string>, string][] = [
    ['none', { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '198.51.100.2' }, '127.0.0.1'],
    ['xff', { 'x-forwarded-for': '198.51.100.1, 198.51.100.7' }, '198.51.100.7'],
    [
      'header:X-Client-Address',
      { 'x-client-address': '2001:db8::5', 'x-forwarded-for': '198.51.100.1' },
      '2001:db8::5',
    ],
    ['auto', { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '198.51.100.2' }, '127.0.0.1'],
  ];
  for (const [mode, headers, expected] of modes) {
    it(`reads the visitor address as ${mode} says`, async () => {
      const { geo, seen } = recordingGeo();
      gw = await startTestGateway({ FOOTFALL_TRUST_PROXY: mode }, geo);
      expect((await gw.post('/api/e', pageview(gw.site.id), headers)).status).toBe(202);
      expect(seen).toEqual([expected]);
    });
  }

  it('trusts X-Real-IP from a server that sends the site proxy key', async () => {
    const { geo, seen } = recordingGeo();
    gw = await startTestGateway({ FOOTFALL_TRUST_PROXY: 'none' }, geo);
    await gw.post('/api/e', pageview(gw.site.id), {
      'x-real-ip': '203.0.113.77',
      'x-footfall-proxy-key': gw.site.proxyKey,
    });
    await gw.post('/api/e', pageview(gw.site.id), { 'x-real-ip': '203.0.113.78' });
    expect(seen).toEqual(['203.0.113.77', '127.0.0.1']);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After past the per-visitor limit', async () => {
    gw = await startTestGateway({ FOOTFALL_TRUST_PROXY: 'header:X-Real-IP' });
    gw.gateway.deps.limits.visitor = new RateLimiter({ burst: 5, perSecond: 0.01 });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const res = await gw.post('/api/e', pageview(gw.site.id, { v: 'same-visitor-1' }), {
        'x-real-ip': '198.51.100.9',
      });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter ??= res.headers.get('retry-after');
        // a page on another origin may read it (the tracker waits that long)
        expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After');
        expect(await res.json()).toMatchObject({ code: 'rate_limited' });
      }
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // another visitor from the same address is not held back by the first one's limit
    expect(
      (await gw.post('/api/e', pageview(gw.site.id, { v: 'other-visitor' }), { 'x-real-ip': '198.51.100.9' }))
        .status,
    ).toBe(202);
  });

  it('limits per address, counting an IPv6 /64 as one address', async () => {
    gw = await startTestGateway({ FOOTFALL_TRUST_PROXY: 'header:X-Real-IP' });
    gw.gateway.deps.limits.address = new RateLimiter({ burst: 4, perSecond: 0.01 });
    const statuses: number[] = [];
    for (const host of ['1', 'a', 'ffff', 'abcd:1', '9']) {
      const res = await gw.post(
        '/api/e',
        pageview(gw.site.id, { v: `visitor-${host.replace(/:/g, '')}xx` }),
        { 'x-real-ip': `2001:db8:1:2::${host}` },
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 429]);
    expect((await gw.post('/api/e', pageview(gw.site.id), { 'x-real-ip': '2001:db8:1:3::1' })).status).toBe(
      202,
    );
  });
});

describe('privacy', () => {
  it('never writes a visitor address to the data directory or the logs', async () => {
    gw = await startTestGateway({ FOOTFALL_TRUST_PROXY: 'header:X-Real-IP' });
    const addresses = ['198.51.100.23', '203.0.113.199', '2001:db8:abcd:12::77'];
    for (const a of addresses) {
      for (const kind of ['pv', 'ev'] as const) {
        const body = pageview(gw.site.id, kind === 'ev' ? { k: 'ev', n: 'Click' } : {});
        expect((await gw.post('/api/e', body, { 'x-real-ip': a })).status).toBe(202);
      }
      await gw.post('/api/e', pageview(gw.cookieless.id, { u: 'https://quiet.example.org/' }), {
        'x-real-ip': a,
      });
      await gw.post('/api/e', { bad: true }, { 'x-real-ip': a });
      await gw.post('/api/e', pageview(gw.site.id), { 'x-real-ip': a, 'user-agent': 'curl/8.0' });
      await gw.post(
        '/api/crawl',
        { s: gw.site.id, u: 'https://example.com/', ua: 'GPTBot/1.0' },
        { 'x-real-ip': a, 'x-footfall-proxy-key': gw.site.proxyKey },
      );
    }
    await fetch(`${gw.url}/api/v1/health`, { headers: { 'x-real-ip': addresses[0]! } }); // forwarded: query is down
    const files: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) files.push(p);
      }
    };
    walk(gw.dataDir);
    expect(files.some((f) => f.endsWith('.seg'))).toBe(true);
    const haystacks = [...files.map((f) => readFileSync(f).toString('latin1')), gw.logLines.join('\n')];
    for (const a of addresses) {
      for (const h of haystacks) expect(h.includes(a)).toBe(false);
    }
  });
});
