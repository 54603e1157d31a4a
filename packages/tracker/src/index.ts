export { buildTracker } from './build.ts';
export { type RenderTrackerOptions, renderTracker } from './render.ts';
export { PLACEHOLDERS, sizeOf, TRACKER_BUDGETS, TRACKER_VARIANTS, type TrackerVariant } from './variants.ts';
