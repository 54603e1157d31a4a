import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import { parseReportParams } from './report-params.ts';
import type { Report } from './report-types.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * Distinct visitors are computed without DISTINCT (report-sql.ts); this checks every daily and
 * period breakdown row against plain count(DISTINCT) over the stored visits and events, on
 * data where visitors come back on the same day, on other days, with changing channels.
 */
const CHANNELS = ['Direct', 'Organic Search', 'Email'] as const;
const PATHS = ['/a', '/b', '/c', '/d'] as const;

function visits(): WalEvent[] {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const events: WalEvent[] = [];
  for (let v = 0; v < 60; v++) {
    const visitor = `visitor-${v}`;
    // 1..4 visits, an hour apart from a random hour of 2026-03-02..04: many share a day
    let at = Date.parse('2026-03-02T00:00:00Z') + rand(60) * 3_600_000;
    for (let n = 1 + rand(4); n > 0; n--) {
      const channel = CHANNELS[rand(CHANNELS.length)];
      for (let k = 1 + rand(3); k > 0; k--) {
        const path = PATHS[rand(PATHS.length)] ?? '/a';
        events.push(ev(new Date(at).toISOString(), { visitor, path, channel }));
        if (rand(3) === 0) {
          events.push(
            ev(new Date(at + 1000).toISOString(), { visitor, path, kind: 'ev', name: `E${rand(2)}` }),
          );
        }
        at += 60_000;
      }
      at += 3_600_000;
    }
  }
  return events.sort((a, b) => a.at - b.at);
}

type Expected = Map<string, [visitors: number, visits: number]>;

let dir: string;
let report: Report;
let expected: Expected;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-visitors-'));
  const path = join(dir, 'analytics.duckdb');
  const engine = await createDuckDbEngine({ path, threads: 2, memoryLimit: '256MB' });
  await engine.applyBatch({ records: onStream('a', visits()) });
  const params = parseReportParams(
    { from: '2026-03-02', to: '2026-03-04', daily: '1', limit: '1000' },
    'UTC',
    Date.parse('2026-03-05T12:00:00Z'),
  );
  report = await engine.report({ site: 'site1', timeZone: 'UTC', params });
  await engine.close();

  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  const range = "BETWEEN '2026-03-02' AND '2026-03-04 23:59:59.999'";
  const rows = (
    await connection.runAndReadAll(`
      SELECT 'channel' AS section, strftime(started_at, '%Y-%m-%d') AS day, channel AS val,
        count(DISTINCT visitor_key) AS visitors, count(*) AS visits
      FROM sessions WHERE started_at ${range} GROUP BY GROUPING SETS ((channel), (day, channel))
      UNION ALL
      SELECT CASE WHEN kind = 'pv' THEN 'pages' ELSE 'events' END, strftime(visit_start, '%Y-%m-%d'),
        CASE WHEN kind = 'pv' THEN path ELSE name END,
        count(DISTINCT visitor_key), count(DISTINCT session_id)
      FROM events WHERE kind IN ('pv', 'ev') AND visit_start ${range}
      GROUP BY GROUPING SETS ((1, 3), (1, 2, 3))`)
  ).getRowObjectsJS();
  connection.closeSync();
  instance.closeSync();
  expected = new Map(
    rows.map((r) => [
      `${r['section']} ${r['day'] ?? 'period'} ${r['val']}`,
      [Number(r['visitors']), Number(r['visits'])],
    ]),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function shown(): Expected {
  const out: Expected = new Map();
  const add = (day: string, b: Report['breakdowns']) => {
    for (const row of b.channel ?? []) out.set(`channel ${day} ${row.value}`, [row.visitors, row.visits]);
    for (const row of b.pages) out.set(`pages ${day} ${row.value}`, [row.visitors, row.visits]);
    for (const row of b.events) out.set(`events ${day} ${row.value}`, [row.visitors, row.visits]);
  };
  add('period', report.breakdowns);
  for (const d of report.daily ?? []) add(d.day, d.breakdowns);
  return out;
}

describe('distinct visitors in breakdowns', () => {
  it('match count(DISTINCT) for every period and day row of channels, pages and events', () => {
    // the data must have repeat visitors within one day's rows, or this would prove little
    const sameDayRepeats = [...expected].filter(
      ([k, [visitors, visits]]) => !k.includes(' period ') && visits > visitors,
    );
    expect(sameDayRepeats.length).toBeGreaterThan(5);
    expect(shown()).toEqual(expected);
  });

  it('match count(DISTINCT) for the period KPIs', () => {
    const channels = [...expected].filter(([k]) => k.startsWith('channel period'));
    expect(report.kpis.visits).toBe(channels.reduce((n, [, [, visits]]) => n + visits, 0));
    expect(report.kpis.visitors).toBe(60);
  });
});
