import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, describeConfig, loadConfig } from '@footfall/config';
import { createLogger, type Logger } from '@footfall/http';
import { footfallVersion, prepareInstance } from '@footfall/instance';
import { runAdmin } from './admin/admin.ts';
import { INGEST_NODE_FLAGS } from './node-flags.ts';
import { announceSetup } from './setup-link.ts';
import { isSetupDone } from './setup-state.ts';
import { Supervisor } from './supervisor.ts';

const BIN = fileURLToPath(new URL('../bin/footfall.mjs', import.meta.url));

const HELP = `footfall ${'<version>'}: self-hosted web analytics

Usage: footfall <command>

  start     run the ingest gateway and the query service, restarting a crashed one
  ingest    run only the ingest gateway (the front door on FOOTFALL_ADDR)
  query     run only the query service (reached through the gateway)
  config    print the effective configuration, secrets masked
  version   print the version
  admin     add-user, reset-password, disable-2fa, open-backup (see footfall admin help)

Every setting is an optional FOOTFALL_* environment variable: see docs/configuration.md.
`;

/** Entry point of the `footfall` command. */
export async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...rest] = argv;
  if (command === 'version' || command === '--version') return void console.log(footfallVersion());
  if (command === 'help' || command === '--help' || command === '-h') {
    return void console.log(HELP.replace('<version>', footfallVersion()));
  }
  const config = readConfig();
  // every file any library creates in the data directory (SQLite, DuckDB, WAL) is ours alone
  process.umask(0o077);
  switch (command) {
    case 'config':
      console.log(describeConfig(config).join('\n'));
      return;
    case 'start':
      return runSupervisor(config);
    case 'admin':
      process.exitCode = await runAdmin(rest, config, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
      return;
    // Each service is imported by its own command only: the gateway never loads DuckDB (about
    // 60 MB of resident memory) and the query service never loads the ingest pipeline.
    case 'ingest':
      return runProcess('ingest', config, async (logger) => {
        const { startIngestGateway } = await import('@footfall/ingest');
        return startIngestGateway(config, logger);
      });
    case 'query':
      return runProcess('query', config, async (logger) => {
        const { startQueryService } = await import('@footfall/query');
        const service = await startQueryService(config, logger);
        if (!rest.includes('--no-setup-link')) {
          const instance = prepareInstance(config);
          announceSetup(config, instance, isSetupDone(instance));
        }
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

/** Runs one service until SIGTERM/SIGINT, then drains it and exits. */
async function runProcess(
  name: string,
  config: Config,
  start: (logger: Logger) => Promise<{ stop(): Promise<void> }>,
): Promise<void> {
  const logger = createLogger({ level: config.logLevel, name });
  // handlers first: a signal that arrives while starting drains right after the start
  let service: { stop(): Promise<void> } | undefined;
  let signalled: NodeJS.Signals | undefined;
  const drain = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'draining');
    void service!.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return; // already draining; the supervisor or the platform enforces the deadline
    signalled = signal;
    if (service) drain(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    service = await start(logger);
  } catch (e) {
    logger.fatal({ err: { message: (e as Error).message } }, `${name} could not start`);
    process.exit(1);
  }
  if (signalled) drain(signalled);
}

async function runSupervisor(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel, name: 'footfall' });
  let instance: ReturnType<typeof prepareInstance>;
  try {
    instance = prepareInstance(config);
  } catch (e) {
    logger.fatal({ err: { message: (e as Error).message } }, 'cannot prepare the data directory');
    process.exit(1);
  }
  logger.info({ version: footfallVersion(), dataDir: config.dataDir }, 'starting');
  const supervisor = new Supervisor({
    logger,
    drainMs: config.drainSeconds * 1000,
    children: [
      { name: 'query', args: [BIN, 'query', '--no-setup-link'] },
      { name: 'ingest', args: [...INGEST_NODE_FLAGS, BIN, 'ingest'] },
    ],
  });
  supervisor.start();
  announceSetup(config, instance, isSetupDone(instance));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: draining children');
    void supervisor.stop('SIGTERM').then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
