import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@footfall/clickhouse-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseEngine } from './clickhouse/engine.ts';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams } from './report-params.ts';
import { crawl, ev, ms, onStream, rollupsBuilt } from './test-fixtures.ts';

/**
 * Visit retention on both engines (Engine.expire, retention.ts): the visits before the cutoff go
 * with their events and whatever was rolled up of their days; the kept days read exactly as they
 * did; another site and the robots' counters are untouched; a visitor whose every visit went comes
 * back as a new visitor, one with a later visit stays returning.
 */
let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-expire-'));
  server = await startTestServer({ path: join(dir, 'ch'), port: 0 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const engines: [string, () => Promise<Engine>][] = [
  [
    'DuckDB',
    () =>
      createDuckDbEngine({
        path: join(mkdtempSync(join(dir, 'duck-')), 'analytics.duckdb'),
        threads: 1,
        memoryLimit: '256MB',
      }),
  ],
  [
    'ClickHouse',
    () =>
      createClickHouseEngine({
        target: { url: server.url, database: 'ff_expire' },
        dir: mkdtempSync(join(dir, 'chdir-')),
      }),
  ],
];

const NOW = ms('2026-04-01T12:00:00Z');
const read = (engine: Engine, from: string, to: string, site = 'site1') => {
  const params = parseReportParams({ from, to }, 'Europe/Berlin', NOW);
  const q = { site, timeZone: 'Europe/Berlin', period: params.period, filters: [] };
  return Promise.all([
    engine.report({ site, timeZone: 'Europe/Berlin', params }),
    engine.charts({ ...q, bucket: 'day', goals: null }),
  ]);
};

describe.each(engines)('visit retention on %s', (_name, open) => {
  it('deletes the visits before the cutoff and everything made of them, and nothing else', async () => {
    const engine = await open();
    try {
      await engine.applyBatch({
        records: onStream('a', [
          // January: "gone" only then, "stays" then and in March, and another site's visitor
          ev('2026-01-10T09:00:00Z', { visitor: 'gone', path: '/old' }),
          ev('2026-01-10T09:01:00Z', { visitor: 'gone', path: '/older' }),
          ev('2026-01-10T10:00:00Z', { visitor: 'stays', path: '/old' }),
          ev('2026-01-10T11:00:00Z', { site: 'site2', visitor: 'other' }),
          // an engagement event of no visit, from before the cutoff
          ev('2026-01-11T08:00:00Z', { visitor: 'lone', kind: 'en', engagedMs: 5000 }),
          // just after the cutoff in Berlin (00:30 on 1 February: kept) and just before it
          ev('2026-01-31T23:30:00Z', { visitor: 'edge', path: '/edge' }),
          ev('2026-01-31T22:59:00Z', { visitor: 'eve', path: '/eve' }),
          ev('2026-03-05T10:00:00Z', { visitor: 'stays', path: '/new' }),
          ev('2026-03-05T11:00:00Z', { visitor: 'fresh', path: '/new', channel: 'Organic Search' }),
          crawl({ day: '2026-01-10' }),
        ]),
      });
      // every finished day rolled up (DuckDB), so January below reads its rollups
      await engine.prepare([{ site: 'site1', timeZone: 'Europe/Berlin' }]);
      await rollupsBuilt(engine);
      const [january] = await read(engine, '2026-01-01', '2026-01-31');
      expect(january.kpis).toMatchObject({ visitors: 3, visits: 3, pageviews: 4 });
      const kept = await read(engine, '2026-02-01', '2026-03-31');
      const other = await read(engine, '2026-01-01', '2026-03-31', 'site2');

      // the status, read once whole and then kept (DuckDB), follows what is deleted and added
      expect(await engine.status({ site: 'site1' })).toEqual({
        firstVisit: ms('2026-01-10T09:00:00Z'),
        lastSeen: ms('2026-03-05T11:00:00Z'),
      });
      // Berlin's midnight of 1 February: 23:00 UTC the day before
      const before = ms('2026-01-31T23:00:00Z');
      expect(await engine.expire({ site: 'site1', before })).toEqual({ visits: 3, events: 5 });
      expect(await engine.expire({ site: 'site1', before })).toEqual({ visits: 0, events: 0 });

      expect((await engine.status({ site: 'site1' })).firstVisit).toBe(ms('2026-01-31T23:30:00Z'));
      const [gone] = await read(engine, '2026-01-01', '2026-01-31');
      expect(gone.kpis).toMatchObject({ visitors: 0, visits: 0, pageviews: 0 });
      expect(await read(engine, '2026-02-01', '2026-03-31')).toEqual(kept);
      expect(await read(engine, '2026-01-01', '2026-03-31', 'site2')).toEqual(other);
      const robots = await engine.crawlCounters({
        site: 'site1',
        from: '2026-01-01',
        to: '2026-01-31',
        groupBy: [],
      });
      expect(robots).toEqual([{ hits: 1 }]);

      // "gone" comes back as a new visitor, "stays" is still one seen before
      await engine.applyBatch({
        records: onStream(
          'a',
          [ev('2026-03-20T10:00:00Z', { visitor: 'gone' }), ev('2026-03-20T11:00:00Z', { visitor: 'stays' })],
          20n,
        ),
      });
      expect(await engine.status({ site: 'site1' })).toEqual({
        firstVisit: ms('2026-01-31T23:30:00Z'),
        lastSeen: ms('2026-03-20T11:00:00Z'),
      });
      const [, charts] = await read(engine, '2026-03-20', '2026-03-20');
      expect(charts.new_vs_returning).toEqual({ first: [1], returning: [1] });
    } finally {
      await engine.close();
    }
  });
});
