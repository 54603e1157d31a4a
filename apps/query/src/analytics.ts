import { join } from 'node:path';
import type { Logger } from '@footfall/http';
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
}

/**
 * Opens the analytics engine (the only opener of analytics.duckdb) and builds the tailer that
 * feeds it, the report cache and the live hub that each committed batch updates. The tailer is
 * not started here: main.ts starts it once the service is ready.
 */
export async function openAnalytics(options: {
  walRoot: string;
  /** where unreadable WAL records are kept (data/quarantine) */
  quarantineDir?: string;
  engine: DuckDbEngineOptions;
  logger: Logger;
  idleMs?: number;
  /** the sites reports are asked for, and their zones: the engine prepares them ahead */
  sites?: () => readonly PrepSite[];
}): Promise<Analytics> {
  const engine = await createDuckDbEngine(options.engine);
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
  return { engine, tailer, cache, live, prep };
}
