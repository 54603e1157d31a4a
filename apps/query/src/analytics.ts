import { join } from 'node:path';
import type { Logger } from '@footfall/http';
import { guardDamage } from './engine/damage.ts';
import { type DeferredEngine, deferEngine, type EngineState } from './engine/deferred.ts';
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
  /** the newest backup, named in the message when the database cannot be read */
  newestBackup?: () => string | null;
}): Promise<Analytics> {
  let opening: DeferredEngine | Engine;
  /** DuckDB's file found damaged inside after it opened (engine/damage.ts) */
  let damage: EngineState | undefined;
  if ('open' in options.engine) opening = deferEngine(options.engine.open);
  else {
    const { path } = options.engine;
    try {
      const guarded = guardDamage(await createDuckDbEngine(options.engine), {
        reason: (error) =>
          unreadableReason(error, path, options.newestBackup?.() ?? null) ??
          `${path} is damaged: ${error instanceof Error ? error.message : String(error)}`,
        onDamage: (reason) => options.logger.error({ file: path }, reason),
      });
      opening = guarded.engine;
      damage = guarded.state;
    } catch (error) {
      const reason = unreadableReason(error, path, options.newestBackup?.() ?? null);
      if (reason === null) throw error;
      // damaged: the service answers (Health says why), nothing touches the file, events wait
      options.logger.error({ file: path }, reason);
      opening = deferEngine((waiting, signal) => {
        waiting(reason);
        return new Promise<Engine>((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      });
    }
  }
  const deferred = 'opened' in opening ? opening : undefined;
  const engine: Engine = deferred ? deferred.engine : (opening as Engine);
  const engineState: EngineState = deferred?.state ?? damage ?? { ready: true, waiting: null, since: null };
  const engineOpened: Promise<unknown> = deferred?.opened ?? Promise.resolve();
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

/**
 * Why the analytics database cannot be opened, when DuckDB says it cannot read the file (cut
 * short, overwritten, not a database): a sentence naming the file and how to restore, for Health
 * and the log. Null for every other failure (another process holds the file, the disk is full, a
 * newer schema, a backup before an upgrade that failed): those stop the start as before.
 */
export function unreadableReason(error: unknown, path: string, newestBackup: string | null): string | null {
  const message = error instanceof Error ? error.message : String(error);
  if (!/^(IO|Serialization|Corruption) Error: /.test(message)) return null;
  // (a damaged block's message says "in block at location", which is no lock)
  if (
    /Could not set lock|Conflicting lock|No space left|Permission denied|Read-only file system/i.test(message)
  )
    return null;
  const detail = message
    .replace(/^\w+ Error: /, '')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
  const backup = newestBackup ?? '<a backup file>';
  return (
    `${path} cannot be read (${detail}). Nothing was changed, and new events wait in the write-ahead ` +
    `log. Stop Footfall, move the data directory aside, and restore the newest backup into an empty ` +
    `one: FOOTFALL_DATA_DIR=<empty directory> footfall backup restore ${backup} --key-file <old data>/secret.key ` +
    '(docs/backups.md, "Restore"); then copy the old wal/ over so those events are loaded too.'
  );
}
