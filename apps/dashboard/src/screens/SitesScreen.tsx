import { useEffect, useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { lazyScreen } from '../components/lazy.tsx';
import { ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { compact } from '../i18n/format.ts';
import { t } from '../i18n/sites.ts';
import { navigate } from '../router.ts';
import { isOwner } from '../session.ts';
import { arrangeSites } from '../sites/arrange.ts';
import { CookielessBadge, SiteIcon } from '../sites/SiteIcon.tsx';
import { Sparkline } from '../sites/Sparkline.tsx';

const ArrangeSites = lazyScreen<{
  sites: Schema<'Site'>[];
  layout: Schema<'SiteLayout'>;
  onDone: () => void;
}>(() => import('../sites/ArrangeSites.tsx'), 'ArrangeSites');

type Trend = {
  state: 'waiting' | 'active' | 'stopped';
  favicon: boolean;
  last_seen: string | null;
  visitors: number[];
};
const DAY_MS = 86_400_000;

function lastSeenNote(trend: Trend | undefined): string | null {
  if (!trend) return null;
  if (trend.state === 'waiting') return t('waitingFirstVisit');
  const since = trend.last_seen ? Date.now() - Date.parse(trend.last_seen) : 0;
  if (trend.state === 'stopped') return t('trackingStopped', { count: Math.floor(since / DAY_MS) });
  if (since > 2 * DAY_MS) return t('noVisitFor', { count: Math.floor(since / DAY_MS) });
  return null;
}

function SiteCard({ site, trend }: { site: Schema<'Site'>; trend: Trend | undefined }) {
  const total = trend ? trend.visitors.reduce((a, b) => a + b, 0) : undefined;
  const note = lastSeenNote(trend);
  return (
    <li class="site-card card">
      <Link class="site-card-link" href={`/sites/${site.id}`}>
        <span class="site-card-head">
          <SiteIcon
            domain={site.domain}
            icon={site.icon}
            colour={site.colour}
            favicon={trend?.favicon ? `/api/v1/sites/${site.id}/favicon` : undefined}
          />
          <span class="site-card-domain">{site.domain}</span>
          {site.cookieless && <CookielessBadge />}
        </span>
        {note ? (
          <span class={trend?.state === 'waiting' ? 'site-card-note' : 'site-card-note warn'}>{note}</span>
        ) : (
          <span class="site-card-number">
            <strong>{compact(total ?? 0)}</strong>{' '}
            <span class="muted">{t('visitorsIn30Days', { count: total ?? 0 })}</span>
          </span>
        )}
        {trend && trend.state !== 'waiting' && <Sparkline values={trend.visitors} />}
      </Link>
    </li>
  );
}

/** The way to every site at once (`/all`, key G): their visitors of the last 30 days together. */
function AllSitesCard({ trends }: { trends: Trend[] }) {
  const days = Math.max(0, ...trends.map((tr) => tr.visitors.length));
  const summed = Array.from({ length: days }, (_, i) =>
    trends.reduce((sum, tr) => sum + (tr.visitors[tr.visitors.length - days + i] ?? 0), 0),
  );
  const total = summed.reduce((a, b) => a + b, 0);
  return (
    <ul class="site-grid all-sites-entry">
      <li class="site-card card">
        <Link class="site-card-link" href="/all" aria-keyshortcuts="g">
          <span class="site-card-head">
            <span class="site-card-domain">{t('allSites')}</span>
            <kbd>G</kbd>
          </span>
          <span class="site-card-number">
            <strong>{compact(total)}</strong>{' '}
            <span class="muted">{t('visitorsIn30Days', { count: total })}</span>
          </span>
          <span class="muted site-card-note">{t('allSitesCard')}</span>
          {days > 0 && <Sparkline values={summed} />}
        </Link>
      </li>
    </ul>
  );
}

/**
 * Every site the person may see, in the account-wide layout (pins, groups, order), each with its
 * last 30 days. An owner without a site is sent to add one; an owner whose sites all wait for a
 * first visit sees the install screen of the first (spec: Site lifecycle).
 */
export function SitesScreen() {
  const [arranging, setArranging] = useState(false);
  const data = useLoad(
    (signal) =>
      Promise.all([
        unwrap(api.GET('/api/v1/sites', { signal })),
        unwrap(api.GET('/api/v1/site-layout', { signal })),
        unwrap(api.GET('/api/v1/site-trends', { signal, params: { query: { days: '30' } } })),
      ]),
    [],
  );
  const [answer, layout, trends] = data.data ?? [];
  const sites = answer?.sites;
  const byId = new Map(trends?.trends.map((t) => [t.site, t]));
  const waitingOnly = !!sites && sites.length > 0 && sites.every((s) => byId.get(s.id)?.state === 'waiting');
  const held = isOwner.value && sites && (sites.length === 0 || waitingOnly);
  useEffect(() => {
    if (!held || !sites) return;
    navigate(sites.length === 0 ? '/sites/new' : `/sites/${sites[0]!.id}`, { replace: true });
  }, [held]);
  if (data.error)
    return (
      <main class="page" id="main" tabIndex={-1}>
        <ErrorNote error={data.error} />
      </main>
    );
  if (!sites || !layout || held)
    return (
      <main class="page" id="main" tabIndex={-1}>
        <Spinner />
      </main>
    );
  return (
    <main class="page" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{t('sites')}</h1>
        {isOwner.value && (
          <div class="row">
            <button type="button" class="button secondary" onClick={() => setArranging(true)}>
              {t('arrange')}
            </button>
            <Link class="button" href="/sites/new">
              {t('addSite')}
            </Link>
          </div>
        )}
      </div>
      {sites.length === 0 && <p>{t('noSiteShared')}</p>}
      {sites.length > 1 && <AllSitesCard trends={trends?.trends ?? []} />}
      {arrangeSites(sites, layout).map((section) => (
        <section class="site-section" key={section.title ?? ''} aria-label={section.title ?? t('sites')}>
          {section.title && <h2>{section.title}</h2>}
          <ul class="site-grid">
            {section.sites.map((site) => (
              <SiteCard key={site.id} site={site} trend={byId.get(site.id)} />
            ))}
          </ul>
        </section>
      ))}
      {arranging && (
        <ArrangeSites
          sites={sites}
          layout={layout}
          onDone={() => {
            setArranging(false);
            data.reload();
          }}
        />
      )}
    </main>
  );
}
