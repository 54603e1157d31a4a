import type { Config } from '@footfall/config';
import { type ControlDb, openControlDb } from '@footfall/control';
import { footfallVersion, prepareInstance } from '@footfall/instance';

/**
 * The control database of the configured data directory, as a command run on the server opens
 * it (migrations run, with their before-upgrade copy in data/backups). Also returns the instance.
 */
export function openConfiguredControl(config: Config): {
  ctl: ControlDb;
  instance: ReturnType<typeof prepareInstance>;
} {
  const instance = prepareInstance(config);
  const ctl = openControlDb({
    path: instance.paths.controlDb,
    secret: instance.secret,
    version: footfallVersion(),
    backupsDir: instance.paths.backups,
  });
  return { ctl, instance };
}
