import { join } from 'node:path';
import type { Logger } from '@footfall/http';
import { deferEngine, type EngineState } from './engine/deferred.ts';
import { createDuckDbEngine, type DuckDbEngineOptions, type Engine } from './engine/index.ts';
import { LiveHub } from './live.ts';
import { ReportCache } from './report-cache.ts';
import { type PrepSite, ReportPrep } from './report-prep.ts';
import { Tailer } from './tailer.ts';

/** The analytics side of the query service: engine, tailer, report cache, live hub. */
export interface Analytics {
  engine: Engine;
  tailer: Tailer;
  cache: ReportCache;
  live: LiveHub;
  /** tells the engine which sites to prepare reports of, once the tailer has caught up */
  prep: ReportPrep | undefined;
  /** whether the engine is open, and if not why (an engine on a server may open later) */
  engineState: EngineState;
  /** resolves once the engine is open; rejects when it can never open (the service stops) */
  engineOpened: Promise<unknown>;
}

/**
 * An engine on a server of its own (ClickHouse): opened in the background, told each failed
 * attempt's reason, stopped by the signal (engine/deferred.ts).
 */
export interface ServerEngine {
  open(waiting: (reason: string) => void, signal: AbortSignal): Promise<Engine>;
}

/**
 * Opens the analytics engine (the only opener of analytics.duckdb; an engine on a server opens in
 * the background while the service starts) and builds the tailer that
 * feeds it, the report cache and the live hub that each committed batch updates. The tailer is
 * not started here: main.ts starts it once the service is ready.
 */
export async function openAnalytics(options: {
  walRoot: string;
  /** where unreadable WAL records are kept (data/quarantine) */
  quarantineDir?: string;
  engine: DuckDbEngineOptions | ServerEngine;
  logger: Logger;
  idleMs?: number;
  /** the sites reports are asked for, and their zones: the engine prepares them ahead */
  sites?: () => readonly PrepSite[];
}): Promise<Analytics> {
  let engine: Engine;
  let engineState: EngineState = { ready: true, waiting: null, since: null };
  let engineOpened: Promise<unknown> = Promise.resolve();
  if ('open' in options.engine) {
    const deferred = deferEngine(options.engine.open);
    ({ engine, state: engineState, opened: engineOpened } = deferred);
  } else engine = await createDuckDbEngine(options.engine);
  const cache = new ReportCache();
  const live = new LiveHub();
  const { sites } = options;
  const prep = sites && new ReportPrep({ engine, sites, logger: options.logger });
  const tailer = new Tailer({
    walRoot: options.walRoot,
    quarantineDir: options.quarantineDir ?? join(options.walRoot, '..', 'quarantine'),
    target: engine,
    logger: options.logger,
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    keep: ({ record }) => record.t === 'event' && live.watching(record.site),
    onApplied: ({ records, spans }) => {
      cache.noteBatch(spans);
      live.publish(records);
    },
    ...(prep && { onCaughtUp: () => prep.caughtUp() }),
  });
  return { engine, tailer, cache, live, prep, engineState, engineOpened };
}
