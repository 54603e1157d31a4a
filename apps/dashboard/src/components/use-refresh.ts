import { useEffect, useState } from 'preact/hooks';

/** How often a report whose period includes now asks again. */
export const REFRESH_MS = 60_000;
/** A tab that comes back into view asks again when its data is at least this old. */
const STALE_AFTER_MS = 10_000;

/**
 * A number that grows each time the data in view should be asked for again: every `everyMs` while
 * `active` (the period includes now) and the tab is visible, and when the tab comes back into
 * view after a while. Put it in a load's keys. Nothing ticks in a hidden tab.
 */
export function useRefreshTick(active: boolean, everyMs = REFRESH_MS): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    let last = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      last = Date.now();
      setTick((t) => t + 1);
      schedule();
    };
    const schedule = () => {
      clearTimeout(timer);
      if (document.visibilityState === 'visible')
        timer = setTimeout(refresh, Math.max(0, last + everyMs - Date.now()));
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible') clearTimeout(timer);
      else if (Date.now() - last >= Math.min(STALE_AFTER_MS, everyMs)) refresh();
      else schedule();
    };
    schedule();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [active, everyMs]);
  return tick;
}
