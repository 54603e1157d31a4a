import { afterEach, describe, expect, it } from 'vitest';
import { crawlerReport } from './crawlers.ts';
import { createDuckDbEngine } from './engine/duckdb-engine.ts';
import type { Engine } from './engine/engine.ts';
import { botDrop, crawl, onStream } from './engine/test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

describe('the robots report', () => {
  it('sums robot hits by class, robot, page, status and day, and tracker requests dropped as bots, exactly', async () => {
    engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
    const hits = [
      crawl({ robot: 'GPTBot', robotKind: 'ai_training', path: '/', day: '2026-03-02' }),
      crawl({ robot: 'GPTBot', robotKind: 'ai_training', path: '/docs', day: '2026-03-02' }),
      crawl({ robot: 'GPTBot', robotKind: 'ai_training', path: '/docs', day: '2026-03-03' }),
      crawl({ robot: 'ChatGPT-User', robotKind: 'ai_assistant', path: '/docs', day: '2026-03-03' }),
      crawl({ robot: 'Googlebot', robotKind: 'search', path: '/', day: '2026-03-03', status: 404 }),
      // outside the period
      crawl({ robot: 'GPTBot', robotKind: 'ai_training', path: '/', day: '2026-02-20' }),
      botDrop({ day: '2026-03-02', kind: 'list' }),
      botDrop({ day: '2026-03-02', kind: 'list' }),
      botDrop({ day: '2026-03-03', kind: 'headless' }),
    ];
    await engine.applyBatch({ records: onStream('a', hits) });
    const period = { from: '2026-03-01', to: '2026-03-03' };
    const r = await crawlerReport(engine, { site: 'site1', period, filters: [] });
    expect(r.totals).toEqual({ hits: 5, by_kind: { ai_assistant: 1, ai_training: 3, search: 1 } });
    expect(r.robots).toEqual([
      { robot: 'GPTBot', kind: 'ai_training', hits: 3 },
      { robot: 'ChatGPT-User', kind: 'ai_assistant', hits: 1 },
      { robot: 'Googlebot', kind: 'search', hits: 1 },
    ]);
    expect(r.pages).toEqual([
      { path: '/docs', hits: 3, ai_assistant: 1, ai_training: 2, search: 0 },
      { path: '/', hits: 2, ai_assistant: 0, ai_training: 1, search: 1 },
    ]);
    expect(r.statuses).toEqual([
      { status: 2, hits: 4 },
      { status: 4, hits: 1 },
    ]);
    expect(r.chart).toEqual([
      { day: '2026-03-01', ai_assistant: 0, ai_training: 0, search: 0 },
      { day: '2026-03-02', ai_assistant: 0, ai_training: 2, search: 0 },
      { day: '2026-03-03', ai_assistant: 1, ai_training: 1, search: 1 },
    ]);
    expect(r.bots_dropped).toEqual({
      total: 3,
      by_kind: { list: 2, empty_ua: 0, headless: 1 },
      chart: [
        { day: '2026-03-01', list: 0, empty_ua: 0, headless: 0 },
        { day: '2026-03-02', list: 2, empty_ua: 0, headless: 0 },
        { day: '2026-03-03', list: 0, empty_ua: 0, headless: 1 },
      ],
    });
    // a page filter narrows the robots to that page; a visit filter leaves them alone
    const docs = await crawlerReport(engine, {
      site: 'site1',
      period,
      filters: [{ dim: 'page', value: '/docs' }],
    });
    expect(docs.totals.hits).toBe(3);
    expect(docs.page).toBe('/docs');
    const channel = await crawlerReport(engine, {
      site: 'site1',
      period,
      filters: [{ dim: 'channel', value: 'Referral' }],
    });
    expect(channel.totals.hits).toBe(5);
  });
});
