import type { BatchWriter, Engine } from './engine.ts';

/**
 * An engine that may not be open yet: ClickHouse's server can be unreachable when the service
 * starts. The service starts anyway (the gateways keep writing the WAL, Health says why); until
 * the engine opens, the writer's calls (batches, positions, site deletions, snapshots) wait for it
 * and reads are refused at once with EngineUnavailableError. An engine that cannot be opened at
 * all (a server too old, a newer schema) rejects `opened`: the service stops with its message.
 */

/** A read asked while the engine is not open yet: `reason` says why (the server's last failure). */
export class EngineUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`the analytics engine is not available yet: ${reason}`);
    this.name = 'EngineUnavailableError';
  }
}

/** Where the opening stands, for Health. */
export interface EngineState {
  ready: boolean;
  /** why it is not open yet (the last failure), null once open or before the first failure */
  waiting: string | null;
  /** when the last failure happened, unix ms */
  since: number | null;
}

export interface DeferredEngine {
  engine: Engine;
  state: EngineState;
  /** resolves once open; rejects when the engine can never open */
  opened: Promise<Engine>;
}

/**
 * Wraps an engine being opened. `open` gets a callback to report each failed attempt with, and a
 * signal that stops it (the engine is closed before it opened).
 *
 * @example
 * const { engine, state, opened } = deferEngine((waiting, signal) =>
 *   createClickHouseEngine({ ...options, onWaiting: waiting, signal }),
 * );
 */
export function deferEngine(
  open: (waiting: (reason: string) => void, signal: AbortSignal) => Promise<Engine>,
): DeferredEngine {
  const state: EngineState = { ready: false, waiting: null, since: null };
  let inner: Engine | undefined;
  const stop = new AbortController();
  const opened = open((reason) => {
    state.waiting = reason;
    state.since = Date.now();
  }, stop.signal).then((engine) => {
    inner = engine;
    state.ready = true;
    state.waiting = null;
    state.since = null;
    return engine;
  });
  // a failure to open is the caller's to handle (through `opened`); calls waiting on it reject too
  opened.catch(() => {});
  const ready = (): Engine => {
    if (inner !== undefined) return inner;
    throw new EngineUnavailableError(state.waiting ?? 'it is still starting');
  };
  /** a read: refused while the engine is not open */
  const read =
    <A extends unknown[], R>(pick: (e: Engine) => (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const engine = ready();
      return pick(engine).apply(engine, args);
    };
  /** the writer's work: waits for the engine */
  const later =
    <A extends unknown[], R>(pick: (e: Engine) => (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const engine = await opened;
      return pick(engine).apply(engine, args);
    };
  const engine: Engine = {
    beginBatch: later((e) => e.beginBatch) as () => Promise<BatchWriter>,
    applyBatch: later((e) => e.applyBatch),
    positions: later((e) => e.positions),
    get generation() {
      return inner?.generation ?? 0;
    },
    get rollupWork() {
      return inner?.rollupWork ?? { queuedDays: 0, builtDays: 0, failedBuilds: 0 };
    },
    prepare: later((e) => e.prepare),
    report: read((e) => e.report),
    breakdown: read((e) => e.breakdown),
    dailyVisitors: read((e) => e.dailyVisitors),
    attribute: read((e) => e.attribute),
    goalPayers: read((e) => e.goalPayers),
    heatmap: read((e) => e.heatmap),
    retention: read((e) => e.retention),
    vitals: read((e) => e.vitals),
    goals: read((e) => e.goals),
    funnel: read((e) => e.funnel),
    goalProperties: read((e) => e.goalProperties),
    assistants: read((e) => e.assistants),
    now: read((e) => e.now),
    recentEvents: read((e) => e.recentEvents),
    journey: read((e) => e.journey),
    status: read((e) => e.status),
    windowTotals: read((e) => e.windowTotals),
    charts: read((e) => e.charts),
    moments: read((e) => e.moments),
    lifetime: read((e) => e.lifetime),
    storage: read((e) => e.storage),
    crawlCounters: read((e) => e.crawlCounters),
    botCounters: read((e) => e.botCounters),
    exportSite: later((e) => e.exportSite),
    deleteSite: later((e) => e.deleteSite),
    expire: later((e) => e.expire),
    snapshot: later((e) => e.snapshot),
    close: async () => {
      if (inner === undefined) {
        stop.abort(new Error('the service is stopping'));
        await opened.catch(() => {});
      }
      if (inner !== undefined) await inner.close();
    },
  };
  return { engine, state, opened };
}
