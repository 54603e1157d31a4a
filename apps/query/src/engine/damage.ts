import { type EngineState, EngineUnavailableError } from './deferred.ts';
import type { BatchWriter, Engine } from './engine.ts';

/**
 * DuckDB checks a block of its file only when it reads it: a file damaged inside (a bad disk, a
 * copy overwritten in part) opens, and says "Corrupt database file" at the first read of a
 * damaged block, maybe days later. `guardDamage` stops the engine at that moment as a file that
 * cannot be opened is stopped at start (analytics.ts): the state goes not ready with `reason`'s
 * sentence (Health, the log), and every call after it (reads, batches) is refused with
 * EngineUnavailableError, so nothing more is written to the file and events wait in the
 * write-ahead log. The call that met the damage is refused the same way.
 */

/** Whether an error is DuckDB finding a damaged block. */
export const isDamage = (error: unknown): boolean =>
  /Corrupt database file/i.test(error instanceof Error ? error.message : String(error));

export function guardDamage(
  engine: Engine,
  o: { reason: (error: unknown) => string; onDamage: (reason: string) => void },
): { engine: Engine; state: EngineState } {
  const state: EngineState = { ready: true, waiting: null, since: null };
  const refused = () => new EngineUnavailableError(state.waiting ?? 'the database file is damaged');
  const met = (error: unknown): unknown => {
    if (!isDamage(error)) return error;
    if (state.ready) {
      state.ready = false;
      state.waiting = o.reason(error);
      state.since = Date.now();
      o.onDamage(state.waiting);
    }
    return refused();
  };
  const guard = <T extends object>(target: T, skip: ReadonlySet<PropertyKey>): T =>
    new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t) as unknown;
        if (typeof value !== 'function' || skip.has(prop)) return value;
        return (...args: unknown[]) => {
          if (!state.ready) return Promise.reject(refused());
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(t, args);
          } catch (error) {
            throw met(error);
          }
          if (!(result instanceof Promise)) return result;
          return result.then(
            // a batch's writer is guarded too: its commit writes
            (v: unknown) => (prop === 'beginBatch' ? guard(v as BatchWriter, SYNC_WRITER) : v),
            (error: unknown) => {
              throw met(error);
            },
          );
        };
      },
    });
  return { engine: guard(engine, SYNC_ENGINE), state };
}

/** What always runs: closing (the service stops), and a writer's abort (it gives the writer back). */
const SYNC_ENGINE: ReadonlySet<PropertyKey> = new Set(['close']);
const SYNC_WRITER: ReadonlySet<PropertyKey> = new Set(['abort']);
