/**
 * Engaged time (the page visible and focused) and the deepest scroll of the current page.
 * `take()` returns what accumulated since the last call, so each `en` event carries an increment:
 * the server sums `e` over a page view and keeps the largest `d`.
 */
let engagedMs = 0;
let since = 0;
let depth = 0;

const html = document.documentElement;

/** Folds the running stretch into the total and starts a new one if the page is engaged now. */
export const tick = (): void => {
  const now = Date.now();
  if (since) engagedMs += now - since;
  since = !document.hidden && document.hasFocus() ? now : 0;
};

/** Records how far down the page the bottom of the viewport has been, in percent. */
export const measureScroll = (): void => {
  depth = Math.max(
    depth,
    Math.min(100, Math.round(((scrollY + innerHeight) / html.scrollHeight) * 100) || 0),
  );
};

/** Starts counting for a new page. */
export const resetEngagement = (): void => {
  engagedMs = depth = 0;
  measureScroll();
  tick();
};

/** Engaged ms since the previous call and the deepest scroll; undefined when nothing was engaged. */
export const takeEngagement = (): { e: number; d: number } | undefined => {
  tick();
  measureScroll();
  const e = Math.min(engagedMs, 864e5);
  engagedMs = 0;
  return e ? { e, d: depth } : undefined;
};
