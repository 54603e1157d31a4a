import { useState } from 'preact/hooks';
import { ApiError, api, unwrap } from '../api/client.ts';
import { ErrorNote, InputField, Link } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/auth.ts';
import { navigate, query } from '../router.ts';
import { startSession } from '../session.ts';
import { AuthFrame } from './AuthFrame.tsx';

/** The printed setup link: creates the first owner, then signs them in. */
export function SetupScreen() {
  const token = query.value.get('token') ?? '';
  const state = useLoad((signal) => unwrap(api.GET('/api/v1/setup', { signal })), []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const form = useSubmit(async () => {
    if (password !== repeat) throw new ApiError(400, 'invalid_body', t('passwordsDiffer'), 'repeat');
    const answer = await unwrap(api.POST('/api/v1/setup', { body: { token, email, password } }), {
      signIn: true,
    });
    await startSession(answer);
    navigate('/sites/new');
  });
  if (state.data && !state.data.needed) {
    return (
      <AuthFrame title={t('isSetUp')}>
        <p>{t('ownerExists')}</p>
        <Link class="button" href="/login">
          {t('signIn')}
        </Link>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title={t('createFirstOwner')}>
      {!token && <p class="error">{t('openSetupLink')}</p>}
      <form onSubmit={form.submit}>
        <InputField
          label={t('email')}
          error={form.fieldError('email')}
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
        />
        <InputField
          label={t('password')}
          hint={t('passwordLength')}
          error={form.fieldError('password')}
          type="password"
          autocomplete="new-password"
          minLength={10}
          required
          value={password}
          onValue={setPassword}
        />
        <InputField
          label={t('passwordAgain')}
          error={form.fieldError('repeat')}
          type="password"
          autocomplete="new-password"
          required
          value={repeat}
          onValue={setRepeat}
        />
        <ErrorNote error={form.formError('email', 'password', 'repeat')} />
        <button class="button" type="submit" disabled={form.busy || !token}>
          {t('createOwner')}
        </button>
      </form>
    </AuthFrame>
  );
}
