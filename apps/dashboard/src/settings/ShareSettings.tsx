import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, CopyButton, ErrorNote, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';

type Share = Schema<'Share'>;

const when = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

/**
 * A site's share links (owners): read-only addresses of its dashboard for people without an
 * account, each with a label, an optional password and the choice to show the chart's notes
 * (never who wrote them). Copy, change, revoke; a form for a new one.
 */
export function ShareSettings({ site }: { site: string }) {
  const list = useLoad(
    (signal) => unwrap(api.GET('/api/v1/sites/{site}/shares', { signal, params: { path: { site } } })),
    [site],
  );
  const [label, setLabel] = useState('');
  const [password, setPassword] = useState('');
  const [showNotes, setShowNotes] = useState(false);
  const add = useSubmit(async () => {
    await unwrap(
      api.POST('/api/v1/sites/{site}/shares', {
        params: { path: { site } },
        body: { label: label.trim() || null, password: password || null, show_notes: showNotes },
      }),
    );
    setLabel('');
    setPassword('');
    setShowNotes(false);
    list.reload();
  });
  return (
    <div class="stack">
      <p class="muted">
        A share link opens this site's report, read only, for anyone who has it: no live view, no single
        visitors, no settings.
      </p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.shares.length === 0 && <p>No share link yet.</p>}
      {list.data && list.data.shares.length > 0 && (
        <ul class="share-list">
          {list.data.shares.map((s) => (
            <ShareRow key={s.id} site={site} share={s} onChanged={list.reload} />
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label="New share link">
        <InputField
          label="Label (optional)"
          hint="for you: who the link is for"
          value={label}
          onValue={setLabel}
          maxLength={100}
        />
        <InputField
          label="Password (optional)"
          type="password"
          autocomplete="new-password"
          hint="6 characters at least; people are asked for it before the report opens"
          value={password}
          onValue={setPassword}
          error={add.fieldError('password')}
          maxLength={200}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={showNotes}
            onChange={(e) => setShowNotes(e.currentTarget.checked)}
          />
          <span>Show the chart's notes (never who wrote them)</span>
        </label>
        <ErrorNote error={add.formError('password')} />
        <button class="button primary" type="submit" disabled={add.busy}>
          Create a share link
        </button>
      </form>
    </div>
  );
}

function ShareRow(props: { site: string; share: Share; onChanged: () => void }) {
  const { site, share: s } = props;
  const path = { params: { path: { site, id: s.id } } };
  const [newPassword, setNewPassword] = useState('');
  const [changingPassword, setChangingPassword] = useState(false);
  const patch = async (body: Schema<'ShareRequest'>) => {
    await unwrap(api.PATCH('/api/v1/sites/{site}/shares/{id}', { ...path, body }));
    props.onChanged();
  };
  const notes = useSubmit(() => patch({ show_notes: !s.show_notes }));
  const setPasswordNow = useSubmit(async () => {
    await patch({ password: newPassword });
    setNewPassword('');
    setChangingPassword(false);
  });
  const removePassword = useSubmit(() => patch({ password: null }));
  const revoke = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/sites/{site}/shares/{id}', path));
    props.onChanged();
  });
  const name = s.label ?? 'Share link';
  return (
    <li class="share-item stack">
      <div class="row spread">
        <strong>{name}</strong>
        <span class="muted small">
          {s.has_password ? 'Password' : 'No password'} · {s.show_notes ? 'shows notes' : 'no notes'} · made{' '}
          {when(s.created_at)}
          {s.last_used_at ? ` · opened ${when(s.last_used_at)}` : ' · not opened yet'}
        </span>
      </div>
      {s.url ? (
        <div class="row">
          <code class="share-url">{s.url}</code>
          <CopyButton text={s.url} label="Copy the link" />
        </div>
      ) : (
        <p class="muted">The link was made with another instance key: revoke it and make a new one.</p>
      )}
      <div class="row">
        <label class="check">
          <input
            type="checkbox"
            checked={s.show_notes}
            disabled={notes.busy}
            onChange={() => notes.submit()}
          />
          <span>Show notes</span>
        </label>
        {changingPassword ? (
          <form class="row" onSubmit={setPasswordNow.submit} aria-label={`New password of ${name}`}>
            <InputField
              label="New password"
              type="password"
              autocomplete="new-password"
              value={newPassword}
              onValue={setNewPassword}
              maxLength={200}
            />
            <button class="button small primary" type="submit" disabled={setPasswordNow.busy || !newPassword}>
              Save
            </button>
            <button class="button small secondary" type="button" onClick={() => setChangingPassword(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <button class="button small secondary" type="button" onClick={() => setChangingPassword(true)}>
            {s.has_password ? 'Change the password' : 'Add a password'}
            <span class="visually-hidden"> of {name}</span>
          </button>
        )}
        {s.has_password && !changingPassword && (
          <button
            class="button small secondary"
            type="button"
            disabled={removePassword.busy}
            onClick={() => removePassword.submit()}
          >
            Remove the password<span class="visually-hidden"> of {name}</span>
          </button>
        )}
        <ConfirmAction
          ask="Revoke…"
          askLabel={`Revoke ${name}`}
          confirm="Revoke: the link stops working"
          busy={revoke.busy}
          onConfirm={() => revoke.submit()}
        />
      </div>
      <ErrorNote error={notes.error ?? setPasswordNow.error ?? removePassword.error ?? revoke.error} />
    </li>
  );
}
