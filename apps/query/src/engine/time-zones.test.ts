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
      // New York, 2026-11-01 23:30 EST is 2026-11-02T04:30Z; 2026-11-02 00:30 EST is 05:30Z.
      ev('2026-11-02T04:30:00Z', { visitor: 'n4' }),
      ev('2026-11-02T05:30:00Z', { visitor: 'n5' }),
      // Lord Howe moves its clock by 30 minutes. 2026-10-04 02:00 +10:30 becomes 02:30 +11:00:
      // 00:30 +10:30, 02:45 +11:00 (the half hour that is left of 02:xx), 03:15 and 23:40 +11:00.
      ev('2026-10-03T14:00:00Z', { visitor: 'l1' }),
      ev('2026-10-03T15:45:00Z', { visitor: 'l2' }),
      ev('2026-10-03T16:15:00Z', { visitor: 'l3' }),
      ev('2026-10-04T12:40:00Z', { visitor: 'l4' }),
      // 2026-04-05 02:00 +11:00 becomes 01:30 +10:30: 01:45 happens twice (14:45Z and 15:15Z).
      ev('2026-04-04T14:45:00Z', { visitor: 'l5' }),
      ev('2026-04-04T15:15:00Z', { visitor: 'l6' }),
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

  it('counts the visits around midnight after a fall-back on their local days', async () => {
    const r = await report('America/New_York', { from: '2026-10-31', to: '2026-11-02', bucket: 'day' });
    expect(r.chart.map((p) => [p.bucket, p.start, p.visits])).toEqual([
      ['2026-10-31', '2026-10-31T04:00:00.000Z', 0],
      ['2026-11-01', '2026-11-01T04:00:00.000Z', 3],
      ['2026-11-02', '2026-11-02T05:00:00.000Z', 1],
    ]);
    const day = await report('America/New_York', { from: '2026-11-01', to: '2026-11-01', bucket: 'hour' });
    expect(day.kpis.visits).toBe(3);
    expect(day.chart.reduce((sum, p) => sum + p.visits, 0)).toBe(3);
    expect(day.chart[24]).toMatchObject({ bucket: '2026-11-01T23:00-05:00', visits: 1 });
  });

  it('keeps every visit of a 30-minute spring-forward day in its local hour (Lord Howe)', async () => {
    const r = await report('Australia/Lord_Howe', { from: '2026-10-04', to: '2026-10-04', bucket: 'hour' });
    expect(r.kpis.visits).toBe(4);
    expect(r.chart).toHaveLength(24);
    expect(r.chart.slice(0, 4).map((p) => [p.bucket, p.start, p.visits])).toEqual([
      ['2026-10-04T00:00+10:30', '2026-10-03T13:30:00.000Z', 1],
      ['2026-10-04T01:00+10:30', '2026-10-03T14:30:00.000Z', 0],
      // the 02:00 hour is the half hour from 02:30 on
      ['2026-10-04T02:00+11:00', '2026-10-03T15:30:00.000Z', 1],
      ['2026-10-04T03:00+11:00', '2026-10-03T16:00:00.000Z', 1],
    ]);
    expect(r.chart[23]).toMatchObject({ bucket: '2026-10-04T23:00+11:00', visits: 1 });
    expect(r.chart.reduce((sum, p) => sum + p.visits, 0)).toBe(4);
  });

  it('keeps the repeated half hour of a 30-minute fall-back apart (Lord Howe)', async () => {
    const r = await report('Australia/Lord_Howe', { from: '2026-04-05', to: '2026-04-05', bucket: 'hour' });
    expect(r.chart).toHaveLength(25);
    expect(r.chart.slice(1, 4).map((p) => [p.bucket, p.start, p.visits])).toEqual([
      ['2026-04-05T01:00+11:00', '2026-04-04T14:00:00.000Z', 1],
      ['2026-04-05T01:00+10:30', '2026-04-04T15:00:00.000Z', 1],
      ['2026-04-05T02:00+10:30', '2026-04-04T15:30:00.000Z', 0],
    ]);
    expect(r.kpis.visits).toBe(2);
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
