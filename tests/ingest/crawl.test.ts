import type { WalCrawl } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

const hit = (ua: string, extra: Record<string, unknown> = {}) => ({
  s: gw.site.id,
  u: 'https://example.com/docs/start?x=1',
  ua,
  ...extra,
});
const crawls = async () => (await gw.records()).filter((r): r is WalCrawl => r.t === 'crawl');

describe('POST /api/crawl', () => {
  it('needs the site proxy key: 401 without it, 403 with a wrong one, nothing stored', async () => {
    const before = (await gw.records()).length;
    const none = await gw.post('/api/crawl', hit('GPTBot/1.1'));
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'unauthorized' });
    const wrong = await gw.post('/api/crawl', hit('GPTBot/1.1'), { 'x-footfall-proxy-key': 'nope' });
    expect(wrong.status).toBe(403);
    expect((await gw.records()).length).toBe(before);
  });

  it('keeps robot, kind, page, day and status only, classed by the robot list', async () => {
    const key = { 'x-footfall-proxy-key': gw.site.proxyKey };
    const robots: [string, string][] = [
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
        'ai_training',
      ],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
        'ai_assistant',
      ],
      ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'search'],
    ];
    for (const [ua, kind] of robots) {
      expect((await gw.post('/api/crawl', hit(ua, { st: 200 }), key)).status).toBe(202);
      const last = (await crawls()).at(-1)!;
      expect(last.robotKind).toBe(kind);
      expect(last).toMatchObject({ t: 'crawl', site: gw.site.id, path: '/docs/start', status: 200 });
      expect(last.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Object.keys(last).sort()).toEqual(['day', 'path', 'robot', 'robotKind', 'site', 'status', 't']);
    }
  });

  it('accepts a hit without status (a mirror cannot know it)', async () => {
    const res = await gw.post('/api/crawl', hit('ClaudeBot/1.0; +claudebot@anthropic.com'), {
      'x-footfall-proxy-key': gw.site.proxyKey,
    });
    expect(res.status).toBe(202);
    expect((await crawls()).at(-1)).toMatchObject({ status: null });
  });

  it('discards a user agent that is not a known robot', async () => {
    const before = (await gw.records()).length;
    const res = await gw.post(
      '/api/crawl',
      hit('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605.1.15'),
      {
        'x-footfall-proxy-key': gw.site.proxyKey,
      },
    );
    expect(res.status).toBe(202);
    expect((await gw.records()).length).toBe(before);
  });

  it('refuses a page that is not an http(s) URL on a valid host name, storing nothing', async () => {
    const key = { 'x-footfall-proxy-key': gw.site.proxyKey };
    const before = (await gw.records()).length;
    for (const u of [
      'javascript://example.com/%0aalert(1)',
      'file://example.com/x',
      'https://a..example.com/',
    ]) {
      const res = await gw.post('/api/crawl', hit('GPTBot/1.2', { u }), key);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_body', field: 'u' });
    }
    expect((await gw.records()).length).toBe(before);
  });

  it('refuses a bad body with a JSON error naming the field', async () => {
    const key = { 'x-footfall-proxy-key': gw.site.proxyKey };
    const bad = await gw.post('/api/crawl', hit('GPTBot', { st: 'ok' }), key);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'st' });
    const extra = await gw.post('/api/crawl', hit('GPTBot', { ip: '1.2.3.4' }), key);
    expect(await extra.json()).toMatchObject({ field: 'ip' });
  });
});
