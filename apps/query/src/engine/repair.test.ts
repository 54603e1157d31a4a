import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { WalEvent } from '@footfall/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VisitorStore } from '../visits/store.ts';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';

/**
 * A crash between a batch's commit and its visitor records' (loader.ts): the records are repaired
 * from the database before the next batch, and every later batch must give what it gives on the
 * records the crash lost. A failing `flush` stands for the crash here (the records are dropped
 * and repaired, as after a restart).
 */

const flush = VisitorStore.prototype.flush;
let engine: Engine | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await engine?.close();
  engine = undefined;
});

/**
 * Loads the batches; the visitor records of the batches in `lost` are never written, and with
 * `restart` the store is deleted before the last batch (a restored backup, a lost visitors.db).
 */
async function visits(batches: WalEvent[][], lost: ReadonlySet<number> = new Set(), restart = false) {
  const path = join(mkdtempSync(join(tmpdir(), 'ff-repair-')), 'analytics.duckdb');
  const open = () => createDuckDbEngine({ path, threads: 1, memoryLimit: '256MB' });
  engine = await open();
  let failing = -1;
  vi.spyOn(VisitorStore.prototype, 'flush').mockImplementation(function (this: VisitorStore, generation) {
    if (generation === failing) throw new Error('killed before the visitor records were written');
    return flush.call(this, generation);
  });
  let seq = 0n;
  for (const [i, events] of batches.entries()) {
    if (restart && i === batches.length - 1) {
      await engine.close();
      rmSync(join(dirname(path), 'visitors.db'));
      engine = await open();
    }
    // batch i commits as generation i + 1 (a repair before it writes the generation before)
    failing = lost.has(i) ? i + 1 : -1;
    await engine.applyBatch({ records: onStream('a', events, seq + 1n) });
    seq += BigInt(events.length);
  }
  const out = (await engine.journey({ site: 'site1', visitor: 'v1' })).visits.map(
    (v) => `${v.started} to ${v.ended}: ${v.pageviews} pageviews`,
  );
  await engine.close();
  engine = undefined;
  rmSync(dirname(path), { recursive: true, force: true });
  return out;
}

describe('visitor records repaired after a crash between the two commits', () => {
  it('keep an engagement event that joined no visit, so its late pageview joins it', async () => {
    const batches = [
      [ev('2026-03-02T10:00:00Z')],
      // the pageview of 12:05 comes late: its engagement event joins nothing yet
      [ev('2026-03-02T12:10:00Z', { kind: 'en', engagedMs: 300_000 })],
      [ev('2026-03-02T12:05:00Z')],
    ];
    const calm = await visits(batches);
    expect(calm).toEqual([
      '2026-03-02T12:05:00.000Z to 2026-03-02T12:10:00.000Z: 1 pageviews',
      '2026-03-02T10:00:00.000Z to 2026-03-02T10:00:00.000Z: 1 pageviews',
    ]);
    expect(await visits(batches, new Set([1]))).toEqual(calm);
  });

  it('keep a visitor whose only event joined no visit', async () => {
    const batches = [
      [ev('2026-03-02T12:10:00Z', { kind: 'en', engagedMs: 300_000 })],
      [ev('2026-03-02T13:00:00Z', { visitor: 'v2' })],
      [ev('2026-03-02T12:05:00Z')],
    ];
    const calm = await visits(batches);
    expect(calm).toEqual(['2026-03-02T12:05:00.000Z to 2026-03-02T12:10:00.000Z: 1 pageviews']);
    expect(await visits(batches, new Set([0]))).toEqual(calm);
    expect(await visits(batches, new Set([0, 1]))).toEqual(calm);
  });

  it('rebuilt from the database keep them too', async () => {
    const batches = [
      [
        ev('2026-03-02T12:10:00Z', { kind: 'en', engagedMs: 300_000 }),
        ev('2026-03-02T09:00:00Z', { visitor: 'v2' }),
      ],
      [ev('2026-03-02T12:05:00Z')],
    ];
    const calm = await visits(batches);
    expect(calm).toEqual(['2026-03-02T12:05:00.000Z to 2026-03-02T12:10:00.000Z: 1 pageviews']);
    expect(await visits(batches, new Set(), true)).toEqual(calm);
  });
});
