import { describe, expect, it } from 'vitest';
import { unreadableReason } from '../analytics.ts';
import { guardDamage } from './damage.ts';
import { EngineUnavailableError } from './deferred.ts';
import type { Engine } from './engine.ts';

const DAMAGE = 'IO Error: Corrupt database file: computed checksum 1 does not match stored checksum 2';

/** An engine whose report meets a damaged block once `damaged` is set; it counts what it runs. */
function fakeEngine() {
  const ran: string[] = [];
  const o = { damaged: false };
  const writer = {
    async add() {
      ran.push('add');
    },
    async commit() {
      ran.push('commit');
      if (o.damaged) throw new Error(DAMAGE);
      return { events: 1 };
    },
    abort() {
      ran.push('abort');
    },
  };
  const engine = {
    generation: 7,
    async report() {
      ran.push('report');
      if (o.damaged) throw new Error(DAMAGE);
      return { kpis: {} };
    },
    async status() {
      ran.push('status');
      throw new Error('Binder Error: something else');
    },
    async beginBatch() {
      ran.push('beginBatch');
      return writer;
    },
    async close() {
      ran.push('close');
    },
  };
  return { engine: engine as unknown as Engine, ran, o };
}

describe('an engine whose file turns out damaged', () => {
  it('stops at the first damaged block: that call and every later one refused, the state says why', async () => {
    const { engine, ran, o } = fakeEngine();
    const told: string[] = [];
    const guarded = guardDamage(engine, {
      reason: (e) => `analytics.duckdb cannot be read (${(e as Error).message})`,
      onDamage: (reason) => told.push(reason),
    });
    const q = {} as Parameters<Engine['report']>[0];
    expect(await guarded.engine.report(q)).toEqual({ kpis: {} });
    expect(guarded.engine.generation).toBe(7);
    // another error is passed on as it is, and changes nothing
    await expect(guarded.engine.status({ site: 's' })).rejects.toThrow('Binder Error');
    expect(guarded.state.ready).toBe(true);

    o.damaged = true;
    await expect(guarded.engine.report(q)).rejects.toBeInstanceOf(EngineUnavailableError);
    expect(guarded.state).toMatchObject({
      ready: false,
      waiting: `analytics.duckdb cannot be read (${DAMAGE})`,
    });
    expect(told).toHaveLength(1);
    // nothing more reaches the file
    const before = ran.length;
    await expect(guarded.engine.report(q)).rejects.toThrow(/cannot be read/);
    await expect(guarded.engine.beginBatch()).rejects.toBeInstanceOf(EngineUnavailableError);
    expect(ran.length).toBe(before);
    await guarded.engine.close();
    expect(ran.at(-1)).toBe('close');
    expect(told).toHaveLength(1);
  });

  it('guards a batch: a commit that meets a damaged block stops the engine too', async () => {
    const { engine, o } = fakeEngine();
    const guarded = guardDamage(engine, { reason: () => 'damaged', onDamage: () => {} });
    const writer = await guarded.engine.beginBatch();
    await writer.add([]);
    o.damaged = true;
    await expect(writer.commit()).rejects.toBeInstanceOf(EngineUnavailableError);
    writer.abort(); // gives the writer back, whatever the state
    expect(guarded.state.ready).toBe(false);
    await expect(guarded.engine.beginBatch()).rejects.toBeInstanceOf(EngineUnavailableError);
  });
});

describe('why the database cannot be read', () => {
  it('names a damaged block, and leaves a lock held by another process or a full disk to stop the start', () => {
    const said = unreadableReason(
      new Error(`${DAMAGE} in block at location 1323008`),
      '/d/analytics.duckdb',
      '/d/b.ffbackup',
    );
    expect(said).toMatch(
      /^\/d\/analytics\.duckdb cannot be read \(Corrupt database file: .* in block at location 1323008\)/,
    );
    expect(said).toContain('footfall backup restore /d/b.ffbackup');
    const lock =
      'IO Error: Could not set lock on file "/d/analytics.duckdb": Conflicting lock is held in /usr/bin/node (PID 7)';
    expect(unreadableReason(new Error(lock), '/d/analytics.duckdb', null)).toBeNull();
    expect(
      unreadableReason(new Error('IO Error: No space left on device'), '/d/analytics.duckdb', null),
    ).toBeNull();
  });
});
