import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams, type RawReportQuery } from './report-params.ts';
import { ev, onStream } from './test-fixtures.ts';

let engine: Engine;
beforeAll(async () => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
  await engine.applyBatch({
    records: onStream('a', [
      // New York, fall back 2026-11-01: 01:30 EDT (05:30Z) and 01:30 EST (06:30Z) are different hours.
      ev('2026-11-01T05:30:00Z', { visitor: 'n1' }),
      ev('2026-11-01T06:30:00Z', { visitor: 'n2' }),
      // New York, 2026-03-08 23:30 EDT is 2026-03-09T03:30Z: it belongs to March 8 locally.
      ev('2026-03-09T03:30:00Z', { visitor: 'n3' }),
      // Berlin: 2026-03-29 00:30 CET is 2026-03-28T23:30Z (March 29 locally).
      ev('2026-03-28T23:30:00Z', { visitor: 'b1' }),
    ]),
  });
});
afterAll(async () => engine.close());

const report = (timeZone: string, query: RawReportQuery) =>
  engine.report({
    site: 'site1',
    timeZone,
    params: parseReportParams(query, timeZone, Date.parse('2026-12-01T00:00:00Z')),
  });

describe('reports in the site time zone', () => {
  it('gives the New York spring-forward day 23 hourly buckets', async () => {
    const r = await report('America/New_York', { from: '2026-03-08', to: '2026-03-08', bucket: 'hour' });
    expect(r.chart).toHaveLength(23);
    expect(r.chart[1]?.bucket).toBe('2026-03-08T01:00-05:00');
    expect(r.chart[2]?.bucket).toBe('2026-03-08T03:00-04:00');
    expect(r.chart[22]).toMatchObject({ bucket: '2026-03-08T23:00-04:00', visits: 1 });
    expect(r.kpis.visits).toBe(1);
  });

  it('gives the New York fall-back day 25 hourly buckets and keeps its two 01:00 hours apart', async () => {
    const r = await report('America/New_York', { from: '2026-11-01', to: '2026-11-01', bucket: 'hour' });
    expect(r.chart).toHaveLength(25);
    expect(r.chart.slice(1, 3).map((p) => [p.bucket, p.start, p.visits])).toEqual([
      ['2026-11-01T01:00-04:00', '2026-11-01T05:00:00.000Z', 1],
      ['2026-11-01T01:00-05:00', '2026-11-01T06:00:00.000Z', 1],
    ]);
  });

  it('counts a late-evening visit on its local day, not the UTC one', async () => {
    const ny = await report('America/New_York', { from: '2026-03-08', to: '2026-03-09', bucket: 'day' });
    expect(ny.chart.map((p) => [p.bucket, p.visits])).toEqual([
      ['2026-03-08', 1],
      ['2026-03-09', 0],
    ]);
    const berlin = await report('Europe/Berlin', { from: '2026-03-28', to: '2026-03-29', bucket: 'day' });
    expect(berlin.chart.map((p) => [p.bucket, p.start, p.visits])).toEqual([
      ['2026-03-28', '2026-03-27T23:00:00.000Z', 0],
      ['2026-03-29', '2026-03-28T23:00:00.000Z', 1],
    ]);
    const utc = await report('UTC', { from: '2026-03-28', to: '2026-03-29', bucket: 'day' });
    expect(utc.chart.map((p) => p.visits)).toEqual([1, 0]);
  });

  it('gives the Berlin spring-forward day 23 hours and its fall-back day 25', async () => {
    expect(
      (await report('Europe/Berlin', { from: '2026-03-29', to: '2026-03-29', bucket: 'hour' })).chart,
    ).toHaveLength(23);
    expect(
      (await report('Europe/Berlin', { from: '2026-10-25', to: '2026-10-25', bucket: 'hour' })).chart,
    ).toHaveLength(25);
  });

  it('labels weeks by their Monday and months by their first day', async () => {
    const weeks = await report('America/New_York', { from: '2026-03-04', to: '2026-03-18', bucket: 'week' });
    expect(weeks.chart.map((p) => [p.bucket, p.visits])).toEqual([
      ['2026-03-02', 1],
      ['2026-03-09', 0],
      ['2026-03-16', 0],
    ]);
    const months = await report('Europe/Berlin', { from: '2026-02-15', to: '2026-04-02', bucket: 'month' });
    expect(months.chart.map((p) => [p.bucket, p.visits])).toEqual([
      ['2026-02-01', 0],
      ['2026-03-01', 2],
      ['2026-04-01', 0],
    ]);
  });
});
