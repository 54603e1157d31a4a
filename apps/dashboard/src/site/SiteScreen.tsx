import { useLayoutEffect } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { early, startEarly } from '../api/early.ts';
import { ErrorNote, Link, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { navigate, route } from '../router.ts';
import { isOwner } from '../session.ts';
import { SiteIcon } from '../sites/SiteIcon.tsx';
import { InstallScreen } from './InstallScreen.tsx';
import { LiveView } from './LiveView.tsx';
import { MilestoneMoment } from './Milestones.tsx';
import { chooseMode, chosenMode } from './mode.ts';
import { NowPill } from './NowPill.tsx';
import { Report } from './Report.tsx';
import { ShareCard } from './ShareCard.tsx';

const DAY_MS = 86_400_000;

/** Live / Report: shown once the site has data; the choice is remembered for the person. */
function ModeSwitch(props: { site: string; live: boolean }) {
  return (
    <nav class="segmented" aria-label="View">
      <Link
        href={`/sites/${props.site}`}
        aria-current={props.live ? undefined : 'page'}
        onClick={() => chooseMode('report')}
      >
        Report
      </Link>
      <Link
        href={`/sites/${props.site}/live`}
        aria-current={props.live ? 'page' : undefined}
        onClick={() => chooseMode('live')}
      >
        Live
      </Link>
    </nav>
  );
}

/** What the daily install check saw on the homepage, in a sentence. */
function installWords(
  site: Schema<'Site'>,
  check: Schema<'SiteStatus'>['install_check'] | undefined,
): string {
  if (!check) return 'If the site still has visitors, check that its pages still carry the tag.';
  if (check.tracker === 'missing')
    return `The daily check did not find the tracker (/js/${site.id}.js) on ${site.domain}'s homepage: put the tag back.`;
  if (check.tracker === 'found')
    return 'The daily check still finds the tracker on the homepage: a blocker, a broken page or no visitors may be why.';
  return `The daily check could not read the homepage (${check.detail ?? 'no answer'}).`;
}

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
              Settings
            </Link>
          )}
        </div>
      </div>
      {(status?.state === 'stopped' || quiet > 2 * DAY_MS) && (
        <p class="notice" role="status">
          {status?.state === 'stopped' ? <strong>Tracking stopped. </strong> : null}
          No visit has come for {Math.floor(quiet / DAY_MS)} days. {installWords(site, status?.install_check)}{' '}
          Nothing recorded is lost; the report picks up again with the next visit.
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
        <Link href="/sites">Back to sites</Link>
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
  if (status.data?.state === 'waiting') return <InstallScreen site={answer} onArrived={status.reload} />;
  return (
    <main class="page" id="main" tabIndex={-1}>
      <SiteHead site={answer} status={status.data} live={props.live} />
      {!props.live && answer.modules.milestones && <MilestoneMoment site={answer} />}
      {props.live ? <LiveView site={answer} /> : <Report site={answer} status={status.data} />}
    </main>
  );
}
