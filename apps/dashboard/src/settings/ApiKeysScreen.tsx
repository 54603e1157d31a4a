import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/account.ts';
import { formatDate } from '../i18n/format.ts';
import { ago } from '../site/time.ts';
import { SettingsNav } from './SettingsNav.tsx';
import { SitesChooser } from './SitesChooser.tsx';

/** The sites a key reads, as the list says it. */
function keySites(k: Schema<'ApiKey'>, sites: Schema<'Site'>[] | undefined): string {
  if (k.sites === null) return t('everySite');
  if (k.sites.length === 0) return t('sitesDeleted');
  return k.sites.map((id) => sites?.find((s) => s.id === id)?.domain ?? id).join(', ');
}

function KeyRow(props: {
  apiKey: Schema<'ApiKey'>;
  sites: Schema<'Site'>[] | undefined;
  onRevoked: () => void;
}) {
  const k = props.apiKey;
  const revoke = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } }));
    props.onRevoked();
  });
  return (
    <tr>
      <td>{k.name}</td>
      <td>
        <code>{k.start}…</code>
      </td>
      <td>{keySites(k, props.sites)}</td>
      <td>{formatDate(k.created_at)}</td>
      <td>{k.last_used_at ? ago(k.last_used_at) : t('never')}</td>
      <td>
        <span class="row">
          <ConfirmAction
            ask={t('revoke')}
            askLabel={t('revokeKeyLabel', { name: k.name })}
            confirm={t('revokeKey', { name: k.name })}
            busy={revoke.busy}
            onConfirm={() => revoke.submit()}
          />
        </span>
        <ErrorNote error={revoke.error} />
      </td>
    </tr>
  );
}

/**
 * Read-only API keys: create one for every site or chosen sites (its value shown once), see when
 * each was last used, revoke.
 */
export function ApiKeysScreen() {
  const keys = useLoad((signal) => unwrap(api.GET('/api/v1/api-keys', { signal })), []);
  const sites = useLoad((signal) => unwrap(api.GET('/api/v1/sites', { signal })), []);
  const [name, setName] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [created, setCreated] = useState<Schema<'ApiKeyCreated'>>();
  const create = useSubmit(async () => {
    const body = all ? { name: name.trim() } : { name: name.trim(), sites: [...chosen] };
    setCreated(await unwrap(api.POST('/api/v1/api-keys', { body })));
    setName('');
    setAll(true);
    setChosen(new Set());
    keys.reload();
  });
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>{t('settings')}</h1>
      <SettingsNav />
      <section class="section">
        <h2>{t('apiKeys')}</h2>
        <p class="muted">{t('apiKeysIntro')}</p>
        {created && (
          <ShownOnce secret={created.key} copyLabel={t('copyKey')} onDone={() => setCreated(undefined)}>
            {t.rich('copyKeyNow', { name: <strong>{created.api_key.name}</strong> })}
          </ShownOnce>
        )}
        <form class="stack" onSubmit={create.submit}>
          <InputField
            label={t('newKeyName')}
            error={create.fieldError('name')}
            required
            maxLength={100}
            placeholder={t('newKeyNamePlaceholder')}
            value={name}
            onValue={setName}
          />
          {sites.data && sites.data.sites.length > 1 && (
            <SitesChooser
              name="new-key-sites"
              legend={t('newKeySites')}
              sites={sites.data.sites}
              all={all}
              chosen={chosen}
              onChange={(nextAll, nextChosen) => {
                setAll(nextAll);
                setChosen(nextChosen);
              }}
            />
          )}
          <div class="row">
            <button type="submit" class="button" disabled={create.busy}>
              {t('createKey')}
            </button>
          </div>
        </form>
        <ErrorNote error={create.formError('name')} />
        <ErrorNote error={keys.error} />
        {!keys.data && !keys.error && <Spinner />}
        {keys.data && keys.data.api_keys.length === 0 && <p class="muted">{t('noKey')}</p>}
        {keys.data && keys.data.api_keys.length > 0 && (
          <div class="table-scroll">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{t('name')}</th>
                  <th scope="col">{t('startsWith')}</th>
                  <th scope="col">{t('sites')}</th>
                  <th scope="col">{t('created')}</th>
                  <th scope="col">{t('lastUsed')}</th>
                  <th scope="col">
                    <span class="visually-hidden">{t('actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.api_keys.map((k) => (
                  <KeyRow key={k.id} apiKey={k} sites={sites.data?.sites} onRevoked={keys.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </main>
  );
}
