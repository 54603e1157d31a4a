import { useState } from 'preact/hooks';
import { ApiError, api, unwrap } from '../api/client.ts';
import { ErrorNote, Field, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/account.ts';
import {
  browserLanguage,
  chooseLanguage,
  chosenLanguage,
  LANGUAGES,
  type Language,
} from '../i18n/language.ts';
import { session } from '../session.ts';
import { EmailReports } from './EmailReports.tsx';
import { TwoStep } from './TwoStep.tsx';

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const change = useSubmit(async () => {
    setDone(false);
    if (next !== repeat) throw new ApiError(400, 'invalid_body', t('passwordsDiffer'), 'repeat');
    await unwrap(
      api.PUT('/api/v1/account/password', { body: { current_password: current, new_password: next } }),
    );
    setCurrent('');
    setNext('');
    setRepeat('');
    setDone(true);
  });
  return (
    <form class="form-narrow" onSubmit={change.submit}>
      <InputField
        label={t('currentPassword')}
        error={change.fieldError('current_password')}
        type="password"
        autocomplete="current-password"
        required
        value={current}
        onValue={setCurrent}
      />
      <InputField
        label={t('newPassword')}
        hint={t('passwordLength')}
        error={change.fieldError('new_password')}
        type="password"
        autocomplete="new-password"
        minLength={10}
        required
        value={next}
        onValue={setNext}
      />
      <InputField
        label={t('newPasswordAgain')}
        error={change.fieldError('repeat')}
        type="password"
        autocomplete="new-password"
        required
        value={repeat}
        onValue={setRepeat}
      />
      <ErrorNote error={change.formError('current_password', 'new_password', 'repeat')} />
      {done && <p role="status">{t('passwordChanged')}</p>}
      <button class="button" type="submit" disabled={change.busy}>
        {t('changePassword')}
      </button>
    </form>
  );
}

/**
 * The dashboard's language in this browser: the browser's own (named, so it is clear what that
 * is) or one chosen; each written in its own language. Choosing reloads the page in it.
 */
function LanguageChoice() {
  return (
    <div class="form-narrow">
      <Field label={t('languageLabel')} hint={t('languageHint')}>
        {(id, describedBy) => (
          <select
            id={id}
            aria-describedby={describedBy}
            value={chosenLanguage() ?? 'browser'}
            onChange={(e) => chooseLanguage(e.currentTarget.value as Language | 'browser')}
          >
            <option value="browser">{t('browserLanguage', { name: LANGUAGES[browserLanguage()] })}</option>
            {Object.entries(LANGUAGES).map(([code, name]) => (
              <option key={code} value={code} lang={code}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

/** The signed-in person's own account: password, two-step, e-mail reports and the dashboard's language. */
export function AccountScreen() {
  const person = session.value?.person;
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>{t('yourAccount')}</h1>
      <p class="muted">
        {person?.email} · {person?.role === 'owner' ? t('owner') : t('viewer')}
      </p>
      <section class="section card">
        <h2>{t('password')}</h2>
        <PasswordForm />
      </section>
      <section class="section card">
        <h2>{t('twoStepSignIn')}</h2>
        <TwoStep />
      </section>
      <section class="section card">
        <h2>{t('emailReports')}</h2>
        <EmailReports />
      </section>
      <section class="section card">
        <h2>{t('language')}</h2>
        <LanguageChoice />
      </section>
    </main>
  );
}
