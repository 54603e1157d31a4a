import { useEffect } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { Link } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';

/** How many people are on the site now (seen in the last 5 minutes), refreshed every 30 s. */
export function NowPill({ site }: { site: string }) {
  const now = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/now', { signal, params: { path: { site }, query: { limit: 1 } } }),
      ),
    [site],
  );
  useEffect(() => {
    const timer = setInterval(now.reload, 30_000);
    return () => clearInterval(timer);
  }, [site]);
  const n = now.data?.visitors_5m;
  if (n === undefined) return null;
  return (
    <Link
      class="now-pill"
      href={`/sites/${site}/live`}
      aria-label={`${n} current ${n === 1 ? 'visitor' : 'visitors'}: open the live view`}
    >
      <span class={n > 0 ? 'dot on' : 'dot'} aria-hidden="true" />
      {n} current {n === 1 ? 'visitor' : 'visitors'}
    </Link>
  );
}
