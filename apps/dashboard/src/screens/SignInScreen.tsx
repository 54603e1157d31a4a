import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ErrorNote, Field } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/auth.ts';
import { navigate, query } from '../router.ts';
import { startSession } from '../session.ts';
import { AuthFrame } from './AuthFrame.tsx';

/** Sign-in with a password, then a code when two-step is on. */
export function SignInScreen() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string>();
  const [code, setCode] = useState('');
  const codeInput = useRef<HTMLInputElement>(null);
  // the code field appears in place of the password: it takes the focus, so typing goes on there
  useEffect(() => {
    if (challenge) codeInput.current?.focus();
  }, [challenge]);
  const next = query.value.get('next');
  const done = () =>
    navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
  const passwordStep = useSubmit(async () => {
    const answer = await unwrap(api.POST('/api/v1/session', { body: { email, password } }), { signIn: true });
    if ('two_step_required' in answer) return setChallenge(answer.challenge);
    await startSession(answer);
    done();
  });
  const codeStep = useSubmit(async () => {
    if (!challenge) return;
    const answer = await unwrap(
      api.POST('/api/v1/session/two-step', { body: { challenge, code: code.trim() } }),
      { signIn: true },
    );
    await startSession(answer);
    done();
  });
  if (challenge) {
    return (
      <AuthFrame title={t('twoStepSignIn')}>
        <form onSubmit={codeStep.submit}>
          <Field label={t('code')} hint={t('codeHint')}>
            {(id, d) => (
              <input
                id={id}
                aria-describedby={d}
                autocomplete="one-time-code"
                inputMode="text"
                required
                ref={codeInput}
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
            )}
          </Field>
          <ErrorNote error={codeStep.error} />
          <button class="button" type="submit" disabled={codeStep.busy}>
            {t('signIn')}
          </button>
        </form>
      </AuthFrame>
    );
  }
  return (
    <AuthFrame title={t('signIn')}>
      <form onSubmit={passwordStep.submit}>
        <Field label={t('email')}>
          {(id) => (
            <input
              id={id}
              type="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label={t('password')}>
          {(id) => (
            <input
              id={id}
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNote error={passwordStep.error} />
        <button class="button" type="submit" disabled={passwordStep.busy}>
          {t('signIn')}
        </button>
      </form>
    </AuthFrame>
  );
}
