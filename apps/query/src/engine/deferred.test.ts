import { describe, expect, it } from 'vitest';
import { deferEngine, EngineUnavailableError } from './deferred.ts';
import { createDuckDbEngine } from './duckdb-engine.ts';
import type { Engine } from './engine.ts';
import { ev, onStream } from './test-fixtures.ts';

/** An opening the test finishes by hand, after reporting failures. */
function manualOpening() {
  let finish: (e: Engine) => void = () => {};
  let fail: (e: Error) => void = () => {};
  let report: (reason: string) => void = () => {};
  let signal: AbortSignal | undefined;
  const deferred = deferEngine((waiting, s) => {
    report = waiting;
    signal = s;
    return new Promise<Engine>((resolve, reject) => {
      finish = resolve;
      fail = reject;
      s.addEventListener('abort', () => reject(s.reason));
    });
  });
  return {
    deferred,
    finish: (e: Engine) => finish(e),
    fail: (e: Error) => fail(e),
    report: (r: string) => report(r),
    signal: () => signal,
  };
}

describe('an engine that opens later', () => {
  it('refuses reads saying why, holds the writer’s calls, and serves both once open', async () => {
    const { deferred, finish, report } = manualOpening();
    const { engine, state } = deferred;
    expect(state).toEqual({ ready: false, waiting: null, since: null });
    await expect(engine.status({ site: 'site1' })).rejects.toThrow(EngineUnavailableError);
    report('connect ECONNREFUSED 127.0.0.1:8123');
    expect(state.waiting).toBe('connect ECONNREFUSED 127.0.0.1:8123');
    await expect(engine.storage()).rejects.toThrow(/not available yet: connect ECONNREFUSED/);
    // a batch waits for the engine instead of failing
    const applied = engine.applyBatch({ records: onStream('a', [ev('2026-03-02T10:00:00Z')]) });
    const inner = await createDuckDbEngine({ path: ':memory:', threads: 1, memoryLimit: '128MB' });
    finish(inner);
    expect(await applied).toMatchObject({ events: 1, committed: true });
    expect(state).toEqual({ ready: true, waiting: null, since: null });
    expect(await engine.positions()).toEqual(new Map([['a', 1n]]));
    expect((await engine.status({ site: 'site1' })).firstVisit).toBe(Date.parse('2026-03-02T10:00:00Z'));
    await engine.close();
  });

  it('stops waiting when closed before it opened, and passes on a failure to open', async () => {
    const waiting = manualOpening();
    await waiting.deferred.engine.close();
    expect(waiting.signal()?.aborted).toBe(true);
    const failing = manualOpening();
    const pending = failing.deferred.engine.positions();
    failing.fail(new Error('ClickHouse 24.3 is too old: Footfall needs ClickHouse 25.8 or newer'));
    await expect(failing.deferred.opened).rejects.toThrow(/too old/);
    await expect(pending).rejects.toThrow(/too old/);
  });
});
