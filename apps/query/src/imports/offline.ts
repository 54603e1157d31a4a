import { join } from 'node:path';
import type { Config } from '@footfall/config';
import { type ControlDb, getSite, type ImportSource } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Instance } from '@footfall/instance';
import { createClickHouseEngine } from '../engine/clickhouse/engine.ts';
import { createDuckDbEngine } from '../engine/duckdb-engine.ts';
import type { Engine } from '../engine/engine.ts';
import { todayIn } from '../engine/report-params.ts';
import { googleApi } from '../search-console.ts';
import { type ImportProgress, type ImportSummary, runImport } from './run.ts';

/**
 * The configured engine, opened by a command while Footfall is stopped. One that needs an upgrade
 * is refused (start Footfall once first): a command never migrates the data behind its back.
 */
export async function openEngineOffline(config: Config, instance: Instance, verb: string): Promise<Engine> {
  const clickhouse = config.clickhouse;
  if (clickhouse) {
    return createClickHouseEngine({
      target: { url: clickhouse.url, database: clickhouse.database },
      dir: join(instance.paths.root, 'clickhouse'),
    });
  }
  return createDuckDbEngine({
    path: instance.paths.analyticsDb,
    threads: config.engineThreads,
    memoryLimit: config.engineMemory,
    beforeUpgrade: () => {
      throw new Error(`the analytics database needs an upgrade: start Footfall once, then ${verb}`);
    },
  });
}

/**
 * `footfall import` while Footfall is stopped: opens the configured engine only to read the site's
 * first day of native data (an engine that needs an upgrade is left alone: start Footfall once
 * first), closes it, then imports into app.db as the running service would.
 */
export async function importOffline(o: {
  config: Config;
  instance: Instance;
  control: ControlDb;
  source: ImportSource;
  website?: string | undefined;
  ga4?: { property: string; key: string; from: string; to: string } | undefined;
  siteId: string;
  path: string;
  name: string;
  through?: string | undefined;
  progress?: (p: ImportProgress) => void;
}): Promise<ImportSummary> {
  const site = getSite(o.control, o.siteId);
  if (site === undefined) throw new AppError('not_found', `no site ${o.siteId}`);
  const engine = await openEngineOffline(o.config, o.instance, 'import');
  let firstVisit: number | null;
  try {
    ({ firstVisit } = await engine.status({ site: site.id }));
  } finally {
    await engine.close();
  }
  return runImport(
    {
      source: o.source,
      website: o.website,
      ga4: o.ga4,
      path: o.path,
      name: o.name,
      personId: null,
      through: o.through,
      progress: o.progress,
    },
    {
      control: o.control,
      site,
      firstNativeDay: firstVisit === null ? null : todayIn(site.timezone, firstVisit),
      paths: o.instance.paths,
      memoryLimit: o.config.engineMemory,
      google: googleApi(o.config.unsafe.googleApi),
      now: Date.now(),
    },
  );
}
