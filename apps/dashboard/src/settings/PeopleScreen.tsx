import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/account.ts';
import { session } from '../session.ts';
import { SettingsNav } from './SettingsNav.tsx';
import { SiteAccess } from './SiteAccess.tsx';

type Role = Schema<'Person'>['role'];

function PersonRow(props: { person: Schema<'Person'>; onChanged: () => void }) {
  const p = props.person;
  const self = p.id === session.value?.person.id;
  const change = useSubmit(async () => {
    await unwrap(
      api.PATCH('/api/v1/people/{id}', {
        params: { path: { id: p.id } },
        body: { role: p.role === 'owner' ? 'viewer' : 'owner' },
      }),
    );
    props.onChanged();
  });
  const remove = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/people/{id}', { params: { path: { id: p.id } } }));
    props.onChanged();
  });
  return (
    <tr>
      <td>
        {p.email}
        {self && <span class="muted"> {t('you')}</span>}
      </td>
      <td>{p.role === 'owner' ? t('owner') : t('viewer')}</td>
      <td>{p.two_step ? t('on') : t('off')}</td>
      <td>
        {!self && (
          <div class="row">
            <button
              type="button"
              class="button secondary small"
              disabled={change.busy}
              onClick={() => change.submit()}
            >
              {p.role === 'owner' ? t('makeViewer') : t('makeOwner')}
              <span class="visually-hidden"> ({p.email})</span>
            </button>
            <ConfirmAction
              ask={
                <>
                  {t('remove')}
                  <span class="visually-hidden"> ({p.email})</span>
                </>
              }
              confirm={t('removePerson', { email: p.email })}
              busy={remove.busy}
              onConfirm={() => remove.submit()}
            />
          </div>
        )}
        <ErrorNote error={change.error ?? remove.error} />
      </td>
    </tr>
  );
}

function AddPerson(props: { onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [created, setCreated] = useState<Schema<'PersonCreated'>>();
  const add = useSubmit(async () => {
    setCreated(await unwrap(api.POST('/api/v1/people', { body: { email: email.trim(), role } })));
    setEmail('');
    props.onAdded();
  });
  return (
    <section class="section">
      <h2>{t('addPerson')}</h2>
      {created?.password && (
        <ShownOnce
          secret={created.password}
          copyLabel={t('copyPassword')}
          onDone={() => setCreated(undefined)}
        >
          {t.rich('givePassword', { email: <strong>{created.person.email}</strong> })}
        </ShownOnce>
      )}
      <form class="row align-end" onSubmit={add.submit}>
        <InputField
          label={t('email')}
          error={add.fieldError('email')}
          type="email"
          required
          value={email}
          onValue={setEmail}
        />
        <Field label={t('role')}>
          {(id) => (
            <select id={id} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              <option value="viewer">{t('roleViewer')}</option>
              <option value="owner">{t('roleOwner')}</option>
            </select>
          )}
        </Field>
        <button type="submit" class="button" disabled={add.busy}>
          {t('add')}
        </button>
      </form>
      <ErrorNote error={add.formError('email')} />
    </section>
  );
}

/** Everyone with an account, their role, and which sites each viewer sees. */
export function PeopleScreen() {
  const data = useLoad(
    (signal) =>
      Promise.all([
        unwrap(api.GET('/api/v1/people', { signal })),
        unwrap(api.GET('/api/v1/site-access', { signal })),
        unwrap(api.GET('/api/v1/sites', { signal })),
      ]),
    [],
  );
  const [people, access, sites] = data.data ?? [];
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>{t('settings')}</h1>
      <SettingsNav />
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {people && access && sites && (
        <>
          <section class="section">
            <h2>{t('people')}</h2>
            <div class="table-scroll">
              <table class="data">
                <thead>
                  <tr>
                    <th scope="col">{t('email')}</th>
                    <th scope="col">{t('role')}</th>
                    <th scope="col">{t('twoStep')}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t('actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {people.people.map((p) => (
                    <PersonRow key={`${p.id}${p.role}`} person={p} onChanged={data.reload} />
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <AddPerson onAdded={data.reload} />
          {access.viewers.length > 0 && (
            <section class="section">
              <h2>{t('sitesOfViewers')}</h2>
              {access.viewers.map((v) => (
                <SiteAccess key={v.person_id} access={v} sites={sites.sites} />
              ))}
            </section>
          )}
        </>
      )}
    </main>
  );
}
