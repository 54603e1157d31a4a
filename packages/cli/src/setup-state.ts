import { isSetupDoneAt } from '@footfall/control';
import type { Instance } from '@footfall/instance';

/**
 * Whether the first owner exists in the control database. Read without migrating or creating
 * anything: the supervisor asks before the services have opened the database.
 */
export function isSetupDone(instance: Instance): boolean {
  return isSetupDoneAt(instance.paths.controlDb);
}
