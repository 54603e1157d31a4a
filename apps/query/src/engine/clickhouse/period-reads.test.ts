import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { WalEvent, WalRecord } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTraffic } from '../../../../../bench/demo-traffic.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { Engine, PeriodQuery } from '../engine.ts';
import type { GoalMatch } from '../goals-sql.ts';
import type { BatchRecord } from '../loader.ts';
import { load, randomEvents } from '../report-cases.ts';
import type { Bucket, Filter, Period } from '../report-params.ts';
import { ev, onStream } from '../test-fixtures.ts';
import {
  readAssistantsCh,
  readChartsCh,
  readHeatmapCh,
  readMomentsCh,
  readRetentionCh,
  readVitalsCh,
} from './period-reads.ts';
import { type ClickHouseHarness, startHarness } from './test-support.ts';

/**
 * Heatmap, retention, vitals, assistants, chart cards and moments on ClickHouse against DuckDB's
 * on the same data, loaded in batches with late and repeated events: report-cases.ts's returning
 * visitors (site1), demo traffic with vitals, engagement, assistants, campaigns and carried
 * cookieless visitors (site2), and vitals samples in counts from 1 to 300 (site3). Periods
 * of a day to five months in UTC and Europe/Berlin (spring forward on 29 March), every bucket,
 * filters of each kind. Every number must be equal.
 */

let h: ClickHouseHarness;
let client: ClickHouseClient;
let duck: Engine;
let dir: string;

/** Demo traffic for 60 days to 20 April, with hand-made oddities, in batches: late, repeated. */
function site2Batches(): WalRecord[][] {
  const events: WalEvent[] = [];
  for (const chunk of demoTraffic({
    events: 8_000,
    siteId: 'site2',
    host: 'example.com',
    timeZone: 'Europe/Berlin',
    endMs: Date.parse('2026-04-21T00:00:00Z'),
    days: 60,
    seed: 5,
  })) {
    events.push(...chunk);
  }
  const site2 = (at: string, fields: Partial<WalEvent>) => ev(at, { site: 'site2', ...fields });
  events.push(
    // vitals of no visit (no pageview before them): counted unfiltered, never under a filter
    site2('2026-03-29T01:30:00Z', { visitor: 'orphan', kind: 'vt', path: '/', lcp: 2000, cls: 0 }),
    site2('2026-03-29T01:31:00Z', { visitor: 'orphan', kind: 'vt', path: '/', lcp: 2000, inp: 200 }),
    // tied samples on one page
    site2('2026-03-29T08:00:00Z', { visitor: 'ties', path: '/ties' }),
    ...[2500, 2500, 2500, 4000].map((lcp, i) =>
      site2(`2026-03-29T08:0${i + 1}:00Z`, { visitor: 'ties', kind: 'vt', path: '/ties', lcp, fcp: 1800 }),
    ),
    // an assistant visit whose assistant is unknown (tied with a known one), and engagement of no time
    site2('2026-03-29T09:00:00Z', { visitor: 'ai1', channel: 'AI Assistant', referrerHost: 'ai.example' }),
    site2('2026-03-29T09:00:10Z', { visitor: 'ai1', kind: 'en', channel: 'AI Assistant' }),
    site2('2026-03-29T09:30:00Z', { visitor: 'ai3', channel: 'AI Assistant', assistant: 'Claude' }),
    site2('2026-04-02T09:00:00Z', { visitor: 'ai2', channel: 'AI Assistant', referrerHost: 'ai.example' }),
    // a launch hour from a new referrer, campaign and country (the peak), and a spike the day after
    ...Array.from({ length: 25 }, (_, i) =>
      site2(`2026-04-02T12:${String(2 * i).padStart(2, '0')}:00Z`, {
        visitor: `launch${i}`,
        channel: 'Referral',
        referrerHost: 'launch.example',
        utmCampaign: 'launch',
        path: '/launch',
        country: i === 0 ? 'IS' : 'DE',
      }),
    ),
    ...Array.from({ length: 15 }, (_, i) =>
      site2(`2026-04-03T15:${String(3 * i).padStart(2, '0')}:00Z`, {
        visitor: `social${i}`,
        channel: 'Organic Social',
        referrerHost: 'social.example',
      }),
    ),
  );
  events.sort((a, b) => a.at - b.at);
  // every 37th event arrives three batches late, every 53rd is sent again a batch later
  const batches: WalRecord[][] = [];
  const size = 500;
  for (let i = 0; i < events.length; i += size) batches.push([]);
  events.forEach((e, i) => {
    const b = Math.floor(i / size);
    batches[Math.min(batches.length - 1, i % 37 === 0 ? b + 3 : b)]!.push(e);
    if (i % 53 === 0) batches[Math.min(batches.length - 1, b + 1)]!.push({ ...e, at: e.at + 900 });
  });
  return batches;
}

/** Day k's LCP samples in site3 (k of them, values repeated). */
const site3Lcp = (k: number) => Array.from({ length: k }, (_, i) => 1000 + 250 * ((i * 7 + k) % 9));

/**
 * Vitals samples for the percentiles: day k of May (1..24) has one visit of k samples on its own
 * page, with repeated values and gaps; a period of the first k days holds k(k+1)/2 of them.
 */
function site3Events(): WalEvent[] {
  const out: WalEvent[] = [];
  for (let k = 1; k <= 24; k++) {
    const day = `2026-05-${String(k).padStart(2, '0')}`;
    const fields = {
      site: 'site3',
      visitor: `p${k}`,
      path: `/n${k}`,
      device: k % 3 === 0 ? ('mobile' as const) : ('desktop' as const),
    };
    out.push(ev(`${day}T10:00:00Z`, fields));
    for (let i = 0; i < k; i++) {
      out.push(
        ev(`${day}T10:${String(1 + i).padStart(2, '0')}:00Z`, {
          ...fields,
          kind: 'vt',
          lcp: site3Lcp(k)[i],
          fcp: 500 + 100 * (i % 4),
          ...(i % 2 === 0 ? { inp: 50 + 75 * ((i + k) % 6) } : {}),
          ttfb: 100 + 37 * ((i * 5) % 11),
          cls: ((i * 3 + k) % 5) / 20,
        }),
      );
    }
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness();
  const db = await h.database();
  client = db.client;
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-period-reads-'));
  duck = await createDuckDbEngine({
    path: join(dir, 'analytics.duckdb'),
    threads: 2,
    memoryLimit: '256MB',
    now: () => Date.parse('2026-08-01T00:00:00Z'),
  });
  const events = randomEvents();
  await load(duck, events);
  await load({ applyBatch: (batch) => db.loader.apply(batch) }, events);
  let seq = 1n;
  for (const batch of [...site2Batches(), site3Events()]) {
    const records: BatchRecord[] = onStream('b', batch, seq);
    seq += BigInt(records.length);
    await duck.applyBatch({ records });
    await db.loader.apply({ records });
  }
  db.loader.store.close();
}, 180_000);
afterAll(async () => {
  await duck?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ZONES = ['UTC', 'Europe/Berlin'];
const PERIODS: Period[] = [
  { from: '2026-03-29', to: '2026-03-29' },
  { from: '2026-03-23', to: '2026-04-05' },
  { from: '2026-03-01', to: '2026-04-20' },
  { from: '2026-03-01', to: '2026-07-31' },
];
const SIGNUP_PRO: GoalMatch = { kind: 'event', match: 'Signup', prop: { key: 'plan', value: 'pro' } };
const GOALS: Record<string, GoalMatch[]> = {
  site1: [
    { kind: 'page', match: '/a*', prop: null },
    { kind: 'event', match: 'E1', prop: null },
  ],
  site2: [{ kind: 'page', match: '/docs/*', prop: null }, SIGNUP_PRO],
};
const FILTERS: Record<string, Filter[][]> = {
  site1: [
    [],
    [{ dim: 'channel', value: 'Direct' }],
    [{ dim: 'country', value: null }],
    [{ dim: 'page', value: '/b' }],
    [{ dim: 'event', value: 'E1' }],
    [{ dim: 'goal', value: 'A pages', goal: { kind: 'page', match: '/a*', prop: null } }],
    [
      { dim: 'browser', value: 'Firefox' },
      { dim: 'referrer', value: 'news.example' },
    ],
  ],
  site2: [
    [],
    [{ dim: 'channel', value: 'AI Assistant' }],
    [{ dim: 'country', value: null }],
    [{ dim: 'page', value: '/pricing' }],
    [{ dim: 'event', value: 'Signup' }],
    [{ dim: 'goal', value: 'Pro signups', goal: SIGNUP_PRO }],
    [{ dim: 'prop', value: 'format:docker' }],
    [
      { dim: 'device', value: 'mobile' },
      { dim: 'campaign', value: null },
    ],
  ],
};

/** The two weeks over Berlin's spring forward, where every filter set is compared. */
const DST_WEEKS = PERIODS[1]!;

/**
 * Each site's periods in both zones, unfiltered and with one filter set (in turn), and every
 * filter set over the weeks of the spring forward in Berlin; with a label for failures.
 */
function* cases(sites = ['site1', 'site2']): Generator<{ q: PeriodQuery; label: string; days: number }> {
  for (const site of sites) {
    const sets = FILTERS[site]!;
    let turn = 0;
    for (const timeZone of ZONES) {
      for (const period of PERIODS) {
        const all = timeZone === 'Europe/Berlin' && period === DST_WEEKS;
        const days = (Date.parse(period.to) - Date.parse(period.from)) / 86_400_000 + 1;
        for (const filters of all ? sets : [[], sets[1 + (turn++ % (sets.length - 1))]!]) {
          const label = `${site} ${timeZone} ${period.from}..${period.to} ${JSON.stringify(filters)}`;
          yield { q: { site, timeZone, period, filters }, label, days };
        }
      }
    }
  }
}

/** The buckets a period's chart comes in (hours cover at most 31 days). */
const bucketsFor = (days: number): Bucket[] =>
  days === 1 ? ['hour', 'day'] : days <= 31 ? ['hour', 'day', 'week'] : ['day', 'week', 'month'];

/** site2's whole period in Berlin, unfiltered: the data the cases compare is rich enough. */
const PERIOD_Q: PeriodQuery = {
  site: 'site2',
  timeZone: 'Europe/Berlin',
  period: { from: '2026-03-01', to: '2026-04-20' },
  filters: [],
};

describe('ClickHouse period reads', () => {
  it('give DuckDB’s heatmap and retention', async () => {
    for (const { q, label } of cases()) {
      expect(await readHeatmapCh(client, q, {}), label).toEqual(await duck.heatmap(q));
      expect(await readRetentionCh(client, q, {}), label).toEqual(await duck.retention(q));
    }
  }, 300_000);

  it('give DuckDB’s vitals and assistants', async () => {
    let samples = 0;
    let assistants = 0;
    for (const { q, label } of cases(['site2'])) {
      const vitals = await duck.vitals(q);
      expect(await readVitalsCh(client, q, {}), label).toEqual(vitals);
      samples += vitals.samples;
      for (const limit of [2, 10]) {
        const rows = await duck.assistants({ ...q, limit });
        expect(await readAssistantsCh(client, { ...q, limit }, {}), `${label} ${limit}`).toEqual(rows);
        assistants += rows.length;
      }
    }
    // the cases hold samples and assistants to compare, the unknown assistant among them
    expect(samples).toBeGreaterThan(1000);
    expect(assistants).toBeGreaterThan(50);
    const all = await duck.assistants({ ...PERIOD_Q, limit: 10 });
    expect(all.map((r) => r.value)).toContain(null);
  }, 300_000);

  it('give DuckDB’s nearest-rank percentiles for 1 to 300 samples', async () => {
    const seen = new Set<number>();
    for (let k = 1; k <= 24; k++) {
      const timeZone = ZONES[k % 2]!;
      const period = { from: '2026-05-01', to: `2026-05-${String(k).padStart(2, '0')}` };
      for (const filters of [[], [{ dim: 'device', value: 'desktop' }]] as Filter[][]) {
        const q = { site: 'site3', timeZone, period, filters };
        const vitals = await duck.vitals(q);
        expect(await readVitalsCh(client, q, {}), `${timeZone} ${period.to} ${filters.length}`).toEqual(
          vitals,
        );
        for (const metric of Object.values(vitals.metrics)) seen.add(metric.samples);
        for (const page of vitals.pages) seen.add(page.samples);
      }
    }
    // counts whose q·n is whole for each level (n = 2, 4, 10, 20...) are among them
    for (const n of [1, 2, 3, 4, 10, 20, 24, 300]) expect(seen).toContain(n);
    // and each page's p75 is the nearest rank: the ⌈0.75·n⌉-th smallest sample
    const q = {
      site: 'site3',
      timeZone: 'UTC',
      period: { from: '2026-05-01', to: '2026-05-24' },
      filters: [],
    };
    const pages = (await readVitalsCh(client, q, {})).pages;
    expect(pages).toHaveLength(24);
    for (const page of pages) {
      const sorted = site3Lcp(page.samples).sort((a, b) => a - b);
      expect(page.lcp, page.value).toBe(sorted[Math.ceil(0.75 * page.samples) - 1]);
    }
  }, 300_000);

  it('give DuckDB’s chart cards in every bucket, with and without goals', async () => {
    let turn = 0;
    for (const { q, label, days } of cases()) {
      for (const bucket of bucketsFor(days)) {
        // goals: none asked (null), an empty list, the site's goals; in turn
        const goals = [null, [], GOALS[q.site] ?? []][turn++ % 3] ?? null;
        const cq = { ...q, bucket, goals };
        expect(await readChartsCh(client, cq, {}), `${label} ${bucket} ${goals?.length}`).toEqual(
          await duck.charts(cq),
        );
      }
    }
    const withGoals = await duck.charts({ ...PERIOD_Q, bucket: 'day', goals: GOALS['site2']! });
    expect(withGoals.conversions?.visits.some((n) => n > 0)).toBe(true);
    expect(withGoals.engaged_time.filter((b) => b.visits > 0).length).toBeGreaterThan(3);
  }, 300_000);

  it('give DuckDB’s moments by day and by hour', async () => {
    const kinds = new Set<string>();
    for (const { q, label, days } of cases()) {
      for (const bucket of days <= 31 ? (['day', 'hour'] as const) : (['day'] as const)) {
        const expected = await duck.moments({ ...q, bucket });
        expect(await readMomentsCh(client, { ...q, bucket }, {}), `${label} ${bucket}`).toEqual(expected);
        for (const m of expected.moments) kinds.add(m.kind);
      }
    }
    // every kind of moment was among those compared
    expect([...kinds].sort()).toEqual(['first_campaign', 'first_country', 'first_referrer', 'peak', 'spike']);
  }, 300_000);
});
