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

  it('counts a server sender that gives no event id, making one for each event', async () => {
    const { i: _, ...body } = pageview(gw.site.id, { u: 'https://example.com/no-id' });
    expect((await gw.post('/api/e', body)).status).toBe(202);
    expect((await gw.post('/api/e', body)).status).toBe(202);
    const stored = (await events()).filter((e) => e.path === '/no-id');
    expect(stored).toHaveLength(2);
    for (const e of stored) expect(e.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(stored[0]!.id).not.toBe(stored[1]!.id);
  });

  it('stores text cut inside an emoji as well-formed text', async () => {
    const e = pageview(gw.site.id, { k: 'ev', n: 'Clicked \ud83d', p: { label: '\ude00 end', '\ud800': 1 } });
    expect((await gw.post('/api/e', e)).status).toBe(202);
    expect((await events()).find((x) => x.id === e.i)).toMatchObject({
      name: 'Clicked \ufffd',
      props: { label: '\ufffd end', '\ufffd': 1 },
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

type Case = [string, () => [unknown, Record<string, string>?], number, Record<string, unknown>];

/** A body as raw JSON text: a valid pageview with `fields` set and `extra` (JSON text) added. */
const raw = (fields: Record<string, unknown>, extra: string) =>
  `${JSON.stringify(pageview('SITE', fields)).slice(0, -1)},${extra}}`;

describe('POST /api/e refuses bad input with a JSON body naming what is wrong, and stores nothing', () => {
  const cases: Case[] = [
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
    // numbers JSON.parse reads as Infinity: the WAL could not carry them back
    ...(['1e400', '-1e400', '9'.repeat(400)].flatMap((n) =>
      (['pv', 'ev'] as const).map(
        (k): Case => [
          `a ${k} with the property value ${n.slice(0, 12)}`,
          () => [raw({ k, n: 'Signup' }, `"p":{"num":${n}}`)],
          400,
          { code: 'invalid_body', field: 'p.num' },
        ],
      ),
    ) satisfies Case[]),
    ['properties sent as an empty array', () => [{ ...pageview('SITE'), p: [] }], 400, { field: 'p' }],
    ['properties sent as an array', () => [{ ...pageview('SITE'), p: ['a', 1] }], 400, { field: 'p' }],
    ['vitals sent as an array', () => [{ ...pageview('SITE'), k: 'vt', m: [] }], 400, { field: 'm' }],
    ...(['__proto__', 'constructor', 'prototype'].map(
      (key): Case => [
        `the property key ${key}`,
        () => [raw({}, `"p":{"${key}":"x","plan":"pro"}`)],
        400,
        { field: 'p', message: `p: must not use the key ${key}` },
      ],
    ) satisfies Case[]),
    ...([
      'javascript://example.com/%0aalert(1)',
      'file://example.com/etc/passwd',
      'ftp://example.com/',
      'ws://example.com/',
      'gopher://example.com/',
    ].map(
      (u): Case => [`the page ${u}`, () => [{ ...pageview('SITE'), u }], 400, { field: 'u' }],
    ) satisfies Case[]),
    ...(['.example.com', 'a..example.com', '-.example.com', '_.example.com', 'a-.example.com'].map(
      (host): Case => [
        `the host ${host}`,
        () => [{ ...pageview('SITE'), u: `https://${host}/` }],
        400,
        { field: 'u' },
      ],
    ) satisfies Case[]),
  ];
  for (const [name, make, status, body] of cases) {
    it(`refuses ${name}`, async () => {
      const before = (await gw.records()).length;
      const [sent, headers] = make();
      const payload = (typeof sent === 'string' ? sent : JSON.stringify(sent)).replaceAll('SITE', gw.site.id);
      const res = await gw.post('/api/e', payload, headers ?? {});
      expect(res.status).toBe(status);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(answer).toMatchObject(body);
      expect(typeof answer.message).toBe('string');
      expect((await gw.records()).length).toBe(before);
    });
  }
});

describe('a site whose domain was stored with www.', () => {
  it('takes events and robot hits from both www.example and example, as one site', async () => {
    // a row as versions before 0.1.1 stored it (site creation now drops the www.)
    gw.control.raw
      .prepare(
        `INSERT INTO sites (id, domain, timezone, currency, proxy_key, created_at)
         VALUES ('legacywww1', 'www.legacy.test', 'UTC', 'USD', 'legacy-proxy-key-0123456789', 0)`,
      )
      .run();
    for (const u of ['https://www.legacy.test/a', 'https://legacy.test/b', 'https://shop.legacy.test/c']) {
      const e = pageview('legacywww1', { u });
      expect((await gw.post('/api/e', e)).status).toBe(202);
      expect((await events()).find((x) => x.id === e.i)).toMatchObject({
        site: 'legacywww1',
        host: expect.any(String),
      });
      const crawl = { s: 'legacywww1', u, ua: 'GPTBot/1.2' };
      const res = await gw.post('/api/crawl', crawl, {
        'x-footfall-proxy-key': 'legacy-proxy-key-0123456789',
      });
      expect(res.status).toBe(202);
    }
    const other = await gw.post('/api/e', pageview('legacywww1', { u: 'https://notlegacy.test/' }));
    expect(other.status).toBe(400);
  });
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
