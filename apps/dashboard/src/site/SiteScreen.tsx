import { useLayoutEffect } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { early, startEarly } from '../api/early.ts';
import { lazyScreen } from '../components/lazy.tsx';
import { ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { t as tc } from '../i18n/common.ts';
import { formatNumber } from '../i18n/format.ts';
import { t } from '../i18n/report.ts';
import { navigate, route } from '../router.ts';
import { isOwner } from '../session.ts';
import { SiteIcon } from '../sites/SiteIcon.tsx';
import { MilestoneMoment } from './Milestones.tsx';
import { chooseMode, chosenMode } from './mode.ts';
import { NowPill } from './NowPill.tsx';
import { Report } from './Report.tsx';
import { ShareCard } from './ShareCard.tsx';

// the live view and the install screen are not the report's first view: each loads when shown
const LiveView = lazyScreen<{ site: Schema<'Site'> }>(() => import('./LiveView.tsx'), 'LiveView');
const InstallScreen = lazyScreen<{
  site: Schema<'Site'>;
  imported: Schema<'SiteStatus'>['imported'];
  onArrived: () => void;
}>(() => import('./InstallScreen.tsx'), 'InstallScreen');

const DAY_MS = 86_400_000;

/** Live / Report: shown once the site has data; the choice is remembered for the person. */
function ModeSwitch(props: { site: string; live: boolean }) {
  return (
    <nav class="segmented" aria-label={t('viewSwitch')}>
      <Link
        href={`/sites/${props.site}`}
        aria-current={props.live ? undefined : 'page'}
        onClick={() => chooseMode('report')}
      >
        {t('report')}
      </Link>
      <Link
        href={`/sites/${props.site}/live`}
        aria-current={props.live ? 'page' : undefined}
        onClick={() => chooseMode('live')}
      >
        {t('live')}
      </Link>
    </nav>
  );
}

/** What the daily install check saw on the homepage, in a sentence. */
function installWords(
  site: Schema<'Site'>,
  check: Schema<'SiteStatus'>['install_check'] | undefined,
): string {
  if (!check) return t('checkTag');
  if (check.tracker === 'missing')
    return t('trackerMissing', { script: `/js/${site.id}.js`, domain: site.domain });
  if (check.tracker === 'found') return t('trackerFound');
  return t('homepageUnread', { detail: check.detail ?? t('noAnswer') });
}

/** From this many events received and not loaded yet, the report says it is catching up. */
const CATCHING_UP_FROM = 5000;

function SiteHead(props: { site: Schema<'Site'>; status: Schema<'SiteStatus'> | undefined; live: boolean }) {
  const { site, status } = props;
  const quiet = status?.last_seen ? Date.now() - Date.parse(status.last_seen) : 0;
  return (
    <>
      <div class="page-head site-head">
        <h1 class="row">
          <SiteIcon domain={site.domain} icon={site.icon} colour={site.colour} />
          {site.domain}
        </h1>
        <div class="row">
          {!props.live && <NowPill site={site.id} />}
          {!props.live && <ShareCard site={site.id} domain={site.domain} />}
          <ModeSwitch site={site.id} live={props.live} />
          {isOwner.value && (
            <Link class="button secondary" href={`/sites/${site.id}/settings`}>
              {tc('navSettings')}
            </Link>
          )}
        </div>
      </div>
      {status && status.loading_events >= CATCHING_UP_FROM && (
        <p class="notice" role="status">
          {t('catchingUp', { count: formatNumber(status.loading_events) })}
        </p>
      )}
      {(status?.state === 'stopped' || quiet > 2 * DAY_MS) && (
        <p class="notice" role="status">
          {status?.state === 'stopped' ? <strong>{t('trackingStopped')} </strong> : null}
          {t('noVisitFor', { count: Math.floor(quiet / DAY_MS) })} {installWords(site, status?.install_check)}{' '}
          {t('nothingLost')}
        </p>
      )}
    </>
  );
}

const siteRequest = (site: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/v1/sites/{site}', { signal, params: { path: { site } } }));
const statusRequest = (site: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/v1/sites/{site}/status', { signal, params: { path: { site } } }));

/** When the app opens on a site's page, its site and status are asked for with the session. */
export function startSiteEarly(path: string): void {
  const site = /^\/sites\/([a-z2-9]{10})(\/live)?$/.exec(path)?.[1];
  if (!site) return;
  startEarly(`site:${site}`, () => siteRequest(site));
  startEarly(`status:${site}`, () => statusRequest(site));
}

/**
 * A site: its install screen until the first visit, then its report or its live view (spec: Site
 * lifecycle). Opening `/sites/<id>` with nothing else in the URL opens the view the person chose
 * last. The report starts as soon as the site is known, beside the status: the install screen
 * replaces it if the status says the site still waits.
 */
export function SiteScreen(props: { site: string; live: boolean }) {
  useLayoutEffect(() => {
    if (!props.live && !route.value.search && chosenMode() === 'live') {
      navigate(`/sites/${props.site}/live`, { replace: true });
    }
  }, [props.site]);
  const site = useLoad(
    (signal) => early(`site:${props.site}`, () => siteRequest(props.site, signal)),
    [props.site],
  );
  const status = useLoad(
    (signal) => early(`status:${props.site}`, () => statusRequest(props.site, signal)),
    [props.site],
  );
  const error = site.error ?? status.error;
  if (error) {
    return (
      <main class="page" id="main" tabIndex={-1}>
        <ErrorNote error={error} />
        <Link href="/sites">{t('backToSites')}</Link>
      </main>
    );
  }
  const answer = site.data?.site;
  if (!answer)
    return (
      <main class="page" id="main" tabIndex={-1}>
        <Spinner />
      </main>
    );
  document.title = `${answer.domain} · Footfall`;
  // a site with imported history but no visit yet shows its report once a period is asked for
  const imported = status.data?.imported ?? null;
  if (status.data?.state === 'waiting' && !(imported && route.value.search)) {
    return <InstallScreen site={answer} imported={imported} onArrived={status.reload} />;
  }
  return (
    <main class="page" id="main" tabIndex={-1}>
      <SiteHead site={answer} status={status.data} live={props.live} />
      {!props.live && answer.modules.milestones && <MilestoneMoment site={answer} />}
      {props.live ? <LiveView site={answer} /> : <Report site={answer} status={status.data} />}
    </main>
  );
}
