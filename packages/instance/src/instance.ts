import { randomBytes } from 'node:crypto';
import { chmodSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, formatAddr } from '@footfall/config';
import { createOnce, ensurePrivateDir, FILE_MODE, readIfExists } from './files.ts';

/** Paths inside the data directory. One place names them all. */
export function dataPaths(dataDir: string) {
  return {
    root: dataDir,
    secretKey: join(dataDir, 'secret.key'),
    setupToken: join(dataDir, 'setup.token'),
    run: join(dataDir, 'run'),
    querySocket: join(dataDir, 'run', 'query.sock'),
    wal: join(dataDir, 'wal'),
    controlDb: join(dataDir, 'app.db'),
    analyticsDb: join(dataDir, 'analytics.duckdb'),
    geo: join(dataDir, 'geo'),
    /** the ECB's euro reference rates, for revenue in a site's currency */
    rates: join(dataDir, 'rates'),
    backups: join(dataDir, 'backups'),
    /** WAL records the tailer could not read, kept for a fixed version to load */
    quarantine: join(dataDir, 'quarantine'),
    /** uploaded exports while they are imported, removed after */
    imports: join(dataDir, 'imports'),
  };
}
export type DataPaths = ReturnType<typeof dataPaths>;

/** What every process knows about its instance after first boot. */
export interface Instance {
  paths: DataPaths;
  /** the instance key: FOOTFALL_SECRET, or the generated data/secret.key */
  secret: string;
  /** true while the key exists only as data/secret.key */
  keyOnVolume: boolean;
}

const newToken = () => randomBytes(32).toString('base64url');

/**
 * First boot, safe to run in every process and on every start: creates the data directory for the
 * service's user only (0700, files 0600) and the instance key when FOOTFALL_SECRET is unset.
 */
export function prepareInstance(config: Config): Instance {
  const paths = dataPaths(config.dataDir);
  ensurePrivateDir(paths.root);
  ensurePrivateDir(paths.run);
  ensurePrivateDir(paths.wal);
  let secret = config.secret;
  if (secret === undefined) {
    secret = (readIfExists(paths.secretKey) ?? createOnce(paths.secretKey, `${newToken()}\n`)).trim();
    if ((statSync(paths.secretKey).mode & 0o777) !== FILE_MODE) chmodSync(paths.secretKey, FILE_MODE);
    if (secret.length < 16) throw new Error(`${paths.secretKey} is damaged: it holds no usable key`);
  }
  return { paths, secret, keyOnVolume: config.secret === undefined };
}

/**
 * The setup token while setup is not done: FOOTFALL_SETUP_TOKEN, or one generated into
 * data/setup.token that stays the same across restarts. After setup it is undefined and the
 * generated file is removed, so the token opens nothing.
 */
export function setupToken(config: Config, paths: DataPaths, setupDone: boolean): string | undefined {
  if (setupDone) {
    unlinkIfExists(paths.setupToken);
    return undefined;
  }
  if (config.setupToken !== undefined) return config.setupToken;
  return (readIfExists(paths.setupToken) ?? createOnce(paths.setupToken, `${newToken()}\n`)).trim();
}

/** The public address for links: FOOTFALL_BASE_URL, else the listen address. */
export function publicBaseUrl(config: Config): string {
  if (config.baseUrl !== undefined) return config.baseUrl;
  const { host, port } = config.addr;
  const shown = host === undefined || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${formatAddr({ host: shown, port })}`.replace('http://:', 'http://localhost:');
}

/** The link printed at start until the first owner is created. */
export function setupLink(config: Config, token: string): string {
  return `${publicBaseUrl(config)}/setup?token=${encodeURIComponent(token)}`;
}

function unlinkIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
