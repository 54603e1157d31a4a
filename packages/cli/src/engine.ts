import { join } from 'node:path';
import type { Config } from '@footfall/config';
import { dataPaths } from '@footfall/instance';
import { answers } from './live.ts';

interface Out {
  out(line: string): void;
  err(line: string): void;
  /** a step's progress line (each whole percent once): rewritten in place on a terminal */
  progress?(line: string, pct: number): void;
}

const USAGE = `usage: footfall engine copy --to clickhouse

Copies this installation's analytics data (FOOTFALL_DATA_DIR/analytics.duckdb and its visitor
store) into the ClickHouse database that FOOTFALL_CLICKHOUSE_URL and FOOTFALL_CLICKHOUSE_DATABASE
name, with FOOTFALL_ENGINE=clickhouse set as Footfall will then run. Stop Footfall first. A copy
cut short resumes where it was when run again; counts are compared at the end. Then start Footfall
with the same settings: it goes on from where DuckDB left the WAL. The DuckDB files are left as
they are (docs/operations.md, ClickHouse).`;

/**
 * `footfall engine copy --to clickhouse`. Exit 0 when the copy is complete (now or before), 1 when
 * it could not be made (the reason said), 2 for a usage error.
 */
export async function runEngine(args: readonly string[], config: Config, io: Out): Promise<number> {
  const [sub, ...rest] = args;
  const to = rest[0] === '--to' ? rest[1] : rest[0]?.startsWith('--to=') ? rest[0].slice(5) : undefined;
  if (sub !== 'copy' || to === undefined) {
    io.err(USAGE);
    return sub === 'help' || sub === '--help' ? 0 : 2;
  }
  if (to !== 'clickhouse') {
    io.err(`footfall engine copy: --to must be clickhouse (the only other engine), not "${to}"\n\n${USAGE}`);
    return 2;
  }
  if (config.clickhouse === undefined) {
    io.err(
      'footfall engine copy: set FOOTFALL_ENGINE=clickhouse and FOOTFALL_CLICKHOUSE_URL (and FOOTFALL_CLICKHOUSE_DATABASE if not footfall) as Footfall will run with them',
    );
    return 2;
  }
  if (await answers('query', config)) {
    io.err('footfall engine copy: the query service of this data directory is running: stop Footfall first');
    return 1;
  }
  const { copyToClickHouse, CopyError } = await import('@footfall/query');
  const paths = dataPaths(config.dataDir);
  let shown = '';
  try {
    const summary = await copyToClickHouse({
      duckdbPath: paths.analyticsDb,
      clickhouseDir: join(paths.root, 'clickhouse'),
      target: { url: config.clickhouse.url, database: config.clickhouse.database },
      threads: config.engineThreads,
      memoryLimit: config.engineMemory,
      onWaiting: (reason, _attempt, delayMs) =>
        io.err(
          `footfall engine copy: ClickHouse cannot be reached yet (${reason}); trying again in ${Math.round(delayMs / 1000)} s`,
        ),
      progress: ({ step, done, total }) => {
        const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
        const line = `${step.padEnd(8)} ${bar(pct)} ${String(pct).padStart(3)} %  ${done.toLocaleString('en')} / ${total.toLocaleString('en')} rows`;
        if (line === shown) return;
        shown = line;
        io.progress?.(line, pct);
      },
    });
    const c = summary.counts;
    const counted = `${c.events.toLocaleString('en')} events, ${c.sessions.toLocaleString('en')} visits, ${c.crawls.toLocaleString('en')} robot requests, ${c.streams} WAL streams`;
    io.out(
      summary.copied
        ? `footfall engine copy: copied ${counted} into ClickHouse database ${config.clickhouse.database}; the counts match. Start Footfall with FOOTFALL_ENGINE=clickhouse.`
        : `footfall engine copy: ClickHouse database ${config.clickhouse.database} already holds this copy (${counted}); nothing to do.`,
    );
    return 0;
  } catch (e) {
    if (e instanceof CopyError) {
      io.err(`footfall engine copy: ${e.message}`);
      return 1;
    }
    io.err(
      `footfall engine copy: stopped: ${e instanceof Error ? e.message : String(e)}. Run it again to resume.`,
    );
    return 1;
  }
}

const bar = (pct: number) => `[${'#'.repeat(Math.floor(pct / 5)).padEnd(20, '.')}]`;
