import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageview, startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const events = async () => (await gw.records()).filter((r): r is WalEvent => r.t === 'event');

describe('POST /api/e', () => {
  it('accepts a valid pageview with 202, enriched in the WAL before the answer', async () => {
    const body = pageview(gw.site.id, { r: 'https://www.google.com/search?q=x', w: 1440, h: 900 });
    const res = await gw.post('/api/e', body, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(res.status).toBe(202);
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-length')).toBe('0');
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(await res.text()).toBe('');
    const stored = (await events()).find((e) => e.id === body.i)!;
    expect(stored).toMatchObject({
      site: gw.site.id,
      kind: 'pv',
      host: 'example.com',
      path: '/pricing',
      referrerHost: 'google.com',
      utmSource: 'newsletter',
      utmMedium: 'email',
      browser: 'Chrome',
      os: 'Windows',
      device: 'desktop',
      screenW: 1440,
      idMode: 'hash',
    });
    expect(stored.language).toMatch(/^de/);
    expect(stored.channel).toBeDefined();
  });

  it('keeps the cookie visitor id in cookie mode and ignores it on a cookieless site', async () => {
    const withCookie = pageview(gw.site.id, { v: 'visitor-abc-123' });
    await gw.post('/api/e', withCookie);
    const quiet = pageview(gw.cookieless.id, { u: 'https://quiet.example.org/', v: 'visitor-abc-123' });
    expect((await gw.post('/api/e', quiet)).status).toBe(202);
    const all = await events();
    expect(all.find((e) => e.id === withCookie.i)).toMatchObject({
      visitor: 'visitor-abc-123',
      idMode: 'cookie',
    });
    const q = all.find((e) => e.id === quiet.i)!;
    expect(q.idMode).toBe('hash');
    expect(q.visitor).not.toBe('visitor-abc-123');
  });

  it('gives the same cookieless visitor the same daily hash', async () => {
    const a = pageview(gw.cookieless.id, { u: 'https://quiet.example.org/a' });
    const b = pageview(gw.cookieless.id, { u: 'https://quiet.example.org/b' });
    await gw.post('/api/e', a);
    await gw.post('/api/e', b);
    const all = await events();
    expect(all.find((e) => e.id === a.i)!.visitor).toBe(all.find((e) => e.id === b.i)!.visitor);
  });

  it('accepts a page on a subdomain of the site and a custom event with properties', async () => {
    const e = pageview(gw.site.id, {
      k: 'ev',
      n: 'Signup',
      p: { plan: 'pro', seats: 3, trial: true },
      u: 'https://app.example.com/join',
    });
    expect((await gw.post('/api/e', e)).status).toBe(202);
    expect((await events()).find((x) => x.id === e.i)).toMatchObject({
      name: 'Signup',
      props: { plan: 'pro', seats: 3, trial: true },
      host: 'app.example.com',
    });
  });

  it('dates a queued event by its reported age', async () => {
    const e = pageview(gw.site.id, { a: 60 * 60 * 1000 });
    const before = Date.now();
    await gw.post('/api/e', e);
    const at = (await events()).find((x) => x.id === e.i)!.at;
    expect(at).toBeLessThanOrEqual(before - 60 * 60 * 1000 + 5000);
    expect(at).toBeGreaterThan(before - 60 * 60 * 1000 - 60_000);
  });

  it('answers CORS preflight so pages on other origins can post JSON', async () => {
    const res = await fetch(`${gw.url}/api/e`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
  });
});

describe('POST /api/e refuses bad input with a JSON body naming what is wrong, and stores nothing', () => {
  const cases: [string, () => [unknown, Record<string, string>?], number, Record<string, unknown>][] = [
    ['an unknown field', () => [{ ...pageview('SITE'), zz: 1 }], 400, { code: 'invalid_body', field: 'zz' }],
    ['a wrong type', () => [{ ...pageview('SITE'), w: 'wide' }], 400, { code: 'invalid_body', field: 'w' }],
    [
      'a missing field',
      () => [{ s: 'SITE', k: 'pv', i: 'abcdefgh1' }],
      400,
      { code: 'invalid_body', field: 'u' },
    ],
    ['an unknown kind', () => [{ ...pageview('SITE'), k: 'zz' }], 400, { code: 'invalid_body', field: 'k' }],
    ['a custom event without a name', () => [{ ...pageview('SITE'), k: 'ev' }], 400, { field: 'n' }],
    [
      'a page on another domain',
      () => [{ ...pageview('SITE'), u: 'https://evil.test/' }],
      400,
      { field: 'u' },
    ],
    [
      'a look-alike domain',
      () => [{ ...pageview('SITE'), u: 'https://notexample.com/' }],
      400,
      { field: 'u' },
    ],
    ['an unknown site', () => [pageview('nosuchsite')], 404, { code: 'not_found', field: 's' }],
    ['an event older than 25 hours', () => [pageview('SITE', { a: 26 * 3600 * 1000 })], 400, { field: 'a' }],
    ['a body that is not JSON', () => ['{nope', {}], 400, { code: 'invalid_body' }],
    [
      'a body that is not declared as JSON',
      () => [JSON.stringify(pageview('SITE')), { 'content-type': 'text/plain' }],
      415,
      { code: 'unsupported_media_type' },
    ],
    [
      'a body over 8 KB',
      () => [
        {
          ...pageview('SITE'),
          n: 'x',
          k: 'ev',
          p: { big: 'y'.repeat(500) },
          r: `https://example.com/${'z'.repeat(9000)}`,
        },
      ],
      413,
      { code: 'payload_too_large' },
    ],
    [
      'a wrong proxy key',
      () => [pageview('SITE'), { 'x-footfall-proxy-key': 'wrong' }],
      403,
      { code: 'forbidden' },
    ],
  ];
  for (const [name, make, status, body] of cases) {
    it(`refuses ${name}`, async () => {
      const before = (await gw.records()).length;
      const [raw, headers] = make();
      const payload = typeof raw === 'string' ? raw : JSON.stringify(raw).replaceAll('SITE', gw.site.id);
      const res = await gw.post('/api/e', payload, headers ?? {});
      expect(res.status).toBe(status);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(answer).toMatchObject(body);
      expect(typeof answer.message).toBe('string');
      expect((await gw.records()).length).toBe(before);
    });
  }
});

describe('visitors who do not want to be counted, and bots', () => {
  it('stores nothing for Do Not Track or Global Privacy Control, answering 202', async () => {
    const before = (await gw.records()).length;
    expect((await gw.post('/api/e', pageview(gw.site.id), { dnt: '1' })).status).toBe(202);
    expect((await gw.post('/api/e', pageview(gw.site.id), { 'sec-gpc': '1' })).status).toBe(202);
    expect((await gw.records()).length).toBe(before);
  });

  it('drops bots with a 202, keeping only a per-day counter record', async () => {
    const cases: [string, string][] = [
      ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'list'],
      ['', 'empty_ua'],
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
        'headless',
      ],
    ];
    for (const [ua, kind] of cases) {
      const e = pageview(gw.site.id);
      expect((await gw.post('/api/e', e, { 'user-agent': ua })).status).toBe(202);
      const recs = await gw.records();
      expect(recs.some((r) => r.t === 'event' && r.id === e.i)).toBe(false);
      expect(
        recs.filter((r) => r.t === 'bot' && r.kind === kind && r.site === gw.site.id).length,
      ).toBeGreaterThan(0);
    }
    expect(gw.gateway.deps.stats.bots).toMatchObject({
      list: expect.any(Number),
      empty_ua: expect.any(Number),
      headless: expect.any(Number),
    });
    expect(gw.gateway.deps.stats.toJSON().dropped_as_bots).toBeGreaterThanOrEqual(3);
  });
});

describe('GET /js/<site>.js', () => {
  it('serves the tracker with the site id baked in, an ETag, and 304 on revalidation', async () => {
    const res = await fetch(`${gw.url}/js/${gw.site.id}.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/max-age=/);
    expect(await res.text()).toContain(JSON.stringify(gw.site.id));
    const etag = res.headers.get('etag')!;
    const again = await fetch(`${gw.url}/js/${gw.site.id}.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers 404 for an unknown site', async () => {
    const res = await fetch(`${gw.url}/js/unknown.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });
});
