import type { ModuleName, Site } from '@footfall/control';
import { AppError } from '@footfall/http';

const NAMES: Record<ModuleName, string> = {
  notes: 'notes',
  goals: 'goals',
  funnels: 'funnels',
  revenue: 'revenue',
  retention: 'retention',
  vitals: 'vitals',
  crawlers: 'AI & search robots',
  milestones: 'milestones',
  shares: 'share links',
};

/**
 * Refuses a request into a module the site's owners switched off: 404, as for something that is
 * not there (spec, What the service does 7). What the module stored stays, and comes back with it.
 */
export function requireModule(site: Site, module: ModuleName): void {
  if (!site.modules[module]) {
    throw new AppError('not_found', `the ${NAMES[module]} module is off for this site`);
  }
}
