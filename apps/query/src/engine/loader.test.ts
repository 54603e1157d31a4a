import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams } from './report-params.ts';
import { botDrop, crawl, ev, onStream } from './test-fixtures.ts';

let engine: Engine;
afterEach(async () => engine?.close());

const open = async (beforeCommit?: () => void) => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB', beforeCommit });
  return engine;
};

const totals = async () => {
  const params = parseReportParams(
    { from: '2026-03-01', to: '2026-03-31' },
    'UTC',
    Date.parse('2026-03-31T12:00:00Z'),
  );
  return (await engine.report({ site: 'site1', timeZone: 'UTC', params })).kpis;
};

describe('applyBatch', () => {
  it('stores a batch applied twice only once and keeps the highest position per stream', async () => {
    await open();
    const records = [
      ...onStream('a', [ev('2026-03-02T10:00:00Z'), ev('2026-03-02T10:01:00Z')]),
      ...onStream('b', [ev('2026-03-02T10:02:00Z', { visitor: 'v2' })], 7n),
    ];
    const first = await engine.applyBatch({ records });
    const again = await engine.applyBatch({ records });
    expect(first).toMatchObject({ events: 3, committed: true });
    expect(again).toMatchObject({ events: 0, replayed: 3, committed: false });
    expect(await engine.positions()).toEqual(
      new Map([
        ['a', 2n],
        ['b', 7n],
      ]),
    );
    expect((await totals()).pageviews).toBe(3);
  });

  it('drops an event id seen in an earlier batch, on another stream, and repeated inside one batch', async () => {
    await open();
    const original = ev('2026-03-02T10:00:00Z');
    await engine.applyBatch({ records: onStream('a', [original]) });
    const copy = { ...original, at: original.at + 2_000 };
    const result = await engine.applyBatch({
      records: onStream('b', [
        copy,
        ev('2026-03-02T10:05:00Z', { id: 'twice-in-batch' }),
        ev('2026-03-02T10:06:00Z', { id: 'twice-in-batch' }),
      ]),
    });
    expect(result).toMatchObject({ events: 1, duplicates: 2, committed: true });
    expect((await totals()).pageviews).toBe(2);
    expect(await engine.positions()).toEqual(
      new Map([
        ['a', 1n],
        ['b', 3n],
      ]),
    );
  });

  it('drops a resent event a day later, when its original was stored 24 hours before the batch', async () => {
    await open();
    const original = ev('2026-03-02T10:00:00Z');
    await engine.applyBatch({ records: onStream('a', [original]) });
    const result = await engine.applyBatch({
      records: onStream('a', [ev('2026-03-03T10:00:00Z', { visitor: 'v9' }), { ...original }], 2n),
    });
    expect(result.duplicates).toBe(1);
    expect((await totals()).pageviews).toBe(2);
  });

  it('keeps nothing of a batch that fails before its commit, positions included', async () => {
    let fail = true;
    await open(() => {
      if (fail) throw new Error('crash');
    });
    const records = onStream('a', [ev('2026-03-02T10:00:00Z'), crawl(), botDrop()]);
    await expect(engine.applyBatch({ records })).rejects.toThrow('crash');
    expect(await engine.positions()).toEqual(new Map());
    expect((await totals()).pageviews).toBe(0);
    expect(
      await engine.crawlCounters({ site: 'site1', from: '2026-03-01', to: '2026-03-31', groupBy: [] }),
    ).toEqual([{ hits: 0 }]);
    expect(await engine.botCounters({ site: 'site1', from: '2026-03-01', to: '2026-03-31' })).toEqual([]);
    fail = false;
    expect((await engine.applyBatch({ records })).committed).toBe(true);
    expect((await totals()).pageviews).toBe(1);
    expect(engine.generation).toBe(1);
  });

  it('counts crawler hits and bot drops per day and key, adding up across batches', async () => {
    await open();
    await engine.applyBatch({
      records: onStream('a', [
        crawl(),
        crawl({ status: 404 }),
        crawl({ path: '/b', status: undefined }),
        botDrop(),
        botDrop({ kind: 'headless' }),
      ]),
    });
    await engine.applyBatch({ records: onStream('a', [crawl(), botDrop()], 6n) });
    const byPathStatus = await engine.crawlCounters({
      site: 'site1',
      from: '2026-03-02',
      to: '2026-03-02',
      groupBy: ['path', 'status'],
    });
    expect(byPathStatus).toEqual([
      { path: '/', status: 2, hits: 2 },
      { path: '/', status: 4, hits: 1 },
      { path: '/b', status: 0, hits: 1 },
    ]);
    expect(
      await engine.crawlCounters({
        site: 'site1',
        from: '2026-03-01',
        to: '2026-03-03',
        groupBy: ['robotKind'],
        path: '/b',
      }),
    ).toEqual([{ robotKind: 'ai_training', hits: 1 }]);
    expect(await engine.botCounters({ site: 'site1', from: '2026-03-01', to: '2026-03-31' })).toEqual([
      { day: '2026-03-02', kind: 'headless', hits: 1 },
      { day: '2026-03-02', kind: 'list', hits: 2 },
    ]);
  });

  it('deletes every event, visit and counter of one site and leaves the others', async () => {
    await open();
    await engine.applyBatch({
      records: onStream('a', [
        ev('2026-03-02T10:00:00Z'),
        ev('2026-03-02T10:00:00Z', { site: 'other' }),
        crawl(),
        botDrop(),
      ]),
    });
    await engine.deleteSite('site1');
    expect((await totals()).visits).toBe(0);
    expect(
      await engine.crawlCounters({ site: 'site1', from: '2026-03-01', to: '2026-03-31', groupBy: [] }),
    ).toEqual([{ hits: 0 }]);
    const params = parseReportParams({ from: '2026-03-01', to: '2026-03-31' }, 'UTC', Date.now());
    expect((await engine.report({ site: 'other', timeZone: 'UTC', params })).kpis.visits).toBe(1);
  });
});
