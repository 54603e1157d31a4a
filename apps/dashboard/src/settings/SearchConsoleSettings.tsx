import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

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
      <p class="muted">
        With Search Console, the AI &amp; search panel marks the pages search engines send people to that no
        AI robot read ("Not read").
      </p>
      <ErrorNote error={state.error} />
      {!state.data && !state.error && <Spinner />}
      {c && (
        <div class="stack">
          <p>
            Connected to <strong>{c.property}</strong> as <code>{c.client_email}</code>.{' '}
            {c.synced_at ? `Clicks pulled ${when(c.synced_at)}.` : ''}
          </p>
          {c.last_error && (
            <p class="notice" role="status">
              The last pull failed ({when(c.last_error.at)}): {c.last_error.message}
            </p>
          )}
          <div class="row">
            <ConfirmAction
              ask="Disconnect…"
              confirm="Disconnect: the key and the clicks are deleted"
              busy={disconnect.busy}
              onConfirm={() => disconnect.submit()}
            />
          </div>
          <ErrorNote error={disconnect.error} />
        </div>
      )}
      {state.data && !c && (
        <form class="form-narrow" onSubmit={connect.submit} aria-label="Connect Search Console">
          <InputField
            label="Property"
            hint="sc-domain:example.com, or a URL prefix such as https://example.com/"
            value={property}
            onValue={setProperty}
            maxLength={300}
            error={connect.fieldError('property')}
          />
          <Field
            label="Service account key (JSON)"
            hint="Create a service account in Google Cloud, download its JSON key and paste it here; add its address as a user of the property in Search Console. The key is stored encrypted and never shown again."
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
            {connect.busy ? 'Connecting…' : 'Connect'}
          </button>
        </form>
      )}
    </div>
  );
}
