export { buildAddon, buildTracker } from './build.ts';
export { type ConsentBarOptions, type RenderTrackerOptions, renderTracker } from './render.ts';
export {
  ADDON_BUDGETS,
  buildOf,
  CONSENT_PLACEHOLDERS,
  MEASURED_CONSENT_BAR,
  measuredOptions,
  PLACEHOLDERS,
  sizeOf,
  TAG_ADDONS,
  TRACKER_ADDONS,
  TRACKER_BUDGETS,
  TRACKER_BUILDS,
  TRACKER_VARIANTS,
  type TrackerAddon,
  type TrackerBuild,
  type TrackerVariant,
} from './variants.ts';
