import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../apps/query/src/engine/duckdb-engine.ts';
import type { Engine, Report } from '../../apps/query/src/engine/index.ts';
import { parseReportParams } from '../../apps/query/src/engine/index.ts';
import { rollupReads, useSlowReports } from '../../apps/query/src/engine/report.ts';
import { rollupsBuilt } from '../../apps/query/src/engine/test-fixtures.ts';
import { demoTraffic } from '../../bench/demo-traffic.ts';

/**
 * Day rollups and raw events agree on the benchmark's demo data (bench/demo-traffic.ts): the
 * same weekday and hour cycles, returning visitors, bounces, engagement, vitals and custom events
 * as the 1M and 10M runs, here 30,000 events over 120 days. Reports over rollups must equal the
 * reports that look for repeat visitors in raw visits, to the last number.
 */
const SITE = 'demo';
const ZONE = 'Europe/Berlin';
const END = Date.parse('2026-07-01T10:00:00Z');
const DAY = 86_400_000;

let dir: string;
let engine: Engine;
const rollupErrors: unknown[] = [];

const dateBefore = (days: number) => new Date(END - days * DAY).toISOString().slice(0, 10);
const QUERIES: Record<string, string>[] = [
  { from: dateBefore(30), to: dateBefore(1), compare: 'previous', daily: '1', deep: '1', limit: '100' },
  { from: dateBefore(29), to: dateBefore(0), compare: 'previous', daily: '1' },
  { from: dateBefore(90), to: dateBefore(1), bucket: 'week', limit: '50' },
  { from: dateBefore(119), to: dateBefore(0), bucket: 'month', deep: '1', limit: '1000' },
];

async function reports(slow: boolean): Promise<Report[]> {
  useSlowReports(slow);
  try {
    const out: Report[] = [];
    for (const q of QUERIES) {
      out.push(await engine.report({ site: SITE, timeZone: ZONE, params: parseReportParams(q, ZONE, END) }));
    }
    return out;
  } finally {
    useSlowReports(false);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-rollups-demo-'));
  engine = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => END,
    onRollupError: (error) => rollupErrors.push(error),
  });
  let seq = 1n;
  for (const day of demoTraffic({
    events: 30_000,
    siteId: SITE,
    host: 'demo.example',
    timeZone: ZONE,
    endMs: END,
    days: 120,
    seed: 7,
  })) {
    if (day.length === 0) continue;
    const records = day.map((record) => ({ stream: 'demo', seq: seq++, record }));
    await engine.applyBatch({ records });
  }
}, 120_000);
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('day rollups on the demo data', () => {
  it('give the reports raw visits give', async () => {
    const expected = await reports(true);
    expect(expected[3]!.kpis.visits).toBeGreaterThan(expected[3]!.kpis.visitors);
    await reports(false); // asks for every day that is over
    await rollupsBuilt(engine);
    const before = rollupReads.days;
    const rolled = await reports(false);
    expect(rollupReads.days - before).toBeGreaterThan(200);
    expect(rolled).toEqual(expected);
    expect(rollupErrors).toEqual([]);
  }, 120_000);
});
