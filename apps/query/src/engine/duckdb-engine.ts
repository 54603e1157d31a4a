import { constants, mkdtempSync, rmSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { VisitorStore } from '../visits/store.ts';
import { runAttribution, runGoalPayers } from './attribution.ts';
import { readCharts } from './charts-sql.ts';
import { buildBotCountersQuery, buildCrawlCountersQuery, type CrawlCounterQuery } from './counters-sql.ts';
import { type DuckDbOptions, openDuckDb, type ReadOptions } from './duckdb.ts';
import {
  applyWhole,
  type BatchWriter,
  type BotCounterRow,
  type CrawlCounterRow,
  type Engine,
  type ReadControl,
} from './engine.ts';
import { expireVisits } from './expire.ts';
import { readFunnel } from './funnels-sql.ts';
import { readGoalProperties, readGoals } from './goals-sql.ts';
import { readLifetime } from './lifetime.ts';
import {
  type BeforeCommit,
  inTransaction,
  Loader,
  type LoadingBatch,
  prepareWriter,
  readPositions,
} from './loader.ts';
import { MIGRATIONS, type MigrateHooks, migrate, SCHEMA_VERSION } from './migrations.ts';
import { readMoments } from './moments-sql.ts';
import {
  num,
  readHeatmap,
  readJourney,
  readLastSeen,
  readNow,
  readRecentEvents,
  readRetention,
  readStatus,
  readStorage,
  readWindowTotals,
  str,
} from './reads.ts';
import { runBreakdown, runDailyVisitors, runReport } from './report.ts';
import { createRollups, dropOtherZones, requestHistory } from './rollups.ts';
import { exportSite } from './site-export.ts';
import { readAssistants, readVitals } from './vitals.ts';
import { holdWriter } from './writer-hold.ts';

export interface DuckDbEngineOptions extends DuckDbOptions {
  /** the clock for right-now numbers (tests pin it) */
  now?: () => number;
  /** test seam: runs inside each batch's transaction right before COMMIT */
  beforeCommit?: BeforeCommit;
  /**
   * Runs before a migration changes an existing database, once the file is checkpointed and
   * nothing writes to it: the service copies it there (before-upgrade). Throwing stops the
   * migration with nothing changed.
   */
  beforeUpgrade?: (fromSchema: number) => Promise<void> | void;
  /** told when building a day rollup failed (reports then count those days from raw rows) */
  onRollupError?: (error: unknown) => void;
  /**
   * told when the visitor store (visits/store.ts) had to be built from the database (a first start
   * after the upgrade, a restored backup) or repaired after a crash, and how long it took
   */
  onVisitorStore?: (info: { rebuilt: boolean; repaired: number; seconds: number }) => void;
  /** told as each migration begins (migrations.ts) */
  migrations?: MigrateHooks;
}

/**
 * Opens `analytics.duckdb`, migrates it (refusing a newer schema) and returns the Engine.
 *
 * @example
 * const engine = await createDuckDbEngine({ path: 'data/analytics.duckdb', threads: 2, memoryLimit: '256MB' });
 * await engine.applyBatch({ records });
 * const report = await engine.report({ site, timeZone, params });
 */
const live = (q: ReadControl): ReadOptions => ({ signal: q.signal, lane: 'live' });

export async function createDuckDbEngine(options: DuckDbEngineOptions): Promise<Engine> {
  const db = await openDuckDb(options);
  try {
    const { beforeUpgrade } = options;
    await migrate(
      db.writer,
      MIGRATIONS,
      beforeUpgrade &&
        (async (from) => {
          await db.writer.run('CHECKPOINT');
          await beforeUpgrade(from);
        }),
      options.migrations,
    );
    await prepareWriter(db.writer);
  } catch (error) {
    db.close();
    throw error;
  }
  // the visitor store and the batch files live beside the database (in memory: a temp directory)
  const inMemory = options.path === ':memory:';
  const loadDir = inMemory ? mkdtempSync(join(tmpdir(), 'ff-load-')) : join(dirname(options.path), 'loading');
  const store = new VisitorStore(inMemory ? ':memory:' : join(dirname(options.path), 'visitors.db'));
  const loader = new Loader(db.writer, store, loadDir, options.beforeCommit);
  const now = options.now ?? Date.now;
  let generation = 0;
  // The writer connection runs one transaction at a time: writes queue behind each other.
  let writing: Promise<unknown> = Promise.resolve();
  // While the writer has work, no new period report starts (running ones finish): the tailer's
  // batches get the engine's memory and threads before more reports take them. Day rollup
  // builds do not hold reports back: they are what makes later reports cheap, and each is short.
  const write = <T>(work: () => Promise<T>, holdReports = true): Promise<T> => {
    const held = () => (holdReports ? db.whileWriting(work) : work());
    const run = writing.then(held, held);
    writing = run.catch(() => undefined);
    return run;
  };
  // the last prepare's reads: closing waits for them (what they queue then is not built)
  let preparing: Promise<unknown> = Promise.resolve();
  // rollup writes: queued on the writer like batches, without holding reports back
  const writeRollups = <T>(work: () => Promise<T>) => write(work, false);
  const rollups = createRollups({ db, write: writeRollups, now, onError: options.onRollupError });
  // The visitor store is checked (and built or repaired when it must be) before the first batch,
  // in the background on a connection of its own: reports and the writer's other work go on
  // meanwhile, batches wait for it.
  const openStore = async () => {
    const started = performance.now();
    const done = await db.withConnection((reader) => loader.open(reader, (work) => write(work, false)));
    if (done.rebuilt || done.repaired > 0) {
      options.onVisitorStore?.({ ...done, seconds: (performance.now() - started) / 1000 });
    }
  };
  let opened = openStore();
  opened.catch(() => undefined);
  // A site's status, read whole once: its first visit changes only when visits are deleted, and
  // its last activity only grows, so later reads look at the visits that ended since
  // (a deletion counts up `forgotten`: a read that began before it keeps nothing)
  const statuses = new Map<string, { firstVisit: number; lastSeen: number }>();
  let forgotten = 0;
  const forgetStatus = (site: string) => {
    statuses.delete(site);
    forgotten++;
  };
  const status = async (q: { site: string } & ReadControl) => {
    const began = forgotten;
    const known = statuses.get(q.site);
    if (known !== undefined) {
      const lastSeen = await readLastSeen(db, q.site, known.lastSeen, live(q));
      if (began === forgotten) known.lastSeen = Math.max(known.lastSeen, lastSeen);
      return { firstVisit: known.firstVisit, lastSeen };
    }
    const read = await readStatus(db, q.site, live(q));
    if (read.firstVisit !== null && read.lastSeen !== null && began === forgotten) {
      statuses.set(q.site, { firstVisit: read.firstVisit, lastSeen: read.lastSeen });
    }
    return read;
  };
  const deleteSite = async (site: string) => {
    await inTransaction(db.writer, async () => {
      for (const table of [
        'events',
        'sessions',
        'crawl_counters',
        'bot_counters',
        'day_rollup',
        'rollup_days',
        'visit_carries',
        'loader_touched',
      ]) {
        await db.writer.run(`DELETE FROM ${table} WHERE site = $1`, [site]);
      }
    });
    store.deleteSite(site);
    forgetStatus(site);
    generation++;
  };

  /**
   * A batch holds the writer from its first slice to its commit; reports are held back only while
   * it commits (the heavy part, in DuckDB), not while its slices are read and run through the
   * visit rules (JavaScript).
   */
  const beginBatch = async (): Promise<BatchWriter> => {
    // a store that could not be opened is tried again (the batch fails with its error)
    await opened.catch(() => {
      opened = openStore();
      return opened;
    });
    const { release, held } = await holdWriter((work) => write(work, false));
    let loading: LoadingBatch;
    try {
      loading = await loader.begin();
    } catch (error) {
      release();
      throw error;
    }
    let done = false;
    const end = async () => {
      done = true;
      release();
      await held;
    };
    return {
      add: (records) => loading.add(records),
      async commit() {
        try {
          const result = await db.whileWriting(() => loading.commit());
          if (result.committed) generation++;
          return result;
        } finally {
          await end();
        }
      },
      abort() {
        if (done) return;
        loading.abort();
        void end();
      },
    };
  };

  return {
    get generation() {
      return generation;
    },
    get rollupWork() {
      return rollups.work;
    },
    prepare(sites) {
      const run = (async () => {
        let queued = 0;
        for (const { site, timeZone } of sites) {
          await dropOtherZones(db, writeRollups, site, timeZone);
          queued += await requestHistory(db, rollups, site, timeZone);
        }
        return queued;
      })();
      preparing = run.catch(() => undefined);
      return run;
    },
    beginBatch,
    applyBatch: (batch) => applyWhole(beginBatch, batch),
    positions: () => write(() => readPositions(db.writer)),
    report: (q) => runReport(db, q.site, q.timeZone, q.params, { signal: q.signal }, rollups),
    breakdown: (q) => runBreakdown(db, q, { signal: q.signal }, rollups),
    dailyVisitors: (q) => runDailyVisitors(db, q, { signal: q.signal }, rollups),
    attribute: (q) => runAttribution(db, q, { signal: q.signal }),
    goalPayers: (q) => runGoalPayers(db, q, { signal: q.signal }),
    heatmap: (q) => readHeatmap(db, q, { signal: q.signal }),
    retention: (q) => readRetention(db, q, { signal: q.signal }),
    vitals: (q) => readVitals(db, q, { signal: q.signal }),
    assistants: (q) => readAssistants(db, q, { signal: q.signal }),
    goals: (q) => readGoals(db, q, { signal: q.signal }),
    funnel: (q) => readFunnel(db, q, { signal: q.signal }),
    goalProperties: (q) => readGoalProperties(db, q, { signal: q.signal }),
    now: (q) => readNow(db, q.site, now(), q.limit ?? 20, live(q)),
    recentEvents: (q) => readRecentEvents(db, q.site, q.limit, now(), live(q)),
    journey: (q) => readJourney(db, q.site, q.visitor, q.limit ?? 50, live(q)),
    status,
    storage: (q = {}) => readStorage(db, now(), live(q)),
    windowTotals: (q) => readWindowTotals(db, q, { signal: q.signal }),
    lifetime: (q) => readLifetime(db, q, { signal: q.signal }),
    charts: (q) => readCharts(db, q, { signal: q.signal }),
    moments: (q) => readMoments(db, q, { signal: q.signal }),
    async crawlCounters(q: CrawlCounterQuery) {
      return (await db.read(buildCrawlCountersQuery(q))).map((row) => {
        const out: CrawlCounterRow = { hits: num(row['hits']) };
        for (const key of ['day', 'robot', 'robotKind', 'path'] as const) {
          const value = str(row[key]);
          if (value !== null) out[key] = value;
        }
        if (row['status'] !== undefined) out.status = num(row['status']);
        return out;
      });
    },
    async botCounters(q) {
      return (await db.read(buildBotCountersQuery(q.site, q.from, q.to))).map(
        (row): BotCounterRow => ({
          day: str(row['day']) ?? '',
          kind: str(row['kind']) ?? '',
          hits: num(row['hits']),
        }),
      );
    },
    exportSite: (q) => db.withConnection((c) => exportSite(c, q)),
    deleteSite: (site) => write(() => deleteSite(site)),
    expire: async (q) => {
      await opened; // the store is opened by work on the writer: not awaited inside it
      return write(async () => {
        const expired = await expireVisits(db.writer, store, q.site, q.before);
        if (expired.visits + expired.events > 0) generation++;
        forgetStatus(q.site);
        return expired;
      });
    },
    snapshot: (target, during) =>
      write(async () => {
        await db.writer.run('CHECKPOINT');
        const positions = await readPositions(db.writer);
        await copyFile(options.path, target, constants.COPYFILE_FICLONE);
        await during(positions);
        return { schema: SCHEMA_VERSION, positions };
      }),
    close: async () => {
      rollups.close();
      await preparing;
      await opened.catch(() => undefined);
      await writing;
      store.close();
      db.close();
      if (inMemory) rmSync(loadDir, { recursive: true, force: true });
    },
  };
}
