import { join } from 'node:path';
import type { Config } from '@footfall/config';
import { type ControlDb, getSite } from '@footfall/control';
import { AppError } from '@footfall/http';
import type { Instance } from '@footfall/instance';
import { createClickHouseEngine } from '../engine/clickhouse/engine.ts';
import { createDuckDbEngine } from '../engine/duckdb-engine.ts';
import type { Engine } from '../engine/engine.ts';
import { todayIn } from '../engine/report-params.ts';
import { googleApi } from '../search-console.ts';
import { type ImportProgress, type ImportSummary, runImport } from './run.ts';

/**
 * `footfall import` while Footfall is stopped: opens the configured engine only to read the site's
 * first day of native data (an engine that needs an upgrade is left alone: start Footfall once
 * first), closes it, then imports into app.db as the running service would.
 */
export async function importOffline(o: {
  config: Config;
  instance: Instance;
  control: ControlDb;
  source: 'plausible' | 'umami' | 'ga4';
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
  const refuse = () => {
    throw new Error('the analytics database needs an upgrade: start Footfall once, then import');
  };
  const clickhouse = o.config.clickhouse;
  const engine: Engine = clickhouse
    ? await createClickHouseEngine({
        target: { url: clickhouse.url, database: clickhouse.database },
        dir: join(o.instance.paths.root, 'clickhouse'),
      })
    : await createDuckDbEngine({
        path: o.instance.paths.analyticsDb,
        threads: 1,
        memoryLimit: o.config.engineMemory,
        beforeUpgrade: refuse,
      });
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
