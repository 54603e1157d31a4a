import { afterEach, describe, expect, it } from 'vitest';
import { aiSearchReport } from './ai-search.ts';
import { createDuckDbEngine } from './engine/duckdb-engine.ts';
import type { Engine } from './engine/engine.ts';
import { crawl, ev, onStream } from './engine/test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

const fromAi = (
  at: string,
  visitor: string,
  path: string,
  assistant: string,
  device: 'desktop' | 'mobile' = 'desktop',
) =>
  ev(at, {
    visitor,
    path,
    channel: 'AI Assistant',
    assistant,
    referrerHost: `${assistant.toLowerCase()}.com`,
    device,
  });

describe('the AI & search report', () => {
  it('counts the visitors assistants sent, the AI robots, and each page read and sent, with the no-credit flag', async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    const reads = (
      path: string,
      n: number,
      robot = 'GPTBot',
      robotKind: 'ai_training' | 'ai_assistant' = 'ai_training',
    ) => Array.from({ length: n }, () => crawl({ robot, robotKind, path, day: '2026-03-02' }));
    await engine.applyBatch({
      records: onStream('a', [
        fromAi('2026-03-02T10:00:00Z', 'visitor-a', '/guide', 'ChatGPT'),
        fromAi('2026-03-02T10:01:00Z', 'visitor-a', '/pricing', 'ChatGPT'),
        fromAi('2026-03-02T11:00:00Z', 'visitor-b', '/guide', 'Perplexity', 'mobile'),
        ev('2026-03-02T12:00:00Z', { visitor: 'visitor-c', path: '/pricing', channel: 'Direct' }),
        ...reads('/pricing', 12),
        ...reads('/guide', 3, 'ChatGPT-User', 'ai_assistant'),
        ...reads('/about', 9),
        crawl({ robot: 'Googlebot', robotKind: 'search', path: '/pricing', day: '2026-03-02' }),
      ]),
    });
    const period = { from: '2026-03-01', to: '2026-03-03' };
    const r = await aiSearchReport(engine, { site: 'site1', timeZone: 'UTC', period, filters: [] });
    expect(r).toMatchObject({ visitors: 2, visits: 2, reads: 24, page: null, search_console: null });
    expect(r.assistants).toEqual([
      { value: 'ChatGPT', visitors: 1, visits: 1 },
      { value: 'Perplexity', visitors: 1, visits: 1 },
    ]);
    expect(r.referrers.map((x) => x.value).sort()).toEqual(['chatgpt.com', 'perplexity.com']);
    expect(r.robots).toEqual([
      { robot: 'GPTBot', kind: 'ai_training', hits: 21 },
      { robot: 'ChatGPT-User', kind: 'ai_assistant', hits: 3 },
    ]);
    // read 12 times, never a first page sent by an assistant (the direct visit does not count)
    expect(r.pages).toEqual([
      { path: '/pricing', read: 12, sent: 0, clicks: null, flag: 'no_credit' },
      { path: '/about', read: 9, sent: 0, clicks: null, flag: null },
      { path: '/guide', read: 3, sent: 2, clicks: null, flag: null },
    ]);
    // a visit filter narrows the visitors only; a page filter narrows the robots too
    const mobile = await aiSearchReport(engine, {
      site: 'site1',
      timeZone: 'UTC',
      period,
      filters: [{ dim: 'device', value: 'mobile' }],
    });
    expect(mobile).toMatchObject({ visitors: 1, reads: 24 });
    const guide = await aiSearchReport(engine, {
      site: 'site1',
      timeZone: 'UTC',
      period,
      filters: [{ dim: 'page', value: '/guide' }],
    });
    expect(guide).toMatchObject({ page: '/guide', visitors: 2, reads: 3 });
    expect(guide.pages.find((p) => p.path === '/guide')).toEqual({
      path: '/guide',
      read: 3,
      sent: 2,
      clicks: null,
      flag: null,
    });
  });
});
