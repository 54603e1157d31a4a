export { buildTracker } from './build.ts';
export { type ConsentBarOptions, type RenderTrackerOptions, renderTracker } from './render.ts';
export {
  buildOf,
  CONSENT_PLACEHOLDERS,
  MEASURED_CONSENT_BAR,
  measuredOptions,
  PLACEHOLDERS,
  sizeOf,
  TRACKER_BUDGETS,
  TRACKER_BUILDS,
  TRACKER_VARIANTS,
  type TrackerBuild,
  type TrackerVariant,
} from './variants.ts';
