import type { WalEvent } from '@footfall/schema';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { VisitorStore } from '../visits/store.ts';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { parseReportParams } from './report-params.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * Random nights of one person around midnight (a cookieless id of the day before, P, and of the
 * new day, X, that carries P for the first 30 minutes), and a cookie visitor beside them: a few
 * pageviews, custom events, engagement and vitals events, sent in random batches, some twice.
 * Every split must end as the same events loaded in time order do: the same visits and numbers,
 * also when the visitor records of some batches are lost (a crash between the two commits) and
 * repaired from the database.
 * CI runs a few nights; `FUZZ_SEED=n FUZZ_ROUNDS=200` searches longer (it found the two cases
 * carry.test.ts now holds).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 4);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 8);
let x = SEED;
const rnd = () => {
  x = (x * 1103515245 + 12345) % 2147483648;
  return x / 2147483648;
};
const pick = <T>(a: T[]) => a[Math.floor(rnd() * a.length)]!;
const MID = Date.parse('2026-03-03T00:00:00Z');

function scenario(): WalEvent[] {
  const n = 3 + Math.floor(rnd() * 6);
  const out: WalEvent[] = [];
  for (let i = 0; i < n; i++) {
    const who = pick(['p', 'x', 'x', 'c']);
    // minutes around midnight; P only before, X only after (a daily hash)
    let min: number;
    if (who === 'p') min = -75 + Math.floor(rnd() * 75);
    else if (who === 'x') min = Math.floor(rnd() * 90);
    else min = -60 + Math.floor(rnd() * 120);
    const kind = pick(['pv', 'pv', 'pv', 'ev', 'en', 'vt'] as const);
    const at = new Date(MID + min * 60_000 + Math.floor(rnd() * 59) * 1000).toISOString();
    const base: Partial<WalEvent> = {
      kind,
      path: pick(['/', '/a', '/b']),
      ...(kind === 'ev' ? { name: 'Signup' } : {}),
      ...(kind === 'en' ? { engagedMs: 1000 } : {}),
    };
    if (who === 'c') out.push(ev(at, { ...base, visitor: 'c1' }));
    else if (who === 'p') out.push(ev(at, { ...base, visitor: 'P', idMode: 'hash' }));
    else out.push(ev(at, { ...base, visitor: 'X', idMode: 'hash', ...(min < 30 ? { carry: 'P' } : {}) }));
  }
  return out;
}

/** Batch i's generation when its visitor records are lost (a crash before they were written). */
let failing = -1;
const flush = VisitorStore.prototype.flush;
beforeAll(() => {
  vi.spyOn(VisitorStore.prototype, 'flush').mockImplementation(function (this: VisitorStore, generation) {
    if (generation === failing) throw new Error('killed before the visitor records were written');
    return flush.call(this, generation);
  });
});
afterAll(() => vi.restoreAllMocks());

/** The outcome of loading the batches; the visitor records of the batches in `lost` are repaired. */
async function outcome(batches: WalEvent[][], lost: ReadonlySet<number> = new Set()) {
  const engine: Engine = await createDuckDbEngine({ path: ':memory:', threads: 1, memoryLimit: '256MB' });
  let seq = 0n;
  for (const [i, events] of batches.entries()) {
    failing = lost.has(i) ? i + 1 : -1;
    await engine.applyBatch({ records: onStream('a', events, seq + 1n) });
    seq += BigInt(events.length);
  }
  const of = async (v: string) =>
    (await engine.journey({ site: 'site1', visitor: v })).visits.map(
      (y) => `${y.started}/${y.pageviews}/${y.entry_page}/${y.exit_page}`,
    );
  const report = async (from: string, to: string) =>
    (
      await engine.report({
        site: 'site1',
        timeZone: 'UTC',
        params: parseReportParams({ from, to }, 'UTC', Date.parse('2026-03-10T00:00:00Z')),
      })
    ).kpis;
  const r = {
    P: await of('P'),
    X: await of('X'),
    C: await of('c1'),
    d1: await report('2026-03-02', '2026-03-02'),
    d2: await report('2026-03-03', '2026-03-03'),
    both: await report('2026-03-02', '2026-03-03'),
  };
  await engine.close();
  return r;
}

it('ends every random split of random nights as time order does', async () => {
  const fails: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const events = scenario();
    const expected = JSON.stringify(
      await outcome([[...events].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))]),
    );
    for (let k = 0; k < 3; k++) {
      const order = [...events].sort(() => rnd() - 0.5);
      const batches: WalEvent[][] = [[]];
      for (const e of order) {
        if (batches.at(-1)!.length > 0 && rnd() < 0.45) batches.push([]);
        batches.at(-1)!.push(e);
        if (rnd() < 0.15) batches.at(-1)!.push(e);
      }
      // and now and then a crash between a batch's commit and its visitor records'
      const lost = new Set(batches.flatMap((_, i) => (rnd() < 0.3 ? [i] : [])));
      const got = JSON.stringify(await outcome(batches, lost));
      if (got !== expected) {
        const show = (e: WalEvent) =>
          `${e.visitor}${e.carry ? '<P' : ''} ${e.kind} ${new Date(e.at).toISOString().slice(11, 19)} ${e.path}`;
        fails.push(
          `round ${round}\n batches: ${JSON.stringify(batches.map((b) => b.map(show)))} (records lost: ${[...lost]})\n got ${got}\n exp ${expected}`,
        );
        break;
      }
    }
  }
  expect(fails.slice(0, 3).join('\n\n')).toBe('');
}, 1_200_000);
