import { useEffect, useRef, useState } from 'preact/hooks';
import { type Schema, urlFor } from '../api/client.ts';

export type LiveMode = 'connecting' | 'streaming' | 'polling';

/** The stream says nothing for this long before its first event: it is blocked (spec: 25 s). */
export const FIRST_EVENT_MS = 25_000;
/** A ping comes every 15 s: this long without one means the stream stalled. */
export const SILENCE_MS = 40_000;
/** While the stream is blocked, the view asks again this often (spec: 15 s). */
export const POLL_MS = 15_000;
/** and the stream is tried again this often, in case the block was passing */
const RETRY_MS = 120_000;

/**
 * The site's live stream (`GET …/live`, Server-Sent Events): `onVisits` gets each batch of visits.
 * When the stream is blocked (a proxy that buffers it, a network that drops it) and nothing has
 * come within 25 s, the view falls back to calling `onPoll` every 15 s, and tries the stream again
 * every two minutes; the mode says which is in use.
 */
export function useLive(
  site: string,
  handlers: { onVisits?: (visits: Schema<'LiveVisits'>) => void; onPoll: () => void },
  enabled = true,
): LiveMode {
  const [mode, setMode] = useState<LiveMode>('connecting');
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | undefined;
    let heard = 0;
    let opened = 0;
    let polling = false;
    let pollTimer: ReturnType<typeof setInterval> | undefined;
    const open = () => {
      source?.close();
      opened = Date.now();
      heard = 0;
      source = new EventSource(urlFor('/api/v1/sites/{site}/live', { path: { site } }));
      const alive = () => {
        heard = Date.now();
        if (polling) {
          polling = false;
          clearInterval(pollTimer);
        }
        setMode('streaming');
      };
      source.addEventListener('ready', alive);
      source.addEventListener('ping', alive);
      source.addEventListener('visits', (e) => {
        alive();
        try {
          current.current.onVisits?.(JSON.parse((e as MessageEvent<string>).data));
        } catch {}
      });
    };
    const startPolling = () => {
      source?.close();
      source = undefined;
      if (polling) return;
      polling = true;
      setMode('polling');
      current.current.onPoll();
      pollTimer = setInterval(() => current.current.onPoll(), POLL_MS);
    };
    const watchdog = setInterval(() => {
      const now = Date.now();
      if (source && (heard === 0 ? now - opened >= FIRST_EVENT_MS : now - heard >= SILENCE_MS))
        startPolling();
      else if (!source && polling && now - opened >= RETRY_MS) open();
    }, 1000);
    open();
    return () => {
      clearInterval(watchdog);
      clearInterval(pollTimer);
      source?.close();
    };
  }, [site, enabled]);
  return mode;
}
