import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, InputField } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/account.ts';
import { SettingsNav } from './SettingsNav.tsx';

/**
 * Data requests (owners): what Footfall holds about a person, found by their e-mail address, and
 * its erasure. Visits carry no e-mail, so what is held is in stored payment webhooks only; erasing
 * removes their personal fields and keeps the amounts (docs/api.md, Data requests).
 */
export function DataRequestsScreen() {
  const sites = useLoad((signal) => unwrap(api.GET('/api/v1/sites', { signal })), []);
  const [email, setEmail] = useState('');
  const [found, setFound] = useState<{ email: string; answer: Schema<'DataFound'> }>();
  const [erased, setErased] = useState<Schema<'Erasure'>>();
  const find = useSubmit(async () => {
    const asked = email.trim();
    setErased(undefined);
    setFound({
      email: asked,
      answer: await unwrap(api.POST('/api/v1/data-requests/find', { body: { email: asked } })),
    });
  });
  const erase = useSubmit(async () => {
    if (!found) return;
    setErased(await unwrap(api.POST('/api/v1/data-requests/erase', { body: { email: found.email } })));
    setFound(undefined);
  });
  const domain = (id: string) => sites.data?.sites.find((s) => s.id === id)?.domain ?? id;
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>{t('settings')}</h1>
      <SettingsNav />
      <section class="section">
        <h2>{t('dataRequests')}</h2>
        <p class="muted">{t('dataRequestsIntro')}</p>
        <form class="stack" onSubmit={find.submit}>
          <InputField
            label={t('personEmail')}
            type="email"
            autocomplete="off"
            required
            maxLength={320}
            error={find.fieldError('email')}
            value={email}
            onValue={(value) => {
              setEmail(value);
              setFound(undefined);
            }}
          />
          <div class="row">
            <button type="submit" class="button" disabled={find.busy}>
              {t('lookUp')}
            </button>
          </div>
        </form>
        <ErrorNote error={find.formError('email')} />
        {found && (
          <div class="card notice-card data-found" role="status">
            <p>{found.answer.message}</p>
            {found.answer.sites.length > 0 && (
              <p class="muted">{t('sitesList', { sites: found.answer.sites.map(domain).join(', ') })}</p>
            )}
            {found.answer.payloads > 0 && (
              <div class="row">
                <ConfirmAction
                  ask={t('erase')}
                  askLabel={t('eraseLabel', { email: found.email })}
                  confirm={t('eraseConfirm', { email: found.email })}
                  busy={erase.busy}
                  onConfirm={() => erase.submit()}
                />
              </div>
            )}
            <ErrorNote error={erase.error} />
          </div>
        )}
        {erased && (
          <div class="card notice-card data-erased" role="status">
            <p>{erased.message}</p>
            {erased.sites.length > 0 && (
              <p class="muted">{t('sitesList', { sites: erased.sites.map(domain).join(', ') })}</p>
            )}
          </div>
        )}
      </section>
    </main>
  );
}
