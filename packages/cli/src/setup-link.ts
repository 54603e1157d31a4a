import type { Config } from '@footfall/config';
import { type Instance, setupLink, setupToken } from '@footfall/instance';

/**
 * Prints the setup link while no owner exists yet (each start prints it again); prints nothing
 * once setup is done. The link carries a secret, so it goes to the terminal, not to the log.
 */
export function announceSetup(
  config: Config,
  instance: Instance,
  setupDone: boolean,
  out = process.stdout,
): void {
  const token = setupToken(config, instance.paths, setupDone);
  if (token === undefined) return;
  out.write(
    `\n  Footfall is running. Create the first owner account here (the link works until setup is done):\n\n    ${setupLink(config, token)}\n\n`,
  );
}
