import { useState } from 'preact/hooks';
import type { Schema } from '../api/client.ts';
import { Link } from '../components/ui.tsx';
import { t as tc } from '../i18n/common.ts';
import { t } from '../i18n/report.ts';
import { isOwner } from '../session.ts';
import { IgnoreMyVisits } from '../sites/IgnoreMyVisits.tsx';
import { ProxyKey } from '../sites/ProxyKey.tsx';
import { SiteTag } from '../sites/SiteTag.tsx';
import { rangeLabel } from './period.ts';
import { useLive } from './use-live.ts';

/**
 * A site waiting for its first visit: the tag to copy, the proxy key for server senders, and a
 * live "waiting" state that turns into the dashboard as soon as the first visit is stored. A site
 * with imported history links to the report of those days meanwhile.
 */
export function InstallScreen(props: {
  site: Schema<'Site'>;
  imported: Schema<'SiteStatus'>['imported'];
  onArrived: () => void;
}) {
  const { site } = props;
  const [checks, setChecks] = useState(0);
  const mode = useLive(site.id, {
    onVisits: props.onArrived,
    onPoll: () => {
      setChecks((n) => n + 1);
      props.onArrived();
    },
  });
  return (
    <main class="page install" id="main" tabIndex={-1}>
      <div class="page-head">
        <h1>{t('addFootfallTo', { domain: site.domain })}</h1>
        {isOwner.value && (
          <div class="row">
            <Link class="button secondary" href={`/sites/${site.id}/settings`}>
              {tc('titleSiteSettings')}
            </Link>
            <Link class="button secondary" href="/sites/new">
              {t('addAnotherSite')}
            </Link>
          </div>
        )}
      </div>
      {props.imported && (
        <section class="card stack" aria-labelledby="imported-title">
          <h2 id="imported-title">{t('importedHistory')}</h2>
          <p>{t('importedHistoryReady', { period: rangeLabel(props.imported) })}</p>
          <div class="row">
            <Link
              class="button secondary"
              href={`/sites/${site.id}?period=custom&from=${props.imported.from}&to=${props.imported.to}&bucket=day`}
            >
              {t('openImportedReport')}
            </Link>
          </div>
        </section>
      )}
      <section class="card stack" aria-labelledby="tag-title">
        <h2 id="tag-title">{t('putTag')}</h2>
        <SiteTag site={site.id} />
      </section>
      <section class="card waiting" aria-labelledby="wait-title">
        <h2 id="wait-title">{t('openPage')}</h2>
        <p role="status" aria-live="polite" class="waiting-state">
          <span class="pulse" aria-hidden="true" />
          {t('waiting')}
          {mode === 'polling' && (
            <span class="muted"> {checks > 0 ? t('checkingSoFar', { count: checks }) : t('checking')}</span>
          )}
        </p>
        <p class="muted">{t('turnsIntoReport')}</p>
      </section>
      <section class="card stack" aria-labelledby="ignore-title">
        <h2 id="ignore-title">{t('leaveOwnOut')}</h2>
        <p class="muted">{t('onceArrived')}</p>
        <IgnoreMyVisits domain={site.domain} />
      </section>
      {isOwner.value && site.proxy_key && (
        <section class="card stack" aria-labelledby="server-title">
          <h2 id="server-title">{t('fromServer')}</h2>
          <p>{t.rich('proxyKeyIn', { header: <code>{'X-Footfall-Proxy-Key'}</code> })}</p>
          <ProxyKey site={site} />
        </section>
      )}
    </main>
  );
}
