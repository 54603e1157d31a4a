import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/connections.ts';
import { formatDateTime as when } from '../i18n/format.ts';

/**
 * A site's Google Search Console connection (owners): the property and a service account's key
 * file; once connected, the account's address, the last pull or why it failed, and Disconnect.
 * Its clicks give the AI & search panel its "Not read" badge.
 */
export function SearchConsoleSettings({ site }: { site: string }) {
  const state = useLoad(
    (signal) =>
      unwrap(api.GET('/api/v1/sites/{site}/search-console', { signal, params: { path: { site } } })),
    [site],
  );
  const [property, setProperty] = useState('');
  const [key, setKey] = useState('');
  const connect = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/v1/sites/{site}/search-console', {
        params: { path: { site } },
        body: { property: property.trim(), service_account_key: key },
      }),
    );
    setKey('');
    state.reload();
  });
  const disconnect = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/sites/{site}/search-console', { params: { path: { site } } }));
    state.reload();
  });
  const c = state.data?.connection ?? null;
  return (
    <div class="stack">
      <p class="muted">{t('searchConsoleIntro')}</p>
      <ErrorNote error={state.error} />
      {!state.data && !state.error && <Spinner />}
      {c && (
        <div class="stack">
          <p>
            {t.rich('connectedTo', {
              property: <strong>{c.property}</strong>,
              email: <code>{c.client_email}</code>,
            })}{' '}
            {c.synced_at ? t('clicksPulled', { when: when(c.synced_at) }) : ''}
          </p>
          {c.last_error && (
            <p class="notice" role="status">
              {t('lastPullFailed', { when: when(c.last_error.at), error: c.last_error.message })}
            </p>
          )}
          <div class="row">
            <ConfirmAction
              ask={t('disconnectAsk')}
              confirm={t('disconnectSearchConsole')}
              busy={disconnect.busy}
              onConfirm={() => disconnect.submit()}
            />
          </div>
          <ErrorNote error={disconnect.error} />
        </div>
      )}
      {state.data && !c && (
        <form class="form-narrow" onSubmit={connect.submit} aria-label={t('connectSearchConsole')}>
          <InputField
            label={t('property')}
            hint={t('propertyHint')}
            value={property}
            onValue={setProperty}
            maxLength={300}
            error={connect.fieldError('property')}
          />
          <Field
            label={t('serviceAccountKey')}
            hint={t('serviceAccountKeyHint')}
            error={connect.fieldError('service_account_key')}
          >
            {(id, describedBy) => (
              <textarea
                id={id}
                aria-describedby={describedBy}
                rows={5}
                value={key}
                spellcheck={false}
                autocomplete="off"
                onInput={(e) => setKey(e.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNote error={connect.formError('property', 'service_account_key')} />
          <button
            class="button primary"
            type="submit"
            disabled={connect.busy || !property.trim() || !key.trim()}
          >
            {connect.busy ? t('connecting') : t('connect')}
          </button>
        </form>
      )}
    </div>
  );
}
