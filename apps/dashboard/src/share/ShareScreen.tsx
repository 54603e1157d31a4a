import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Schema, setShareCredential, unwrap } from '../api/client.ts';
import { ErrorNote, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/share.ts';
import { Report } from '../site/Report.tsx';
import { CookielessBadge, SiteIcon } from '../sites/SiteIcon.tsx';

type Opened = Schema<'ShareSession'>;

/** Where an opened link's credential is kept for the tab (a reload does not ask again). */
const stored = (token: string) => `footfall-share:${token}`;

function remembered(token: string): Opened | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(stored(token)) ?? 'null') as Opened | null;
    return value && Date.parse(value.expires_at) > Date.now() + 60_000 ? value : null;
  } catch {
    return null;
  }
}

/**
 * A shared dashboard, `/share/<token>`: for people without an account. The link is opened (with
 * its password, when it has one) for a credential that reads only this site's report; then the
 * report as a viewer sees it, without the live view, single visitors, the CSV or settings.
 */
export function ShareScreen({ token }: { token: string }) {
  const [opened, setOpened] = useState<Opened | null>(() => remembered(token));
  const link = useLoad(
    (signal) =>
      opened
        ? Promise.resolve(null)
        : unwrap(api.GET('/api/v1/shared/{token}', { signal, params: { path: { token } } }), {
            signIn: true,
          }),
    [token, opened === null],
  );
  const take = (answer: Opened) => {
    sessionStorage.setItem(stored(token), JSON.stringify(answer));
    setOpened(answer);
  };
  const [password, setPassword] = useState('');
  const submit = useSubmit(async () => {
    take(
      await unwrap(
        api.POST('/api/v1/shared/{token}/session', { params: { path: { token } }, body: { password } }),
        { signIn: true },
      ),
    );
  });
  // a link without a password opens at once
  useEffect(() => {
    if (opened || !link.data || link.data.password_required) return;
    void unwrap(api.POST('/api/v1/shared/{token}/session', { params: { path: { token } }, body: {} }), {
      signIn: true,
    }).then(take, () => undefined);
  }, [link.data, opened]);

  if (opened) return <SharedReport token={token} opened={opened} onEnded={() => setOpened(null)} />;
  if (link.error) {
    return (
      <main class="auth" id="main" tabIndex={-1}>
        <div class="auth-card stack">
          <h1>{t('linkOpensNothing')}</h1>
          <p>{t('linkRevoked')}</p>
        </div>
      </main>
    );
  }
  if (!link.data?.password_required) return <Spinner label={t('opening')} />;
  return (
    <main class="auth" id="main" tabIndex={-1}>
      <form class="auth-card stack" onSubmit={submit.submit} aria-label={t('openShared')}>
        <h1>{t('sharedDashboard')}</h1>
        <p>{t('passwordProtected')}</p>
        <InputField
          label={t('password')}
          type="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
          error={submit.fieldError('password')}
        />
        <ErrorNote error={submit.formError('password')} />
        <button class="button primary" type="submit" disabled={submit.busy || !password}>
          {t('open')}
        </button>
      </form>
    </main>
  );
}

function SharedReport(props: { token: string; opened: Opened; onEnded: () => void }) {
  const { opened, token } = props;
  setShareCredential(opened.credential);
  const site = opened.site;
  const status = useLoad(
    (signal) =>
      unwrap(api.GET('/api/v1/sites/{site}/status', { signal, params: { path: { site: site.id } } }), {
        signIn: true,
      }),
    [site.id, opened.credential],
  );
  // the link was revoked, its password changed or its day is over: open it again
  useEffect(() => {
    if (status.error instanceof ApiError && status.error.status === 401) {
      sessionStorage.removeItem(stored(token));
      setShareCredential(undefined);
      props.onEnded();
    }
  }, [status.error]);
  document.title = t('documentTitle', { domain: site.domain });
  return (
    <div class="shared">
      <main class="page" id="main" tabIndex={-1}>
        <div class="page-head site-head">
          <h1 class="row">
            <SiteIcon domain={site.domain} icon={site.icon} colour={site.colour} />
            {site.domain}
            {site.cookieless && <CookielessBadge />}
          </h1>
          <p class="muted">{t('readOnly')}</p>
        </div>
        <ErrorNote error={status.error} />
        <Report
          site={site}
          status={status.data}
          shared={{ path: `/share/${token}`, showNotes: opened.show_notes }}
        />
      </main>
      <footer class="shared-foot muted">{t('countedBy')}</footer>
    </div>
  );
}
