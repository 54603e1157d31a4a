export { buildTracker, sizeOf, TRACKER_BUDGETS, TRACKER_VARIANTS, type TrackerVariant } from './build.ts';
export { type RenderTrackerOptions, renderTracker } from './render.ts';
