import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, loadConfig } from '@footfall/config';
import { createLogger, type Logger } from '@footfall/http';
import { footfallVersion } from '@footfall/instance';
import { QUERY_NODE_FLAGS } from './node-flags.ts';
import { watchParent } from './parent.ts';

const BIN = fileURLToPath(new URL('../bin/footfall.mjs', import.meta.url));
/** The built dashboard, next to the built command (scripts/build.ts puts it there). */
const DASHBOARD = fileURLToPath(new URL('./dashboard/', import.meta.url));

const HELP = `footfall ${'<version>'}: self-hosted web analytics

Usage: footfall <command>

  start     run Footfall: the ingest gateway, and under it the query service (restarted if it stops)
  ingest    run only the ingest gateway (the front door on FOOTFALL_ADDR)
  query     run only the query service (reached through the gateway)
  config    print the effective configuration, secrets masked
  live      exit 0 when the ingest or query service on this machine is up (health checks)
  version   print the version
  admin     add-user, reset-password, disable-2fa, open-backup (see footfall admin help)
  backup    now, list, restore <file> [--key-file <key>] (see footfall backup help)
  payments  list connections, sync [site] [days], reprocess <site> (see footfall payments help)
  import    plausible|umami|ga4|footfall ... --site <id>: another tool's data (see footfall import help)
  export    --site <id> [--format parquet|ndjson]: every stored event and visit (see footfall export --help)
  mcp       the read-only MCP server over stdio: footfall mcp --url <address> --key <API key>
  geo       update <dir> [--kind country|city]: refresh a shared FOOTFALL_GEO_DIR
  engine    copy --to clickhouse: copy this installation's DuckDB data into ClickHouse

Every setting is an optional FOOTFALL_* environment variable: see docs/configuration.md.
`;

/** A running service: what `stop` drains. */
interface Service {
  stop(): Promise<void>;
}

/**
 * Entry point of the `footfall` command. Each command loads only what it runs (imports below are
 * dynamic): the gateway never loads DuckDB, and `footfall config` loads neither service.
 */
export async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...rest] = argv;
  if (command === 'version' || command === '--version') return void console.log(footfallVersion());
  if (command === 'help' || command === '--help' || command === '-h') {
    return void console.log(HELP.replace('<version>', footfallVersion()));
  }
  if (command === 'mcp') {
    // a client of a running Footfall: no configuration, no data directory, stdout for the protocol
    const { runMcpBridge } = await import('./mcp.ts');
    process.exitCode = await runMcpBridge(rest, process.env);
    return;
  }
  const config = readConfig();
  // every file any library creates in the data directory (SQLite, DuckDB, WAL) is ours alone
  process.umask(0o077);
  switch (command) {
    case 'config': {
      const { describeConfig } = await import('@footfall/config');
      console.log(describeConfig(config).join('\n'));
      return;
    }
    case 'start':
      return runStart(config);
    case 'live': {
      const { checkLive } = await import('./live.ts');
      process.exitCode = await checkLive(rest[0], config);
      return;
    }
    case 'admin': {
      const { runAdmin } = await import('./admin/admin.ts');
      process.exitCode = await runAdmin(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    }
    case 'payments': {
      const { runPayments } = await import('./payments/payments.ts');
      process.exitCode = await runPayments(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    }
    case 'backup': {
      const { runBackupCommand } = await import('./backup.ts');
      process.exitCode = await runBackupCommand(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    }
    case 'import': {
      const { runImport } = await import('./import.ts');
      let shown = 0;
      process.exitCode = await runImport(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        // on a terminal one line rewritten in place (cleared at the end); else a line every 2 s
        progress: (line) => {
          if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K`);
          else if (line !== '' && Date.now() - shown >= 2000) {
            shown = Date.now();
            process.stderr.write(`${line}\n`);
          }
        },
      });
      return;
    }
    case 'export': {
      const { runExport } = await import('./export.ts');
      process.exitCode = await runExport(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    }
    case 'geo': {
      const { runGeo } = await import('./geo.ts');
      process.exitCode = await runGeo(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    }
    case 'engine': {
      const { runEngine } = await import('./engine.ts');
      process.exitCode = await runEngine(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        // on a terminal one line rewritten in place; else a line every 10 %
        progress: (line, pct) => {
          if (process.stderr.isTTY) process.stderr.write(`\r${line}${pct === 100 ? '\n' : ''}`);
          else if (pct % 10 === 0) process.stderr.write(`${line}\n`);
        },
      });
      return;
    }
    case 'ingest':
      return runProcess('ingest', config, (logger, signal) => startGateway(config, logger, signal));
    case 'query':
      return runProcess('query', config, async (logger) => {
        const { startQueryService } = await import('@footfall/query');
        const service = await startQueryService(config, logger, { dashboardDir: DASHBOARD });
        // run alone (a container): it tells a person what to do next; under `footfall start`
        // the gateway process does
        if (!rest.includes('--no-setup-link')) await announce(config);
        return service;
      });
    default:
      console.error(
        `footfall: unknown command "${command}"\n\n${HELP.replace('<version>', footfallVersion())}`,
      );
      process.exit(2);
  }
}

function readConfig(): Config {
  try {
    return loadConfig(process.env, { defaultDataDir: './data' });
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`footfall: cannot start: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
}

async function startGateway(
  config: Config,
  logger: Logger,
  signal: AbortSignal,
): Promise<Service & { port: number }> {
  const { startIngestGateway } = await import('@footfall/ingest');
  return startIngestGateway(config, logger, { signal });
}

/** Prints the setup link while setup is not done, and each FOOTFALL_SITES site's script tag. */
async function announce(config: Config): Promise<void> {
  const { announceStart } = await import('./announce.ts');
  await announceStart(config);
}

/**
 * Runs one service until SIGTERM/SIGINT, then drains it and exits. Started by `footfall start`, it
 * also drains when that parent goes away, however it went.
 */
async function runProcess(
  name: string,
  config: Config,
  start: (logger: Logger, signal: AbortSignal) => Promise<Service>,
) {
  const logger = createLogger({ level: config.logLevel, name });
  await runUntilStopped(logger, async (signal) => [await start(logger, signal)]);
}

/**
 * Installs the handlers first (a signal that arrives while starting drains right after the start),
 * starts the services, and on SIGTERM, SIGINT, SIGHUP or the parent's death drains them all and exits.
 */
async function runUntilStopped(
  logger: Logger,
  start: (signal: AbortSignal) => Promise<Service[]>,
): Promise<void> {
  let services: Service[] | undefined;
  let signalled: string | undefined;
  // aborts a start that waits (the gateway, for an upgrade of app.db)
  const starting = new AbortController();
  const drain = (why: string) => {
    logger.info({ signal: why }, 'draining');
    void Promise.all(services!.map((s) => s.stop())).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const stop = (why: string) => {
    if (signalled) return; // already draining; a deadline is enforced by whoever started us
    signalled = why;
    if (services) drain(why);
    else starting.abort(new Error(`stopped while starting (${why})`));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // a closed terminal: drain too, rather than Node's default of exiting at once
  process.on('SIGHUP', () => stop('SIGHUP'));
  watchParent(() => stop('parent exited'));
  try {
    services = await start(starting.signal);
  } catch (e) {
    if (starting.signal.aborted) {
      logger.info({ signal: signalled }, 'stopped while starting');
      process.exit(0);
    }
    logger.fatal({ err: { message: (e as Error).message } }, 'could not start');
    process.exit(1);
  }
  if (signalled) drain(signalled);
}

/**
 * `footfall start`: this process is the ingest gateway, and it runs the query service as a child,
 * restarting it with backoff when it stops. Two processes, not three: a separate supervisor
 * process cost about 40 MiB of resident memory for a loop that waits (BENCHMARKS.md, Footprint).
 * The query service is started first, since it takes longest; the gateway answers 503 for it until
 * it listens. SIGTERM, SIGINT or the death of whatever started us drains both.
 */
async function runStart(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, name: 'ingest' });
  const supervisorLogger = createLogger({ level: config.logLevel, name: 'footfall' });
  const { prepareInstance } = await import('@footfall/instance');
  try {
    prepareInstance(config);
  } catch (e) {
    supervisorLogger.fatal({ err: { message: (e as Error).message } }, 'cannot prepare the data directory');
    process.exit(1);
  }
  supervisorLogger.info({ version: footfallVersion(), dataDir: config.dataDir }, 'starting');
  const { Supervisor } = await import('./supervisor.ts');
  await runUntilStopped(logger, async (signal) => {
    const query = new Supervisor({
      logger: supervisorLogger,
      drainMs: config.drainSeconds * 1000,
      children: [{ name: 'query', args: [...QUERY_NODE_FLAGS, BIN, 'query', '--no-setup-link'] }],
    });
    query.start();
    const children: Service = { stop: () => query.stop('SIGTERM') };
    try {
      const gateway = await startGateway(config, logger, signal);
      // the port it listens on: FOOTFALL_ADDR may name port 0 (any free one)
      await announce({ ...config, addr: { ...config.addr, port: gateway.port } });
      return [gateway, children];
    } catch (e) {
      await query.stop('SIGTERM');
      throw e;
    }
  });
}
