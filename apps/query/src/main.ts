import { readdirSync, unlinkSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  BACKUP_FILE,
  type BackupSources,
  copyWhole,
  pendingControlCopy,
  writeBeforeUpgradeBackup,
} from '@footfall/backup';
import { type Config, describeConfig } from '@footfall/config';
import {
  BeforeUpgradeError,
  type ControlDb,
  canonicalTimeZone,
  controlUpgradeFrom,
  createCipher,
  ensureSites,
  finishSiteDeletions,
  listSites,
  openControlDb,
} from '@footfall/control';
import { drainServer, flushLogSync, type Logger, listen } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { createAdaptorServer } from '@hono/node-server';
import { Alerts } from './alerts/alerts.ts';
import { openAnalytics, type ServerEngine } from './analytics.ts';
import { createQueryApp } from './app.ts';
import { PasswordChecks } from './auth/password-checks.ts';
import { Backups } from './backups.ts';
import { CardPool } from './cards/pool.ts';
import type { QueryDeps } from './deps.ts';
import { createClickHouseEngine } from './engine/clickhouse/engine.ts';
import { ExchangeRates } from './exchange-rates.ts';
import { exportAdminRoute } from './exports/site-export.ts';
import { importAdminRoute } from './imports/admin.ts';
import { Imports } from './imports/imports.ts';
import { PaymentsSync } from './payments-sync.ts';
import { ReadControl } from './read-control.ts';
import { Retention } from './retention.ts';
import { googleApi } from './search-console.ts';

/** A running query service. */
export interface QueryService {
  socketPath: string;
  /** stops serving, finishing work within the drain time */
  stop(): Promise<void>;
}

/**
 * The query service's one wiring point: builds its dependencies, serves `/api/v1` on the unix
 * socket in the data directory (the ingest gateway forwards to it), and stops cleanly.
 */
export async function startQueryService(
  config: Config,
  logger: Logger,
  options: { dashboardDir?: string } = {},
): Promise<QueryService> {
  const instance = prepareInstance(config);
  const version = footfallVersion();
  // An app.db from an older version is migrated only once everything as it was is backed up (the
  // gateway waits for it meanwhile): a backup that fails then leaves every file as it was.
  const controlFrom = controlUpgradeFrom(instance.paths.controlDb, version);
  // refuses a newer database: the service does not start
  const openControl = (copyBeforeUpgrade: boolean) =>
    openControlDb({
      path: instance.paths.controlDb,
      secret: instance.secret,
      version,
      log: logger,
      backupsDir: instance.paths.backups,
      copyBeforeUpgrade,
      ...(config.unsafe.migrationPauseMs > 0 && {
        migrationPause: { ms: config.unsafe.migrationPauseMs, before: () => flushLogSync(logger) },
      }),
    });
  let control: ControlDb | undefined = controlFrom === null ? openControl(true) : undefined;
  // Before an upgrade, a backup of everything as it was (docs/operations.md, Upgrading): written
  // before the analytics database migrates, or once it is open when only app.db is upgraded. A
  // copy of app.db alone that an earlier start or a command left (it migrated app.db without the
  // analytics database) is what the backup then holds as app.db.
  const beforeDir = join(instance.paths.backups, 'before-upgrade');
  const pendingControl = controlFrom === null ? pendingControlCopy(beforeDir) : null;
  let backedUp = false;
  const backupBeforeUpgrade = async (analytics: BackupSources['analytics']) => {
    try {
      const file = await writeBeforeUpgradeBackup({
        dir: beforeDir,
        paths: instance.paths,
        cipher: createCipher(instance.secret),
        secret: instance.secret,
        fromVersion: controlFrom ?? pendingControl?.fromVersion ?? version,
        settings: describeConfig(config),
        controlCopy: pendingControl?.path ?? null,
        control: control?.raw ?? instance.paths.controlDb,
        analytics,
      });
      backedUp = true;
      logger.info({ file }, 'everything backed up before the upgrade');
    } catch (e) {
      throw BeforeUpgradeError.copying('instance', beforeDir, e);
    }
  };
  const clickhouse = config.clickhouse;
  // the ClickHouse engine opens once its server answers; until then Health says why
  const serverEngine: ServerEngine | undefined = clickhouse && {
    open: (waiting, signal) =>
      createClickHouseEngine({
        target: { url: clickhouse.url, database: clickhouse.database },
        dir: join(instance.paths.root, 'clickhouse'),
        signal,
        onWaiting: (reason, attempt, delayMs) => {
          waiting(reason);
          logger.warn({ reason, attempt, retry_in_ms: delayMs }, 'ClickHouse cannot be reached yet');
        },
      }),
  };
  const opening = openAnalytics({
    walRoot: instance.paths.wal,
    quarantineDir: instance.paths.quarantine,
    engine: serverEngine ?? {
      path: instance.paths.analyticsDb,
      threads: config.engineThreads,
      memoryLimit: config.engineMemory,
      // like the control database's: a change it could not first back up is not made, and the
      // service does not start. The file is checkpointed and nothing writes to it meanwhile.
      beforeUpgrade: (fromSchema) =>
        backupBeforeUpgrade(async (target, during) => {
          await copyWhole(instance.paths.analyticsDb, target);
          await during(new Map());
          return { positions: new Map(), schema: fromSchema };
        }),
      migrations: {
        onMigration: ({ version, name }) =>
          logger.info({ schema: version, name }, 'migrating the analytics database'),
      },
      onVisitorStore: ({ rebuilt, repaired, seconds }) =>
        logger.info(
          { rebuilt, repaired, seconds: Math.round(seconds * 10) / 10 },
          rebuilt
            ? 'visitor store built from the analytics database'
            : 'visitor store repaired after a crash',
        ),
      onRollupError: (error) =>
        logger.warn(
          { err: error },
          'a day rollup could not be built; reports count those days from raw visits',
        ),
    },
    logger,
    newestBackup: () => newestBackup(instance.paths.backups),
    // in the zone reports ask in (routes/reports.ts)
    // (none until app.db is open: reports ask for their own days meanwhile)
    sites: () =>
      (control ? listSites(control) : []).map((site) => ({
        site: site.id,
        timeZone: canonicalTimeZone(site.timezone),
      })),
  });
  // a database it refuses (newer, or not copied before an upgrade) stops the start: let go of app.db
  const analytics = await opening.catch(async (error: unknown) => {
    await control?.close();
    throw error;
  });
  const upgrading = controlFrom !== null || pendingControl !== null;
  // (not while the analytics database cannot be read: app.db then migrates after its own sealed
  // copy, which a later start puts into the whole backup)
  if (upgrading && !backedUp && (analytics.engineState.ready || serverEngine)) {
    await backupBeforeUpgrade((target, during) => analytics.engine.snapshot(target, during)).catch(
      async (error: unknown) => {
        await analytics.engine.close();
        await control?.close();
        throw error;
      },
    );
  }
  if (control === undefined) {
    try {
      control = openControl(!backedUp);
    } catch (error) {
      await analytics.engine.close();
      throw error;
    }
  }
  // what a stop left half-imported is removed before any report reads
  const imports = new Imports({
    control,
    engine: analytics.engine,
    instance,
    logger,
    memoryLimit: config.engineMemory,
    google: googleApi(config.unsafe.googleApi),
  });
  imports.cleanUp();
  const deps: QueryDeps = {
    config,
    instance,
    logger,
    startedAt: Date.now(),
    now: Date.now,
    control,
    passwordChecks: new PasswordChecks({ now: Date.now, unlimited: config.unsafe.noRateLimit }),
    onSiteDeleted: async (siteId) => {
      await analytics.engine.deleteSite(siteId);
      analytics.cache.forgetSite(siteId);
    },
    analytics,
    reads: new ReadControl({ timeoutSeconds: config.queryTimeoutSeconds, logger }),
    dashboardDir: options.dashboardDir,
    exchangeRates: new ExchangeRates({
      dir: instance.paths.rates,
      baseUrl: config.ratesUrl,
      control,
      logger,
      now: Date.now,
    }),
    imports,
    backups: new Backups({
      config,
      instance,
      control,
      engine: analytics.engine,
      logger,
      now: Date.now,
      adminRoutes: {
        '/import': importAdminRoute(imports),
        '/export': exportAdminRoute(control, analytics.engine),
      },
    }),
    paymentsSync: new PaymentsSync({
      control,
      logger,
      now: Date.now,
      apis: config.unsafe.paymentApis,
    }),
  };
  deps.alerts = new Alerts(deps);
  deps.retention = new Retention({
    analytics,
    control,
    defaultDays: config.retentionDays,
    logger,
    now: Date.now,
  });
  deps.cards = new CardPool();
  const created = await ensureSites(control, config.sites);
  if (created.length > 0)
    logger.info({ sites: created.map((s) => s.domain) }, 'created sites from FOOTFALL_SITES');
  const finishing = finishSiteDeletions(control, deps.onSiteDeleted).catch((e: Error) =>
    logger.warn({ err: { message: e.message } }, 'analytics of deleted sites not removed yet'),
  );
  // an engine still waiting for its server finishes them once open; the service starts meanwhile
  if (analytics.engineState.ready) await finishing;
  const app = createQueryApp(deps);
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const socketPath = instance.paths.querySocket;
  await removeStaleSocket(socketPath);
  // tailing starts first, so Health's backlog is known from the first answer on (an engine
  // waiting for its server: once it is open)
  if (analytics.engineState.ready) await analytics.tailer.start();
  else {
    analytics.engineOpened.then(
      () => analytics.tailer.start(),
      (error: unknown) => {
        // a server it must never run on (too old, a newer schema): say so and stop, as a
        // refused start does
        logger.fatal({ err: { message: (error as Error).message } }, 'the analytics engine cannot open');
        process.exit(1);
      },
    );
  }
  await listen(server, { path: socketPath });
  await chmod(socketPath, 0o600);
  logger.info({ socket: socketPath }, 'query service listening');
  deps.exchangeRates?.start();
  deps.paymentsSync?.start();
  await deps.backups?.start();
  deps.alerts.start();
  deps.retention.start();
  return {
    socketPath,
    async stop() {
      analytics.live.closeAll();
      await drainServer(server, config.drainSeconds * 1000 - 500);
      await deps.exchangeRates?.stop();
      await deps.paymentsSync?.stop();
      await deps.backups?.stop();
      await deps.alerts?.stop();
      await deps.retention?.stop();
      await deps.cards?.close();
      await analytics.tailer.stop();
      await analytics.prep?.stop();
      await analytics.engine.close();
      await control.close();
      logger.info('query service stopped');
    },
  };
}

/** The newest daily or on-demand backup in `dir`, or null (names sort by time). */
function newestBackup(dir: string): string | null {
  try {
    const names = readdirSync(dir)
      .filter((name) => BACKUP_FILE.test(name))
      .sort();
    return names.length > 0 ? join(dir, names.at(-1)!) : null;
  } catch {
    return null;
  }
}

/** A socket file left by a crashed process is removed; one that a live process answers on is not. */
async function removeStaleSocket(path: string): Promise<void> {
  const live = await new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (live) throw new Error(`another query service is already serving ${path}`);
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
