import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ErrorNote, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/auth.ts';
import { loadSession, session } from '../session.ts';
import { AuthFrame } from './AuthFrame.tsx';

/** A generated password (from an owner or `footfall admin`) is replaced before anything else. */
export function NewPasswordScreen() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const form = useSubmit(async () => {
    await unwrap(
      api.PUT('/api/v1/account/password', { body: { current_password: current, new_password: next } }),
    );
    await loadSession();
  });
  return (
    <AuthFrame title={t('chooseOwnPassword')}>
      <p>{t('replaceGiven')}</p>
      <form onSubmit={form.submit}>
        <InputField
          label={t('givenPassword')}
          error={form.fieldError('current_password')}
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onValue={setCurrent}
        />
        <InputField
          label={t('newPassword')}
          hint={t('passwordLength')}
          error={form.fieldError('new_password')}
          type="password"
          autocomplete="new-password"
          minLength={10}
          required
          value={next}
          onValue={setNext}
        />
        <ErrorNote error={form.formError('current_password', 'new_password')} />
        <button class="button" type="submit" disabled={form.busy}>
          {t('saveAndContinue')}
        </button>
      </form>
      <p class="muted">{t('signedInAs', { email: session.value?.person.email ?? '' })}</p>
    </AuthFrame>
  );
}
