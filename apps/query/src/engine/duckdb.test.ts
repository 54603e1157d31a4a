import { afterEach, describe, expect, it } from 'vitest';
import {
  type DuckDb,
  EngineBusyError,
  memoryBytes,
  openDuckDb,
  QueryAbortedError,
  reportConnections,
  retryOutOfMemory,
} from './duckdb.ts';

/** A statement that would run for minutes: only an interrupt ends it. */
const ENDLESS = { sql: 'SELECT count(*) AS n FROM range(100000000000)', params: [] };
const QUICK = { sql: 'SELECT 42 AS n', params: [] };

let db: DuckDb | undefined;
afterEach(() => db?.close());
const open = async (memoryLimit = '256MB') => {
  db = await openDuckDb({ path: ':memory:', threads: 2, memoryLimit });
  return db;
};

describe('reads under a signal', () => {
  it('interrupts a running statement when its signal aborts, and the connection serves the next read', async () => {
    const d = await open();
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(new Error('client gone')), 200);
    const error = await d.read(ENDLESS, { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryAbortedError);
    expect((error as QueryAbortedError).reason).toMatchObject({ message: 'client gone' });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await d.read(QUICK)).toEqual([{ n: 42 }]);
    expect(await d.read(QUICK)).toEqual([{ n: 42 }]);
  });

  it('stops at a time limit given as AbortSignal.timeout, with a TimeoutError as the reason', async () => {
    const d = await open();
    const error = await d.read(ENDLESS, { signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryAbortedError);
    expect((error as QueryAbortedError).reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('answers live reads while every report connection is busy', async () => {
    const d = await open();
    const controller = new AbortController();
    const heavy = [1, 2, 3].map(() => d.read(ENDLESS, { signal: controller.signal }).catch(() => 'stopped'));
    expect(await d.read(QUICK, { lane: 'live' })).toEqual([{ n: 42 }]);
    controller.abort();
    expect(await Promise.all(heavy)).toEqual(['stopped', 'stopped', 'stopped']);
  });

  it('takes a waiting read out of the queue when its signal aborts, and refuses reads past the queue bound', async () => {
    const d = await open();
    const running = new AbortController();
    const busy = [1, 2].map(() => d.read(ENDLESS, { signal: running.signal }).catch(() => 'stopped'));
    const leaving = new AbortController();
    const waiting = d.read(QUICK, { signal: leaving.signal }).catch((e: unknown) => e);
    leaving.abort();
    expect(await waiting).toBeInstanceOf(QueryAbortedError);
    const queued = Array.from({ length: 16 }, () => d.read(QUICK));
    await expect(d.read(QUICK)).rejects.toBeInstanceOf(EngineBusyError);
    running.abort();
    await Promise.all(busy);
    // the queued reads run once connections come back: the aborted one did not hold a place
    expect(await Promise.all(queued)).toHaveLength(16);
  });

  it('runs reports one at a time under a small memory cap, so live reads keep room', async () => {
    const d = await open('128MB');
    const running = new AbortController();
    const first = d.read(ENDLESS, { signal: running.signal }).catch(() => 'stopped');
    let secondDone = false;
    const second = d.read(QUICK).then((rows) => {
      secondDone = true;
      return rows;
    });
    expect(await d.read(QUICK, { lane: 'live' })).toEqual([{ n: 42 }]);
    await new Promise((r) => setTimeout(r, 200));
    expect(secondDone).toBe(false);
    running.abort();
    expect(await first).toBe('stopped');
    expect(await second).toEqual([{ n: 42 }]);
  });
});

describe('engine memory sizes', () => {
  it('reads DuckDB sizes in powers of 1000 and of 1024, and sizes the report lane by them', () => {
    expect(memoryBytes('256MB')).toBe(256e6);
    expect(memoryBytes('1GiB')).toBe(1024 ** 3);
    expect(memoryBytes('1.5GB')).toBe(1.5e9);
    expect(() => memoryBytes('lots')).toThrow(/size such as 256MB/);
    expect(reportConnections('128MB')).toBe(1);
    expect(reportConnections('256MB')).toBe(2);
    expect(reportConnections('4GB')).toBe(2);
  });
});

describe('live reads out of memory', () => {
  const outOfMemory = () =>
    new Error('Out of Memory Error: failed to allocate data of size 16.0 MiB (100.0 MiB/128.0 MiB used)');

  it('tries again after a pause while a report holds the memory, and answers once it is free', async () => {
    let attempts = 0;
    const read = async () => {
      attempts++;
      if (attempts < 3) throw outOfMemory();
      return 'rows';
    };
    const started = performance.now();
    expect(await retryOutOfMemory(read)).toBe('rows');
    expect(attempts).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('gives up with the engine error after its last pause, and at once on any other error', async () => {
    let attempts = 0;
    const always = async () => {
      attempts++;
      throw outOfMemory();
    };
    await expect(retryOutOfMemory(always)).rejects.toThrow(/^Out of Memory Error/);
    expect(attempts).toBe(6);
    attempts = 0;
    const broken = async () => {
      attempts++;
      throw new Error('Binder Error: no such column');
    };
    await expect(retryOutOfMemory(broken)).rejects.toThrow(/Binder/);
    expect(attempts).toBe(1);
  }, 10_000);

  it('takes the pauses it is given: a report tries twice more, not five times', async () => {
    let attempts = 0;
    const always = async () => {
      attempts++;
      throw outOfMemory();
    };
    await expect(retryOutOfMemory(always, undefined, [10, 20])).rejects.toThrow(/^Out of Memory Error/);
    expect(attempts).toBe(3);
  });

  it('stops waiting as soon as the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('client gone')), 50);
    const error = await retryOutOfMemory(async () => {
      throw outOfMemory();
    }, controller.signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryAbortedError);
  });
});
