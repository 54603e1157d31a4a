import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { useShortcuts } from '../components/shortcuts.ts';
import { compact, ErrorNote, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t } from '../i18n/report.ts';
import { navigate, query } from '../router.ts';
import { Feed, type Item } from './Feed.tsx';
import { Journey } from './Journey.tsx';
import { chooseMode } from './mode.ts';
import { PeopleNow } from './PeopleNow.tsx';
import { PERIODS } from './period.ts';
import { type LiveMode, useLive } from './use-live.ts';
import { readView, viewHref, withPeriod } from './view.ts';

/** How many pageviews the feed keeps. */
const FEED = 20;

function ModeNote({ mode }: { mode: LiveMode }) {
  if (mode === 'streaming')
    return (
      <span class="live-mode on">
        <span class="dot on" aria-hidden="true" /> {t('live')}
      </span>
    );
  if (mode === 'polling')
    return (
      <span class="live-mode polling" role="status">
        {t('liveBlocked')}
      </span>
    );
  return <span class="live-mode muted">{t('connecting')}</span>;
}

/**
 * The site now: people seen in the last 30 minutes (each with their journey), and pageviews as
 * they happen, from the live stream or, when it is blocked, by asking every 15 s.
 */
export function LiveView({ site }: { site: Schema<'Site'> }) {
  const [feed, setFeed] = useState<Item[]>([]);
  const [, tick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const now = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/now', {
          signal,
          params: { path: { site: site.id }, query: { limit: 20 } },
        }),
      ),
    [site.id],
  );
  const recent = useLoad(
    (signal) =>
      unwrap(
        api.GET('/api/v1/sites/{site}/events', {
          signal,
          params: { path: { site: site.id }, query: { limit: FEED } },
        }),
      ),
    [site.id],
  );
  useEffect(() => {
    if (recent.data)
      setFeed(
        recent.data.events
          .filter((e): e is typeof e & Item => e.kind === 'pv' || e.kind === 'ev')
          .slice(0, FEED),
      );
  }, [recent.data]);
  useEffect(() => {
    const every = setInterval(() => tick((n) => n + 1), 5000);
    return () => clearInterval(every);
  }, []);
  const mode = useLive(site.id, {
    onVisits: (visits) => {
      setFeed((items) => [...[...visits].reverse(), ...items].slice(0, FEED));
      // the numbers follow, at most every 2 s
      timer.current ??= setTimeout(() => {
        timer.current = undefined;
        now.reload();
      }, 2000);
    },
    onPoll: () => {
      now.reload();
      recent.reload();
    },
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  // a period's key opens the report for that period
  useShortcuts(
    Object.fromEntries(
      PERIODS.filter((p) => p.key !== 'custom').map((p) => [
        p.shortcut,
        () => {
          chooseMode('report');
          navigate(viewHref(`/sites/${site.id}`, withPeriod(readView(new URLSearchParams()), p.key)));
        },
      ]),
    ),
  );
  const journey = query.value.get('journey');
  const numbers = now.data;
  return (
    <>
      <div class="live-numbers card">
        <dl>
          <div>
            <dt>{t('visitorsNow')}</dt>
            <dd>{numbers ? compact(numbers.visitors_5m) : '–'}</dd>
          </div>
          <div>
            <dt>{t('visitors30')}</dt>
            <dd>{numbers ? compact(numbers.visitors_30m) : '–'}</dd>
          </div>
          <div>
            <dt>{t('pageviews30')}</dt>
            <dd>{numbers ? compact(numbers.pageviews_30m) : '–'}</dd>
          </div>
        </dl>
        <ModeNote mode={mode} />
      </div>
      <ErrorNote error={now.error ?? recent.error} />
      <div class="live-grid">
        <PeopleNow site={site} numbers={numbers} />
        <section class="card" aria-labelledby="feed-title">
          <h2 id="feed-title">{t('asItHappens')}</h2>
          {recent.data || feed.length > 0 ? <Feed items={feed} /> : <Spinner />}
        </section>
      </div>
      {journey && (
        <Journey site={site} visitor={journey} onClose={() => navigate(`/sites/${site.id}/live`)} />
      )}
    </>
  );
}
