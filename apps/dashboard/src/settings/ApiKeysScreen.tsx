import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { ago } from '../site/time.ts';
import { SettingsNav } from './SettingsNav.tsx';
import { SitesChooser } from './SitesChooser.tsx';

/** The sites a key reads, as the list says it. */
function keySites(k: Schema<'ApiKey'>, sites: Schema<'Site'>[] | undefined): string {
  if (k.sites === null) return 'Every site';
  if (k.sites.length === 0) return 'None (its sites were deleted)';
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
      <td>{new Date(k.created_at).toLocaleDateString('en-GB', { dateStyle: 'medium' })}</td>
      <td>{k.last_used_at ? ago(k.last_used_at) : 'never'}</td>
      <td>
        <span class="row">
          <ConfirmAction
            ask="Revoke…"
            askLabel={`Revoke the key ${k.name}…`}
            confirm={`Revoke ${k.name}`}
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
      <h1>Settings</h1>
      <SettingsNav />
      <section class="section">
        <h2>API keys</h2>
        <p class="muted">
          A key reads through /api/v1 and the MCP server (/mcp) every site, or only the sites you choose. It
          cannot change anything.
        </p>
        {created && (
          <ShownOnce secret={created.key} copyLabel="Copy the key" onDone={() => setCreated(undefined)}>
            <strong>{created.api_key.name}</strong>: copy the key now. It is not shown again.
          </ShownOnce>
        )}
        <form class="stack" onSubmit={create.submit}>
          <InputField
            label="Name of a new key"
            error={create.fieldError('name')}
            required
            maxLength={100}
            placeholder="Reporting script"
            value={name}
            onValue={setName}
          />
          {sites.data && sites.data.sites.length > 1 && (
            <SitesChooser
              name="new-key-sites"
              legend="Sites the new key reads"
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
              Create the key
            </button>
          </div>
        </form>
        <ErrorNote error={create.formError('name')} />
        <ErrorNote error={keys.error} />
        {!keys.data && !keys.error && <Spinner />}
        {keys.data && keys.data.api_keys.length === 0 && <p class="muted">No key yet.</p>}
        {keys.data && keys.data.api_keys.length > 0 && (
          <div class="table-scroll">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Starts with</th>
                  <th scope="col">Sites</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
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
