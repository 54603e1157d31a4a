import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, InputField } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
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
      <h1>Settings</h1>
      <SettingsNav />
      <section class="section">
        <h2>Data requests</h2>
        <p class="muted">
          When someone asks what Footfall holds about them, or to erase it: visits carry no e-mail address or
          name, so what can name a person is in the payment webhooks stored for revenue. Look the address up
          first; nothing changes until you erase.
        </p>
        <form class="stack" onSubmit={find.submit}>
          <InputField
            label="The person's e-mail address"
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
              Look up
            </button>
          </div>
        </form>
        <ErrorNote error={find.formError('email')} />
        {found && (
          <div class="card notice-card data-found" role="status">
            <p>{found.answer.message}</p>
            {found.answer.sites.length > 0 && (
              <p class="muted">Sites: {found.answer.sites.map(domain).join(', ')}</p>
            )}
            {found.answer.payloads > 0 && (
              <div class="row">
                <ConfirmAction
                  ask="Erase…"
                  askLabel={`Erase what is held about ${found.email}…`}
                  confirm={`Erase the data of ${found.email}`}
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
            {erased.sites.length > 0 && <p class="muted">Sites: {erased.sites.map(domain).join(', ')}</p>}
          </div>
        )}
      </section>
    </main>
  );
}
