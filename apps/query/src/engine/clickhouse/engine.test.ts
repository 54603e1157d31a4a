import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../engine.ts';
import { parseReportParams } from '../report-params.ts';
import { botDrop, crawl, ev, onStream } from '../test-fixtures.ts';
import { createClickHouseEngine } from './engine.ts';

/** The Engine on ClickHouse as the query service uses it: open, load, read, delete a site, back up, close. */
let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-engine-'));
  server = await startTestServer({ path: join(dir, 'ch'), port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = (database: string) =>
  createClickHouseEngine({ target: { url: server.url, database }, dir: join(dir, database) });

const march = (engine: Engine, site = 'site1') =>
  engine.report({
    site,
    timeZone: 'UTC',
    params: parseReportParams(
      { from: '2026-03-01', to: '2026-03-31' },
      'UTC',
      Date.parse('2026-04-01T00:00:00Z'),
    ),
  });

describe('the ClickHouse engine', () => {
  it('loads batches once, answers reports, deletes a site and backs up only the log it has not applied', async () => {
    let engine = await open('ff_engine_a');
    const records = [
      ...onStream('a', [
        ev('2026-03-02T10:00:00Z'),
        ev('2026-03-02T10:05:00Z', { path: '/pricing' }),
        ev('2026-03-02T11:00:00Z', { site: 'site2', visitor: 'w1' }),
        crawl(),
        botDrop(),
      ]),
    ];
    expect(await engine.applyBatch({ records })).toMatchObject({
      events: 3,
      crawls: 1,
      botDrops: 1,
      committed: true,
    });
    expect(await engine.applyBatch({ records })).toMatchObject({ replayed: 5, committed: false });
    expect(engine.generation).toBe(1);
    expect((await march(engine)).kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 2 });
    await engine.close();
    // a restart resumes from the stored positions with the same visitor store
    engine = await open('ff_engine_a');
    expect(await engine.positions()).toEqual(new Map([['a', 5n]]));
    await engine.applyBatch({ records: onStream('a', [ev('2026-03-02T10:20:00Z', { path: '/docs' })], 6n) });
    expect((await march(engine)).kpis).toMatchObject({ visitors: 1, visits: 1, pageviews: 3 });
    let linked: Map<string, bigint> | undefined;
    const copy = await engine.snapshot(join(dir, 'unused.duckdb'), async (positions) => {
      linked = positions;
    });
    expect(copy).toEqual({ schema: null, positions: new Map([['a', 6n]]) });
    expect(linked).toEqual(new Map([['a', 6n]]));
    await engine.deleteSite('site1');
    expect((await march(engine)).kpis.visits).toBe(0);
    expect(
      await engine.crawlCounters({ site: 'site1', from: '2026-03-01', to: '2026-03-31', groupBy: ['robot'] }),
    ).toEqual([]);
    expect((await march(engine, 'site2')).kpis.visits).toBe(1);
    await engine.close();
  }, 60_000);

  it('waits for a server that does not answer yet, saying why, until stopped', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const reasons: string[] = [];
    const stop = new AbortController();
    const opening = createClickHouseEngine({
      target: { url: `http://127.0.0.1:${port}`, database: 'ff_engine_b' },
      dir: join(dir, 'ff_engine_b'),
      signal: stop.signal,
      onWaiting: (reason) => {
        reasons.push(reason);
        if (reasons.length === 2) stop.abort(new Error('stopping'));
      },
    });
    await expect(opening).rejects.toThrow();
    expect(reasons[0]).toMatch(/ECONNREFUSED/);
  }, 30_000);
});
