/**
 * Core Web Vitals of the page load, gathered with PerformanceObserver (the opt-in `vitals` variant).
 * LCP: the last largest-contentful-paint; FCP; TTFB: the navigation's responseStart; CLS: the
 * largest session window (shifts less than 1 s apart, at most 5 s long); INP: the longest
 * interaction, which equals the 98th percentile for pages with fewer than 50 interactions.
 */
type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean };
type Interaction = PerformanceEntry & { interactionId?: number };

const metrics: Record<string, number> = {};
let windowValue = 0;
let windowStart = 0;
let lastShift = 0;

const observe = (type: string, each: (entry: PerformanceEntry) => void, extra?: object): void => {
  try {
    new PerformanceObserver((list) => list.getEntries().forEach(each)).observe({
      type,
      buffered: true,
      ...extra,
    });
  } catch {
    // entry type unsupported by this browser: that metric is simply absent
  }
};

/** Starts observing; call once at page load. */
export const watchVitals = (): void => {
  observe('paint', (e) => {
    if (e.name === 'first-contentful-paint') metrics.fcp = e.startTime;
  });
  observe('largest-contentful-paint', (e) => {
    metrics.lcp = e.startTime;
  });
  observe('layout-shift', (entry) => {
    const e = entry as Shift;
    if (e.hadRecentInput) return;
    const joins = windowValue && e.startTime - lastShift < 1e3 && e.startTime - windowStart < 5e3;
    windowValue = joins ? windowValue + e.value : e.value;
    if (!joins) windowStart = e.startTime;
    lastShift = e.startTime;
    metrics.cls = Math.max(metrics.cls || 0, windowValue);
  });
  observe(
    'event',
    (e) => {
      if ((e as Interaction).interactionId) metrics.inp = Math.max(metrics.inp || 0, e.duration);
    },
    { durationThreshold: 40 },
  );
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  if (nav) metrics.ttfb = nav.responseStart;
};

/** The metrics gathered so far, rounded and capped to what the server accepts; undefined if none. */
export const takeVitals = (): Record<string, number> | undefined => {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(metrics)) {
    out[name] =
      name === 'cls' ? Math.min(100, Math.round(value * 1e4) / 1e4) : Math.min(6e5, Math.round(value));
  }
  return Object.keys(out).length ? out : undefined;
};
