import type { WalEvent } from '@footfall/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams } from './report-params.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * A cookieless visitor: 'p-yesterday' is their hash on 2026-03-02 (UTC), 'x-today' on 03-03.
 * The gateway marks their hashed events of 00:00-00:30 with yesterday's hash (carry).
 */
const P = 'p-yesterday';
const X = 'x-today';
const hashed = (at: string, visitor: string, fields: Partial<WalEvent> = {}): WalEvent =>
  ev(at, { visitor, idMode: 'hash', ...fields });
const early = (at: string, fields: Partial<WalEvent> = {}) => hashed(at, X, { carry: P, ...fields });

let engine: Engine;
let seq = 0n;
afterEach(async () => engine?.close());

const open = async () => {
  engine = await createDuckDbEngine({ path: ':memory:', threads: 2, memoryLimit: '256MB' });
  seq = 0n;
};
const load = async (...events: WalEvent[]) => {
  await engine.applyBatch({ records: onStream('a', events, seq + 1n) });
  seq += BigInt(events.length);
};
/** Visits of a visitor id: start, pageviews, entry and exit. */
const visitsOf = async (visitor: string) =>
  (await engine.journey({ site: 'site1', visitor })).visits
    .reverse()
    .map((v) => ({ started: v.started, pageviews: v.pageviews, entry: v.entry_page, exit: v.exit_page }));
const report = (from: string, to: string) =>
  engine.report({
    site: 'site1',
    timeZone: 'UTC',
    params: parseReportParams({ from, to }, 'UTC', Date.parse('2026-03-10T00:00:00Z')),
  });

const NIGHT = [
  hashed('2026-03-02T23:50:00Z', P, { path: '/blog' }),
  hashed('2026-03-02T23:55:00Z', P, { path: '/blog/post-1' }),
  early('2026-03-03T00:05:00Z', { path: '/blog/post-2' }),
  early('2026-03-03T00:20:00Z', { path: '/blog/post-3' }),
  // after 00:30 the gateway no longer sends the carry; the visit goes on
  hashed('2026-03-03T00:45:00Z', X, { path: '/pricing' }),
  hashed('2026-03-03T00:46:00Z', X, { kind: 'en', path: '/pricing', engagedMs: 30_000 }),
];
const ONE_VISIT = [{ started: '2026-03-02T23:50:00.000Z', pageviews: 5, entry: '/blog', exit: '/pricing' }];

describe('a cookieless visit in progress at midnight', () => {
  it('stays one visit, of the visitor who began it, counted on the day it began', async () => {
    await open();
    await load(...NIGHT);
    expect(await visitsOf(P)).toEqual(ONE_VISIT);
    expect(await visitsOf(X)).toEqual([]);
    expect((await report('2026-03-02', '2026-03-02')).kpis).toMatchObject({
      visitors: 1,
      visits: 1,
      pageviews: 5,
    });
    expect((await report('2026-03-03', '2026-03-03')).kpis).toMatchObject({ visitors: 0, visits: 0 });
  });

  it('ends up the same whatever order the events arrive in, one batch each', async () => {
    for (const order of [
      [5, 4, 3, 2, 1, 0],
      [2, 4, 0, 5, 3, 1],
      [4, 5, 0, 1, 2, 3],
    ]) {
      await open();
      for (const i of order) await load(NIGHT[i] as WalEvent);
      expect(await visitsOf(P), `order ${order}`).toEqual(ONE_VISIT);
      expect(await visitsOf(X), `order ${order}`).toEqual([]);
      await engine.close();
    }
  });

  it('ends up the same whatever order the events arrive in, all in one batch', async () => {
    // every order that starts with an event of the new day's id before one of the day before's:
    // the batch gives the new id a visit of its own, then the replay folds it into the day before's
    let checked = 0;
    for (const order of permutations([0, 1, 2, 3, 4, 5])) {
      if (checked >= 12 || order.indexOf(2) > order.indexOf(0)) continue;
      checked++;
      await open();
      await load(...order.map((i) => NIGHT[i] as WalEvent));
      expect(await visitsOf(P), `order ${order}`).toEqual(ONE_VISIT);
      expect(await visitsOf(X), `order ${order}`).toEqual([]);
      expect((await report('2026-03-02', '2026-03-03')).kpis, `order ${order}`).toMatchObject({
        visitors: 1,
        visits: 1,
        pageviews: 5,
      });
      await engine.close();
    }
  });

  it('ends up as in time order however the events are split into batches, retries included', async () => {
    // a new-day event carried into the day before's visit, then that visit rebuilt by a late
    // event of the day before: the next new-day event must still continue the visit
    const scenarios = [
      [
        hashed('2026-03-02T23:54:00Z', P, { path: '/blog' }),
        hashed('2026-03-02T23:55:00Z', P, { kind: 'vt', path: '/blog' }),
        hashed('2026-03-02T23:57:00Z', P, { path: '/blog/post-1' }),
        early('2026-03-03T00:02:00Z', { path: '/blog/post-2' }),
        early('2026-03-03T00:03:00Z', { kind: 'en', path: '/blog/post-2', engagedMs: 30_000 }),
        early('2026-03-03T00:05:00Z', { path: '/pricing' }),
      ],
      [...NIGHT, hashed('2026-03-03T09:00:00Z', X, { path: '/again' })],
      [
        hashed('2026-03-02T23:10:00Z', P, { path: '/a' }),
        early('2026-03-03T00:02:00Z', { path: '/b' }),
        early('2026-03-03T00:10:00Z', { path: '/c' }),
        hashed('2026-03-02T23:35:00Z', P, { path: '/bridge' }),
        hashed('2026-03-03T00:50:00Z', X, { path: '/d' }),
      ],
    ];
    const random = seeded(11);
    const outcome = async (batches: WalEvent[][]) => {
      await open();
      for (const events of batches) await load(...events);
      const visits = { p: await visitsOf(P), x: await visitsOf(X) };
      await engine.close();
      return visits;
    };
    // splits of the first that once left the last pageview a visit of its own (by index)
    const first = scenarios[0]!;
    const inOrder = await outcome([first]);
    for (const split of [
      [[3], [4], [2, 1], [0], [5]],
      [[0], [1], [3], [2], [4, 5, 5]],
      [[4, 5, 0, 1, 1], [2, 2], [3]],
    ]) {
      expect(await outcome(split.map((b) => b.map((i) => first[i]!))), JSON.stringify(split)).toEqual(
        inOrder,
      );
    }
    for (const events of scenarios) {
      const inOrder = await outcome([[...events].sort((a, b) => a.at - b.at)]);
      for (let round = 0; round < 8; round++) {
        const batches: WalEvent[][] = [[]];
        for (const e of [...events].sort(() => random() - 0.5)) {
          if (batches.at(-1)!.length > 0 && random() < 0.45) batches.push([]);
          batches.at(-1)!.push(e);
          if (random() < 0.2) batches.at(-1)!.push(e); // sent again: stored once
        }
        const split = batches.map((b) => b.map((e) => e.path));
        expect(await outcome(batches), JSON.stringify(split)).toEqual(inOrder);
      }
    }
  });

  it("joins the new day's engagement that came before the day before's pageviews to the visit, however late", async () => {
    // engagement of the new day's id joined nothing when it came (no visit to join yet): the day
    // before's pageviews, come later, make it part of their visit as if all had come in order
    const durationOf = async (batches: WalEvent[][]) => {
      await open();
      for (const events of batches) await load(...events);
      const kpis = (await report('2026-03-02', '2026-03-03')).kpis;
      await engine.close();
      return kpis;
    };
    const vt = hashed('2026-03-03T00:10:06Z', X, { kind: 'vt', carry: P, path: '/' });
    const late = hashed('2026-03-03T00:28:55Z', X, { kind: 'vt', carry: P, path: '/a' });
    const pv = hashed('2026-03-02T23:51:07Z', P, { path: '/' });
    const inOrder = await durationOf([[pv, vt, late]]);
    expect(inOrder).toMatchObject({ visits: 1, visit_duration: 1139 });
    expect(await durationOf([[late], [pv, vt]])).toEqual(inOrder);
    // the engagement 28 minutes after the second pageview, which came last
    const en = hashed('2026-03-03T00:08:23Z', X, { kind: 'en', carry: P, path: '/a', engagedMs: 1000 });
    const first = hashed('2026-03-02T23:14:50Z', P, { path: '/b' });
    const second = hashed('2026-03-02T23:40:11Z', P, { path: '/b' });
    const ordered = await durationOf([[first, second, en]]);
    expect(ordered).toMatchObject({ visits: 1, visit_duration: 3213 });
    expect(await durationOf([[en], [first], [second]])).toEqual(ordered);
  });

  it('folds the new day into the day before when that id is rebuilt earlier in the batch', async () => {
    // a late event of an older visit of P leaves P to the replay; the night's events come after
    // it in the same batch, and the new day's id cannot join a visit of P the batch does not know
    await open();
    await load(
      hashed('2026-02-27T10:00:00Z', P, { path: '/' }),
      hashed('2026-02-27T10:20:00Z', P, { path: '/docs' }),
    );
    await load(hashed('2026-02-27T10:10:00Z', P, { path: '/pricing' }), ...NIGHT);
    expect(await visitsOf(P)).toEqual([
      { started: '2026-02-27T10:00:00.000Z', pageviews: 3, entry: '/', exit: '/docs' },
      ...ONE_VISIT,
    ]);
    expect(await visitsOf(X)).toEqual([]);
    expect((await report('2026-02-27', '2026-03-03')).kpis).toMatchObject({ visits: 2, pageviews: 8 });
  });

  it("keeps the stretch going for the new day's engagement event past it that a rebuild meets first", async () => {
    // X's pageview at 00:04 continued P's visit and is stored under P. A rebuild of P then meets
    // X's vitals event of 01:18 as X's first own event: it joins nothing, and must not end the
    // stretch, so X's engagement of 00:20 (it came last) still ends P's visit
    await open();
    await load(hashed('2026-03-02T23:37:41Z', P, { path: '/a' }));
    await load(early('2026-03-03T00:03:56Z', { path: '/a' }), hashed('2026-03-02T22:58:43Z', P));
    await load(
      hashed('2026-03-02T23:13:38Z', P, { kind: 'en', engagedMs: 1000, path: '/b' }),
      hashed('2026-03-03T01:17:58Z', X, { kind: 'vt', path: '/b' }),
    );
    await load(early('2026-03-03T00:20:33Z', { kind: 'en', engagedMs: 1000, path: '/a' }));
    const visits = (await engine.journey({ site: 'site1', visitor: P })).visits;
    expect(visits.map((v) => [v.started, v.ended, v.pageviews])).toEqual([
      ['2026-03-02T23:37:41.000Z', '2026-03-03T00:20:33.000Z', 2],
      ['2026-03-02T22:58:43.000Z', '2026-03-02T23:13:38.000Z', 1],
    ]);
    expect(await visitsOf(X)).toEqual([]);
  });

  it('makes the person a new visitor on the new day once the visit has ended', async () => {
    await open();
    await load(
      ...NIGHT,
      hashed('2026-03-03T09:00:00Z', X, { path: '/again' }),
      hashed('2026-03-03T09:05:00Z', X, { path: '/again/2' }),
    );
    expect(await visitsOf(P)).toEqual(ONE_VISIT);
    expect(await visitsOf(X)).toEqual([
      { started: '2026-03-03T09:00:00.000Z', pageviews: 2, entry: '/again', exit: '/again/2' },
    ]);
    expect((await report('2026-03-03', '2026-03-03')).kpis).toMatchObject({ visitors: 1, visits: 1 });
  });

  it('does not join a new visit to the day before when more than 30 minutes passed', async () => {
    await open();
    await load(
      hashed('2026-03-02T23:20:00Z', P, { path: '/late' }),
      early('2026-03-03T00:10:00Z', { path: '/after-midnight' }),
    );
    expect(await visitsOf(P)).toHaveLength(1);
    expect(await visitsOf(X)).toEqual([
      {
        started: '2026-03-03T00:10:00.000Z',
        pageviews: 1,
        entry: '/after-midnight',
        exit: '/after-midnight',
      },
    ]);
  });

  it('leaves two people apart whose carries point at different hashes', async () => {
    await open();
    await load(
      hashed('2026-03-02T23:55:00Z', P, { path: '/p' }),
      hashed('2026-03-03T00:05:00Z', 'x-other', { carry: 'p-other', path: '/other' }),
    );
    expect(await visitsOf(P)).toHaveLength(1);
    expect(await visitsOf('x-other')).toHaveLength(1);
  });
});

/** A repeatable sequence of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

function* permutations(xs: number[]): Generator<number[]> {
  if (xs.length <= 1) {
    yield xs;
    return;
  }
  for (let i = 0; i < xs.length; i++) {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) yield [xs[i]!, ...rest];
  }
}
