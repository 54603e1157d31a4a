import type { Config } from '@footfall/config';

interface Out {
  out(line: string): void;
  err(line: string): void;
}

const USAGE = `usage: footfall geo update <dir> [--kind country|city]

Downloads this month's DB-IP Lite database into <dir> (a shared FOOTFALL_GEO_DIR that instances
read and never download into), with the downloader the gateway uses. --kind defaults to
FOOTFALL_GEO (country when geo is off). Without network it says so and leaves <dir> as it was.`;

/**
 * `footfall geo update <dir>`: refreshes a shared geo directory. Exit 0 when the directory holds
 * the newest database (downloaded now or already there), 1 when it could not be updated (the
 * reason said; whatever was there stays), 2 for a usage error.
 */
export async function runGeo(args: readonly string[], config: Config, io: Out): Promise<number> {
  const [sub, dir, ...rest] = args;
  if (sub !== 'update' || !dir || dir.startsWith('--')) {
    io.err(USAGE);
    return sub === 'help' || sub === '--help' ? 0 : 2;
  }
  const at = rest.indexOf('--kind');
  const kindArg = at >= 0 ? rest[at + 1] : rest.find((a) => a.startsWith('--kind='))?.slice('--kind='.length);
  const kind = kindArg ?? (config.geo === 'city' ? 'city' : 'country');
  if (kind !== 'country' && kind !== 'city') {
    io.err(`footfall geo: --kind must be country or city, not "${kind}"\n\n${USAGE}`);
    return 2;
  }
  const { updateGeoDatabase } = await import('@footfall/ingest');
  const { resolve } = await import('node:path');
  const target = resolve(dir);
  const outcome = await updateGeoDatabase({
    dir: target,
    kind,
    ...(config.unsafe.geoUrl === undefined ? {} : { baseUrl: config.unsafe.geoUrl }),
  });
  if (outcome.ok) {
    // the instances that share the directory run as other users: they must be able to read it
    // (footfall runs with umask 077, and the downloader makes private files)
    const { chmod } = await import('node:fs/promises');
    await chmod(target, 0o755);
    await chmod(outcome.file, 0o644);
    io.out(
      outcome.status === 'downloaded'
        ? `footfall geo: the DB-IP Lite ${kind} database of ${outcome.month} is now in ${outcome.file}`
        : `footfall geo: ${outcome.file} is already the newest (${outcome.month}); nothing downloaded`,
    );
    return 0;
  }
  io.err(
    `footfall geo: could not update the ${kind} database: ${outcome.reason}. ${target} is left as it was.`,
  );
  return 1;
}
