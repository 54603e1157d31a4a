import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { Link } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t } from '../i18n/report.ts';
import { useLive } from './use-live.ts';

/** The live stream is opened this long after the report appears: its requests go first. */
const LISTEN_AFTER_MS = 3_000;
/** Visits arriving in a burst ask for the count at most this often. */
const AT_MOST_EVERY_MS = 5_000;
/** People leave without a visit saying so: the count is asked again this often anyway. */
const DECAY_MS = 60_000;

/**
 * How many people are on the site now (seen in the last 5 minutes). It follows the live stream:
 * new visits ask for the count again (at most every 5 s), and so does the stream's fallback poll
 * when a proxy blocks it; every minute it is asked anyway, as people leave.
 */
export function NowPill({ site }: { site: string }) {
  const now = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/now', { signal, params: { path: { site }, query: { limit: 1 } } }),
      ),
    [site],
  );
  const [listening, setListening] = useState(false);
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const ask = () => {
    if (pending.current !== undefined) return;
    const wait = Math.max(0, last.current + AT_MOST_EVERY_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = undefined;
      last.current = Date.now();
      now.reload();
    }, wait);
  };
  useEffect(() => {
    const listen = setTimeout(() => setListening(true), LISTEN_AFTER_MS);
    const decay = setInterval(ask, DECAY_MS);
    return () => {
      clearTimeout(listen);
      clearInterval(decay);
      clearTimeout(pending.current);
      pending.current = undefined;
    };
  }, [site]);
  useLive(site, { onVisits: ask, onPoll: ask }, listening);
  const n = now.data?.visitors_5m;
  if (n === undefined) return null;
  return (
    <Link class="now-pill" href={`/sites/${site}/live`} aria-label={t('currentVisitorsLink', { count: n })}>
      <span class={n > 0 ? 'dot on' : 'dot'} aria-hidden="true" />
      {t('currentVisitors', { count: n })}
    </Link>
  );
}
