import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { VisitorStore } from '../../visits/store.ts';
import type { ReadOptions } from '../duckdb.ts';
import { applyWhole, type BatchWriter, type Engine } from '../engine.ts';
import type { BatchResult } from '../loader.ts';
import { breakdownFrom, dailyVisitorsFrom, reportFrom } from '../report.ts';
import { holdWriter } from '../writer-hold.ts';
import { type ClickHouseTarget, clickhouseClient, waitForServer } from './connection.ts';
import {
  readBotCountersCh,
  readCrawlCountersCh,
  readFunnelCh,
  readGoalPropertiesCh,
  readGoalsCh,
  runAttributionCh,
  runGoalPayersCh,
} from './conversions.ts';
import { expireVisitsCh } from './expire.ts';
import {
  readJourneyCh,
  readLifetimeCh,
  readNowCh,
  readRecentEventsCh,
  readStatusCh,
  readStorageCh,
  readWindowTotalsCh,
} from './live.ts';
import { ClickHouseLoader, type LoadStep } from './loader.ts';
import { migrateClickHouse } from './migrations.ts';
import {
  readAssistantsCh,
  readChartsCh,
  readHeatmapCh,
  readMomentsCh,
  readRetentionCh,
  readVitalsCh,
} from './period-reads.ts';
import { clickhouseReportSource } from './reads.ts';
import { exportSiteCh } from './site-export.ts';

export interface ClickHouseEngineOptions {
  target: ClickHouseTarget;
  /** the engine's local directory: the visitor store and the loader's spool */
  dir: string;
  /** the clock for right-now numbers (tests pin it) */
  now?: () => number;
  /** told each time the server could not be reached yet, why, and when it is tried again */
  onWaiting?: (reason: string, attempt: number, delayMs: number) => void;
  /** stops waiting for the server */
  signal?: AbortSignal;
  /** test seam: the loader's steps (loader.ts) */
  step?: (step: LoadStep) => void;
}

/** The tables a site's data lives in (deleteSite). */
const SITE_TABLES = ['events', 'sessions', 'crawl_counters', 'bot_counters', 'visit_carries'] as const;

/**
 * The Engine on ClickHouse (README.md in this folder): waits for the server (with backoff, saying
 * why), refuses one too old, migrates the database, resumes the loader (a batch cut short is sent
 * again), then loads batches one at a time and answers reads. A read never starts while a batch's
 * inserts are being sent, so no read sees half a batch (each SELECT reads the parts that existed
 * when it began).
 *
 * @example
 * const engine = await createClickHouseEngine({
 *   target: { url: 'http://default:@127.0.0.1:8123', database: 'footfall' },
 *   dir: 'data/clickhouse',
 * });
 */
export async function createClickHouseEngine(o: ClickHouseEngineOptions): Promise<Engine> {
  const server = clickhouseClient(o.target, { server: true });
  let client: ClickHouseClient | undefined;
  let store: VisitorStore | undefined;
  try {
    await waitForServer(server, {
      ...(o.onWaiting && { onWaiting: o.onWaiting }),
      ...(o.signal && { signal: o.signal }),
    });
    await migrateClickHouse(server, o.target.database);
    client = clickhouseClient(o.target);
    mkdirSync(o.dir, { recursive: true, mode: 0o700 });
    store = new VisitorStore(join(o.dir, 'visitors.db'));
    const gate = new SendGate();
    const loader = new ClickHouseLoader({
      client,
      store,
      dir: join(o.dir, 'loading'),
      sending: (busy) => gate.set(busy),
      ...(o.step && { step: o.step }),
    });
    await loader.open();
    return clickhouseEngine(client, server, store, loader, gate, o.now ?? Date.now);
  } catch (error) {
    store?.close();
    await client?.close();
    await server.close();
    throw error;
  }
}

/** Reads wait while a batch's inserts are being sent: `idle` resolves once none is. */
class SendGate {
  idle: Promise<void> = Promise.resolve();
  #open: (() => void) | undefined;

  set(busy: boolean): void {
    if (busy && this.#open === undefined) {
      this.idle = new Promise((resolve) => {
        this.#open = resolve;
      });
    } else if (!busy && this.#open !== undefined) {
      this.#open();
      this.#open = undefined;
    }
  }
}

function clickhouseEngine(
  client: ClickHouseClient,
  server: ClickHouseClient,
  store: VisitorStore,
  loader: ClickHouseLoader,
  gate: SendGate,
  now: () => number,
): Engine {
  let generation = 0;
  // the writer: one batch (or site deletion) at a time, in order
  let writer: Promise<unknown> = Promise.resolve();
  const write = <T>(work: () => Promise<T>): Promise<T> => {
    const run = writer.then(work, work);
    writer = run.catch(() => {});
    return run;
  };
  const read = async <T>(work: () => Promise<T>): Promise<T> => {
    await gate.idle;
    return work();
  };
  const options = (q: { signal?: AbortSignal | undefined }): ReadOptions => ({ signal: q.signal });
  const source = clickhouseReportSource(client);

  const beginBatch = async (): Promise<BatchWriter> => {
    const { release } = await holdWriter(write);
    let batch: Awaited<ReturnType<ClickHouseLoader['begin']>>;
    try {
      batch = await loader.begin();
    } catch (error) {
      release();
      throw error;
    }
    return {
      add: (records) => batch.add(records),
      commit: async (): Promise<BatchResult> => {
        try {
          const result = await batch.commit();
          if (result.committed) generation++;
          return result;
        } finally {
          release();
        }
      },
      abort: () => {
        batch.abort();
        release();
      },
    };
  };

  return {
    beginBatch,
    applyBatch: (batch) => applyWhole(beginBatch, batch),
    positions: () => write(() => loader.positions()),
    get generation() {
      return generation;
    },
    rollupWork: { queuedDays: 0, builtDays: 0, failedBuilds: 0 },
    prepare: async () => 0,
    report: (q) => read(() => reportFrom(source, q.site, q.timeZone, q.params, options(q))),
    breakdown: (q) => read(() => breakdownFrom(source, q, options(q))),
    dailyVisitors: (q) => read(() => dailyVisitorsFrom(source, q, options(q))),
    attribute: (q) => read(() => runAttributionCh(client, q, options(q))),
    goalPayers: (q) => read(() => runGoalPayersCh(client, q, options(q))),
    heatmap: (q) => read(() => readHeatmapCh(client, q, options(q))),
    retention: (q) => read(() => readRetentionCh(client, q, options(q))),
    vitals: (q) => read(() => readVitalsCh(client, q, options(q))),
    assistants: (q) => read(() => readAssistantsCh(client, q, options(q))),
    goals: (q) => read(() => readGoalsCh(client, q, options(q))),
    funnel: (q) => read(() => readFunnelCh(client, q, options(q))),
    goalProperties: (q) => read(() => readGoalPropertiesCh(client, q, options(q))),
    now: (q) => read(() => readNowCh(client, q.site, now(), q.limit ?? 20, options(q))),
    recentEvents: (q) => read(() => readRecentEventsCh(client, q.site, q.limit, now(), options(q))),
    journey: (q) => read(() => readJourneyCh(client, q.site, q.visitor, q.limit ?? 50, options(q))),
    status: (q) => read(() => readStatusCh(client, q.site, options(q))),
    storage: (q = {}) => read(() => readStorageCh(client, now(), options(q))),
    windowTotals: (q) => read(() => readWindowTotalsCh(client, q, options(q))),
    lifetime: (q) => read(() => readLifetimeCh(client, q, options(q))),
    charts: (q) => read(() => readChartsCh(client, q, options(q))),
    moments: (q) => read(() => readMomentsCh(client, q, options(q))),
    crawlCounters: (q) => read(() => readCrawlCountersCh(client, q, {})),
    botCounters: (q) => read(() => readBotCountersCh(client, q, {})),
    exportSite: (q) => read(() => exportSiteCh(client, q)),
    deleteSite: (site) =>
      write(async () => {
        for (const table of SITE_TABLES) {
          await client.command({
            query: `ALTER TABLE ${table} DELETE WHERE site = {site:String}`,
            query_params: { site },
            clickhouse_settings: { mutations_sync: '2' },
          });
        }
        store.deleteSite(site);
      }),
    expire: (q) =>
      write(async () => {
        const expired = await expireVisitsCh(client, store, q.site, q.before);
        if (expired.visits + expired.events > 0) generation++;
        return expired;
      }),
    // the data is the server's: a backup holds the log it has not applied yet, nothing more
    // (docs/operations.md, "ClickHouse": its own BACKUP keeps the rest)
    snapshot: (_target, during) =>
      write(async () => {
        const positions = await loader.positions();
        await during(positions);
        return { schema: null, positions };
      }),
    close: async () => {
      await write(async () => {});
      store.close();
      await client.close();
      await server.close();
    },
  };
}
