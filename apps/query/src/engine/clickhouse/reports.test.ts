import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuckDb } from '../duckdb.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { Engine } from '../engine.ts';
import { breakdownFrom, dailyVisitorsFrom, type ReportSource, reportFrom } from '../report.ts';
import { CASES, load, NOW, randomEvents } from '../report-cases.ts';
import { parseReportParams } from '../report-params.ts';
import { readTimePlan } from '../time-plan.ts';
import { clickhouseReportSource } from './reads.ts';
import { type ClickHouseHarness, startHarness } from './test-support.ts';
import { timePlanOf } from './time-plan.ts';

/**
 * Reports on ClickHouse against DuckDB's on the same data, loaded the way the tailer loads it
 * (batches with late events that merge, split and extend stored visits): every parameter set of
 * report-cases.ts, filters of every kind, single breakdowns with search, daily visitors. Every
 * number must be equal.
 */

let h: ClickHouseHarness;
let client: ClickHouseClient;
let duck: Engine;
let source: ReportSource;
let dir: string;

beforeAll(async () => {
  h = await startHarness();
  const db = await h.database();
  client = db.client;
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-reports-'));
  duck = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => Date.parse('2026-02-01T00:00:00Z'),
  });
  const events = randomEvents();
  await load(duck, events);
  await load({ applyBatch: (batch) => db.loader.apply(batch) }, events);
  db.loader.store.close();
  source = clickhouseReportSource(client);
}, 120_000);
afterAll(async () => {
  await duck?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const FILTERS: Record<string, string>[] = [
  { f: 'channel:Direct' },
  { f: 'country:' },
  { f: 'page:/b' },
  { f: 'hostname:blog.example.com' },
  { f: 'event:E1' },
  { f: 'referrer:news.example' },
  { f: 'browser:Firefox', daily: '1', deep: '1' },
];

describe('ClickHouse reports', () => {
  it('give DuckDB’s numbers for every parameter set', async () => {
    let engaged = false;
    for (const { zone, q } of CASES) {
      const params = parseReportParams(q, zone, NOW);
      const expected = await duck.report({ site: 'site1', timeZone: zone, params });
      const actual = await reportFrom(source, 'site1', zone, params);
      expect(actual, `${zone} ${JSON.stringify(q)}`).toEqual(expected);
      engaged ||= actual.breakdowns.pages.some((p) => p.scroll_depth !== null && p.time_on_page !== null);
    }
    // the pages' scroll depth and time on page were compared too, not only their nulls
    expect(engaged).toBe(true);
  }, 120_000);

  it('give DuckDB’s numbers with filters', async () => {
    for (const zone of ['UTC', 'Europe/Berlin']) {
      for (const extra of FILTERS) {
        const q = { from: '2026-03-01', to: '2026-04-30', limit: '50', ...extra };
        const params = parseReportParams(q, zone, NOW);
        const expected = await duck.report({ site: 'site1', timeZone: zone, params });
        expect(await reportFrom(source, 'site1', zone, params), `${zone} ${JSON.stringify(q)}`).toEqual(
          expected,
        );
      }
    }
  }, 120_000);

  it('give DuckDB’s single breakdowns, searched or not, and daily visitors', async () => {
    const params = parseReportParams(
      { from: '2026-03-01', to: '2026-05-31', limit: '100' },
      'Europe/Berlin',
      NOW,
    );
    for (const name of ['channel', 'referrer', 'pages', 'events', 'country', 'hostname'] as const) {
      for (const search of [undefined, 'E', '/A', 'news', 'BLOG']) {
        const q = { site: 'site1', timeZone: 'Europe/Berlin', params, name, search };
        expect(await breakdownFrom(source, q), `${name} ${search}`).toEqual(await duck.breakdown(q));
      }
    }
    const period = { from: '2026-03-20', to: '2026-04-10' };
    const q = { site: 'site1', timeZone: 'Europe/Berlin', period };
    expect(await dailyVisitorsFrom(source, q)).toEqual(await duck.dailyVisitors(q));
  }, 120_000);

  it('plan a period’s time zone offsets as DuckDB does', async () => {
    const db = await openDuckDb({ path: ':memory:', threads: 1, memoryLimit: '64MB' });
    try {
      for (const zone of [
        'UTC',
        'Europe/Berlin',
        'America/New_York',
        'Australia/Lord_Howe',
        'Asia/Kolkata',
      ]) {
        for (const period of [
          { from: '2026-03-01', to: '2026-03-31' },
          { from: '2026-10-20', to: '2026-11-05' },
          { from: '2025-01-01', to: '2027-12-31' },
        ]) {
          expect(timePlanOf(zone, period), `${zone} ${period.from}`).toEqual(
            await readTimePlan(db, zone, period, {}),
          );
        }
      }
    } finally {
      db.close();
    }
  });
});
