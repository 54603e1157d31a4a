import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { ConfirmAction, CopyButton, ErrorNote, InputField, Spinner } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/connections.ts';
import { formatDate as when } from '../i18n/format.ts';

type Share = Schema<'Share'>;

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
      <p class="muted">{t('sharesIntro')}</p>
      <ErrorNote error={list.error} />
      {!list.data && !list.error && <Spinner />}
      {list.data && list.data.shares.length === 0 && <p>{t('noShareLink')}</p>}
      {list.data && list.data.shares.length > 0 && (
        <ul class="share-list">
          {list.data.shares.map((s) => (
            <ShareRow key={s.id} site={site} share={s} onChanged={list.reload} />
          ))}
        </ul>
      )}
      <form class="form-narrow" onSubmit={add.submit} aria-label={t('newShareLink')}>
        <InputField
          label={t('labelOptional')}
          hint={t('labelHint')}
          value={label}
          onValue={setLabel}
          maxLength={100}
        />
        <InputField
          label={t('passwordOptional')}
          type="password"
          autocomplete="new-password"
          hint={t('passwordHint')}
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
          <span>{t('showChartNotes')}</span>
        </label>
        <ErrorNote error={add.formError('password')} />
        <button class="button primary" type="submit" disabled={add.busy}>
          {t('createShareLink')}
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
  const name = s.label ?? t('shareLink');
  return (
    <li class="share-item stack">
      <div class="row spread">
        <strong>{name}</strong>
        <span class="muted small">
          {s.has_password ? t('password') : t('noPassword')} · {s.show_notes ? t('showsNotes') : t('noNotes')}{' '}
          · {t('made', { date: when(s.created_at) })} ·{' '}
          {s.last_used_at ? t('opened', { date: when(s.last_used_at) }) : t('notOpenedYet')}
        </span>
      </div>
      {s.url ? (
        <div class="row">
          <code class="share-url">{s.url}</code>
          <CopyButton text={s.url} label={t('copyLink')} />
        </div>
      ) : (
        <p class="muted">{t('otherInstanceKey')}</p>
      )}
      <div class="row">
        <label class="check">
          <input
            type="checkbox"
            checked={s.show_notes}
            disabled={notes.busy}
            onChange={() => notes.submit()}
          />
          <span>{t('showNotes')}</span>
        </label>
        {changingPassword ? (
          <form class="row" onSubmit={setPasswordNow.submit} aria-label={t('newPasswordOf', { name })}>
            <InputField
              label={t('newPassword')}
              type="password"
              autocomplete="new-password"
              value={newPassword}
              onValue={setNewPassword}
              maxLength={200}
            />
            <button class="button small primary" type="submit" disabled={setPasswordNow.busy || !newPassword}>
              {t('save')}
            </button>
            <button class="button small secondary" type="button" onClick={() => setChangingPassword(false)}>
              {t('cancel')}
            </button>
          </form>
        ) : (
          <button
            class="button small secondary"
            type="button"
            aria-label={s.has_password ? t('changePasswordOf', { name }) : t('addPasswordOf', { name })}
            onClick={() => setChangingPassword(true)}
          >
            {s.has_password ? t('changePassword') : t('addPassword')}
          </button>
        )}
        {s.has_password && !changingPassword && (
          <button
            class="button small secondary"
            type="button"
            disabled={removePassword.busy}
            aria-label={t('removePasswordOf', { name })}
            onClick={() => removePassword.submit()}
          >
            {t('removePassword')}
          </button>
        )}
        <ConfirmAction
          ask={t('revokeAsk')}
          askLabel={t('revokeName', { name })}
          confirm={t('revokeConfirm')}
          busy={revoke.busy}
          onConfirm={() => revoke.submit()}
        />
      </div>
      <ErrorNote error={notes.error ?? setPasswordNow.error ?? removePassword.error ?? revoke.error} />
    </li>
  );
}
