import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, ErrorNote, Field, InputField, ShownOnce, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
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
        {self && <span class="muted"> (you)</span>}
      </td>
      <td>{p.role === 'owner' ? 'Owner' : 'Viewer'}</td>
      <td>{p.two_step ? 'On' : 'Off'}</td>
      <td>
        {!self && (
          <div class="row">
            <button
              type="button"
              class="button secondary small"
              disabled={change.busy}
              onClick={() => change.submit()}
            >
              Make {p.role === 'owner' ? 'a viewer' : 'an owner'}
              <span class="visually-hidden"> ({p.email})</span>
            </button>
            <ConfirmAction
              ask={
                <>
                  Remove…<span class="visually-hidden"> ({p.email})</span>
                </>
              }
              confirm={`Remove ${p.email}`}
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
      <h2>Add a person</h2>
      {created?.password && (
        <ShownOnce
          secret={created.password}
          copyLabel="Copy the password"
          onDone={() => setCreated(undefined)}
        >
          Give <strong>{created.person.email}</strong> this password. They choose their own when they first
          sign in; it is not shown again.
        </ShownOnce>
      )}
      <form class="row align-end" onSubmit={add.submit}>
        <InputField
          label="E-mail"
          error={add.fieldError('email')}
          type="email"
          required
          value={email}
          onValue={setEmail}
        />
        <Field label="Role">
          {(id) => (
            <select id={id} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              <option value="viewer">Viewer: reads reports</option>
              <option value="owner">Owner: can change everything</option>
            </select>
          )}
        </Field>
        <button type="submit" class="button" disabled={add.busy}>
          Add
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
      <h1>Settings</h1>
      <SettingsNav />
      <ErrorNote error={data.error} />
      {!data.data && !data.error && <Spinner />}
      {people && access && sites && (
        <>
          <section class="section">
            <h2>People</h2>
            <div class="table-scroll">
              <table class="data">
                <thead>
                  <tr>
                    <th scope="col">E-mail</th>
                    <th scope="col">Role</th>
                    <th scope="col">Two-step</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
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
              <h2>Sites of each viewer</h2>
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
