import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import type { WalCrawl, WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoTraffic } from '../../../../../bench/demo-traffic.ts';
import type { Anchor } from '../attribution.ts';
import type { CrawlGroup } from '../counters-sql.ts';
import { createDuckDbEngine } from '../duckdb-engine.ts';
import type { Engine } from '../engine.ts';
import type { GoalMatch } from '../goals-sql.ts';
import { load } from '../report-cases.ts';
import type { Filter } from '../report-params.ts';
import { botDrop, crawl, ev, onStream } from '../test-fixtures.ts';
import {
  readBotCountersCh,
  readCrawlCountersCh,
  readFunnelCh,
  readGoalPropertiesCh,
  readGoalsCh,
  runAttributionCh,
  runGoalPayersCh,
} from './conversions.ts';
import { type ClickHouseHarness, startHarness } from './test-support.ts';

/**
 * Goals, goal properties, funnels, revenue attribution and the counters on ClickHouse against
 * DuckDB's, on the same WAL batches (late events that merge and split visits, cookieless
 * visitors carried across days): page goals with wildcards and LIKE's own characters, event goals
 * with string, number and boolean properties, funnels in and out of order, both attribution
 * models around visits, counters loaded in several batches. Every answer must be equal.
 */

let h: ClickHouseHarness;
let client: ClickHouseClient;
let duck: Engine;
let dir: string;
let events: WalEvent[];

const DAY = 86_400_000;
const PATHS = [
  '/',
  '/pricing',
  '/pricing/annual',
  '/blog',
  '/blog/one',
  '/blog/two/deep',
  '/signup',
  '/thanks',
];
const ODD_PATHS = ['/100%_off', '/100x_off', '/a_b', '/axb', '/back\\slash'];
const CHANNELS = ['Direct', 'Organic Search', 'Email', 'Referral', 'Paid Search'] as const;

/** Visitors over four months, with signups, purchases and downloads carrying properties of each type. */
function conversionEvents(): WalEvent[] {
  let seed = 5;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n;
  };
  const pick = <T>(list: readonly T[]): T => list[rand(list.length)] as T;
  const out: WalEvent[] = [];
  const first = Date.parse('2026-03-01T00:00:00Z');
  for (let v = 0; v < 140; v++) {
    const visitor = `buyer-${v}`;
    const device: WalEvent['device'] = rand(3) === 0 ? 'mobile' : 'desktop';
    let at = first + rand(60 * 24) * 3_600_000 + rand(3600) * 1000;
    for (let n = 1 + rand(5); n > 0; n--) {
      const visit = { visitor, device, channel: pick(CHANNELS), country: pick(['DE', 'FR', null]) };
      for (let k = 1 + rand(5); k > 0; k--) {
        const path = rand(8) === 0 ? pick(ODD_PATHS) : pick(PATHS);
        out.push(ev(new Date(at).toISOString(), { ...visit, path }));
        // a custom event in the same millisecond as its page, or a second later
        const t = new Date(at + (rand(3) === 0 ? 0 : 1000)).toISOString();
        if (path === '/signup' && rand(2) === 0) {
          const props: Record<string, string | number | boolean> = {
            plan: pick(['pro', 'free']),
            seats: pick([1, 3, 12.5]),
            trial: rand(2) === 0,
          };
          if (rand(4) === 0) props['odd "key"'] = 'x';
          if (rand(4) === 0) props['a.b'] = pick([0.1, -2, 1e21]);
          out.push(ev(t, { ...visit, path, kind: 'ev', name: 'Signup', props }));
        } else if (path === '/thanks' && rand(3) > 0) {
          const props = { amount: pick([12.5, 30, 99.99]), currency: 'EUR', first: rand(2) === 0 };
          out.push(ev(t, { ...visit, path, kind: 'ev', name: 'Purchase', props }));
        } else if (rand(6) === 0) {
          out.push(ev(t, { ...visit, path, kind: 'ev', name: 'Download' }));
        } else if (rand(5) === 0) {
          out.push(ev(t, { ...visit, path, kind: 'en', engagedMs: 4000, scroll: 50 }));
        }
        at += (1 + rand(20)) * 60_000;
      }
      at += pick([40 * 60_000, 5 * 3_600_000, 2 * DAY, 9 * DAY, 40 * DAY, 95 * DAY]);
    }
  }
  return out;
}

function demoEvents(): WalEvent[] {
  const out: WalEvent[] = [];
  for (const chunk of demoTraffic({
    events: 2_500,
    siteId: 'site1',
    host: 'example.com',
    timeZone: 'Europe/Berlin',
    endMs: Date.parse('2026-04-03T00:00:00Z'),
    days: 8,
    seed: 3,
  })) {
    out.push(...chunk);
  }
  return out;
}

/** Crawls and bot drops over ten days; the first half of each batch counts what every batch counts. */
async function loadCounters(apply: (records: ReturnType<typeof onStream>) => Promise<unknown>) {
  let seq = 1n;
  for (let b = 0; b < 4; b++) {
    const records = [];
    for (let i = 0; i < 60; i++) {
      const k = i < 30 ? i : i + b;
      const day = `2026-03-${String(1 + ((k * 7) % 10)).padStart(2, '0')}`;
      const fields: Partial<WalCrawl> = {
        day,
        robot: ['GPTBot', 'Googlebot', 'ClaudeBot'][k % 3]!,
        robotKind: (['ai_training', 'search', 'ai_assistant'] as const)[k % 3]!,
        path: ['/', '/blog/one', '/pricing', '/docs'][k % 4]!,
      };
      const status = [200, 301, 404, 503, undefined][(k * 3) % 5];
      if (status !== undefined) fields.status = status;
      records.push(crawl(fields));
      if (i % 2 === 0)
        records.push(botDrop({ day, kind: (['list', 'empty_ua', 'headless'] as const)[k % 3]! }));
    }
    records.push(crawl({ site: 'site2', day: '2026-03-03' }), botDrop({ site: 'site2', day: '2026-03-03' }));
    await apply(onStream('b', records, seq));
    seq += BigInt(records.length);
  }
}

beforeAll(async () => {
  h = await startHarness();
  const db = await h.database();
  client = db.client;
  dir = mkdtempSync(join(tmpdir(), 'ff-ch-conversions-'));
  duck = await createDuckDbEngine({ path: join(dir, 'analytics.duckdb'), threads: 2, memoryLimit: '256MB' });
  events = [...conversionEvents(), ...demoEvents()];
  await load(duck, events);
  await load({ applyBatch: (batch) => db.loader.apply(batch) }, events);
  await loadCounters((records) => duck.applyBatch({ records }));
  await loadCounters((records) => db.loader.apply({ records }));
  db.loader.store.close();
}, 300_000);
afterAll(async () => {
  await duck?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const page = (match: string): GoalMatch => ({ kind: 'page', match, prop: null });
const event = (match: string, key?: string, value?: string): GoalMatch => ({
  kind: 'event',
  match,
  prop: key === undefined ? null : { key, value: value ?? '' },
});

const GOALS: GoalMatch[] = [
  page('/thanks'),
  page('/blog/*'),
  page('*'),
  page('/pricing*'),
  page('/100%_off'),
  page('/a_b'),
  page('/back\\slash'),
  page('/signup'),
  event('Signup'),
  event('Signup', 'plan', 'pro'),
  event('Signup', 'seats', '3'),
  event('Signup', 'seats', '12.5'),
  event('Signup', 'trial', 'true'),
  event('Signup', 'odd "key"', 'x'),
  event('Signup', 'a.b', '0.1'),
  event('Purchase', 'amount', '99.99'),
  event('Purchase', 'first', 'false'),
  event('Download'),
  event('Outbound Link'),
  event('Never'),
];

const FILTERS: Filter[][] = [
  [],
  [{ dim: 'channel', value: 'Email' }],
  [{ dim: 'country', value: null }],
  [{ dim: 'page', value: '/pricing' }],
  [{ dim: 'event', value: 'Signup' }],
  [{ dim: 'prop', value: 'plan:pro' }],
  [{ dim: 'goal', value: 'Blog', goal: page('/blog/*') }],
  [
    { dim: 'device', value: 'desktop' },
    { dim: 'goal', value: 'Trial', goal: event('Signup', 'trial', 'true') },
  ],
];

const PERIODS = [
  { from: '2026-03-01', to: '2026-07-31' },
  { from: '2026-03-26', to: '2026-04-02' },
  { from: '2026-03-29', to: '2026-03-29' },
];

/** Every zone and period with each of the filter sets. */
function* periodQueries(filterSets = FILTERS) {
  for (const timeZone of ['UTC', 'Europe/Berlin']) {
    for (const period of PERIODS) {
      for (const filters of filterSets) yield { site: 'site1', timeZone, period, filters };
    }
  }
}

/**
 * Sales in lists of 100: the parameters travel in the URL, and the test server (Node's HTTP
 * server) reads request heads of 16 KiB at most. Each sale is credited on its own, so the lists
 * change no answer.
 */
/** A sale around each of every 60th event: before its visit, in its first second, after it, months later. */
function sales(offsets: number[]): Anchor[] {
  const out = events
    .filter((_, i) => i % 60 === 0)
    .flatMap((e) => offsets.map((d) => ({ visitor: e.visitor, at: e.at + d })));
  return [...out, { visitor: 'nobody', at: Date.parse('2026-04-01T00:00:00Z') }];
}

describe('ClickHouse conversions', () => {
  it('count each goal’s visitors, visits and conversions as DuckDB does', async () => {
    for (const q of periodQueries()) {
      const expected = await duck.goals({ ...q, goals: GOALS });
      expect(await readGoalsCh(client, { ...q, goals: GOALS }, {}), JSON.stringify(q)).toEqual(expected);
    }
    const q = { site: 'site1', timeZone: 'UTC', period: PERIODS[0]!, filters: [], goals: [] };
    expect(await readGoalsCh(client, q, {})).toEqual([]);
  }, 300_000);

  it('break an event goal down by its properties’ values as DuckDB does', async () => {
    const goals = [event('Signup'), event('Signup', 'plan', 'free'), event('Purchase')];
    for (const q of periodQueries()) {
      for (const goal of goals) {
        const expected = await duck.goalProperties({ ...q, goal });
        const actual = await readGoalPropertiesCh(client, { ...q, goal }, {});
        expect(actual, `${JSON.stringify(q)} ${goal.match}`).toEqual(expected);
      }
    }
    const q = { site: 'site1', timeZone: 'UTC', period: PERIODS[0]!, filters: [] };
    for (const goal of [event('Download'), event('Outbound Link'), event('Never'), page('/signup')]) {
      expect(await readGoalPropertiesCh(client, { ...q, goal }, {})).toEqual(
        await duck.goalProperties({ ...q, goal }),
      );
    }
  }, 300_000);

  it('count funnels of two to four steps, in and out of order, as DuckDB does', async () => {
    const funnels = [
      [page('/'), page('/pricing*'), event('Signup')],
      [page('/pricing*'), event('Signup', 'plan', 'pro'), page('/thanks'), event('Purchase')],
      [event('Signup'), page('/')],
      [page('/blog/*'), page('/blog/*')],
      [page('/signup'), event('Signup'), page('/signup'), event('Signup')],
      [event('Download'), page('*')],
    ];
    const windows = [null, 1, 7, 30];
    let n = 0;
    for (const q of periodQueries([0, 2, 4, 7].map((i) => FILTERS[i]!))) {
      for (const steps of funnels) {
        const withinDays = windows[n++ % windows.length]!;
        const expected = await duck.funnel({ ...q, steps, withinDays });
        const actual = await readFunnelCh(client, { ...q, steps, withinDays }, {});
        expect(actual, `${JSON.stringify(q)} ${JSON.stringify(steps)} ${withinDays}`).toEqual(expected);
      }
    }
    const q = { site: 'site1', timeZone: 'UTC', period: PERIODS[0]!, filters: [] };
    for (const steps of funnels) {
      for (const withinDays of windows) {
        const expected = await duck.funnel({ ...q, steps, withinDays });
        expect(await readFunnelCh(client, { ...q, steps, withinDays }, {})).toEqual(expected);
      }
    }
  }, 300_000);

  it('credit each sale to the visit DuckDB credits, by either model, with filters', async () => {
    const anchors = sales([-DAY, -1000, -600, 0, 400, 3_600_000, 20 * DAY, 91 * DAY]);
    expect(anchors.length).toBeGreaterThan(250);
    const filters: Filter[][] = [
      [],
      [{ dim: 'channel', value: 'Email' }],
      [{ dim: 'country', value: null }],
      [{ dim: 'page', value: '/pricing' }],
      [{ dim: 'event', value: 'Purchase' }],
      [{ dim: 'prop', value: 'plan:pro' }],
      FILTERS.at(-1)!,
    ];
    for (const model of ['last', 'first'] as const) {
      for (const f of filters) {
        // all sales at once: more than one statement's worth of parameters (read in parts)
        const q = { site: 'site1', anchors, model, filters: f };
        const expected = await duck.attribute(q);
        expect(await runAttributionCh(client, q, {}), `${model} ${JSON.stringify(f)}`).toEqual(expected);
        expect(expected.filter((c) => c?.matches).length).toBeGreaterThan(0);
      }
    }
    const none = { site: 'site1', anchors: [], model: 'last' as const, filters: [] };
    expect(await runAttributionCh(client, none, {})).toEqual([]);
  }, 300_000);

  it('say which goals each payer reached before the sale as DuckDB does', async () => {
    const anchors = sales([-1000, 0, 500, 1000, 2 * DAY, 89 * DAY, 91 * DAY]);
    const q = { site: 'site1', anchors, goals: GOALS };
    const expected = await duck.goalPayers(q);
    expect(await runGoalPayersCh(client, q, {})).toEqual(expected);
    expect(expected.filter((g) => g.length > 2).length).toBeGreaterThan(0);
    const few = sales([0]).slice(0, 20);
    expect(await runGoalPayersCh(client, { site: 'site1', anchors: few, goals: [] }, {})).toEqual(
      few.map(() => []),
    );
  }, 300_000);

  it('sum crawler and bot counters loaded in several batches as DuckDB does', async () => {
    const groupings: CrawlGroup[][] = [
      [],
      ['day'],
      ['robot'],
      ['robotKind', 'status'],
      ['path', 'day'],
      ['status'],
      ['day', 'robot', 'robotKind', 'path', 'status'],
    ];
    for (const groupBy of groupings) {
      for (const [from, to] of [
        ['2026-03-01', '2026-03-31'],
        ['2026-03-03', '2026-03-05'],
        ['2026-04-01', '2026-04-02'],
      ] as const) {
        for (const extra of [{}, { path: '/pricing' }, { limit: 3 }]) {
          const q = { site: 'site1', from, to, groupBy, ...extra };
          const expected = await duck.crawlCounters(q);
          expect(await readCrawlCountersCh(client, q, {}), JSON.stringify(q)).toEqual(expected);
        }
      }
    }
    for (const [site, from, to] of [
      ['site1', '2026-03-01', '2026-03-31'],
      ['site1', '2026-03-04', '2026-03-04'],
      ['site2', '2026-03-01', '2026-03-31'],
    ] as const) {
      const expected = await duck.botCounters({ site, from, to });
      expect(await readBotCountersCh(client, { site, from, to }, {})).toEqual(expected);
    }
  }, 120_000);
});
