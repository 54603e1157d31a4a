import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { lazyScreen } from '../components/lazy.tsx';
import { ErrorNote, Field } from '../components/ui.tsx';
import { useLoad } from '../components/use-load.ts';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/auth.ts';
import { navigate, query } from '../router.ts';
import { startSession } from '../session.ts';
import { AuthFrame } from './AuthFrame.tsx';

/** Why a single sign-on was refused: its own small file, fetched only after one was. */
const SsoRefusal = lazyScreen<{ code: string }>(() => import('./SsoRefusal.tsx'), 'SsoRefusal');

/**
 * Sign-in with the OpenID provider when one is set up, or with a password, then a code when
 * two-step is on. With single sign-on only, the password form is folded away: it is the
 * break-glass owner's.
 */
export function SignInScreen() {
  const methods = useLoad((signal) => unwrap(api.GET('/api/v1/session/methods', { signal })), []);
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
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/';
  const done = () => navigate(target, { replace: true });
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
  const sso = methods.data?.single_sign_on;
  const ssoError = query.value.get('sso_error');
  const passwordForm = (
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
  );
  if (methods.loading && !methods.data) return <AuthFrame title={t('signIn')}>{null}</AuthFrame>;
  return (
    <AuthFrame title={t('signIn')}>
      {ssoError && <SsoRefusal code={ssoError} />}
      {sso && (
        <a class="button sso-button" href={`${sso.start_url}?next=${encodeURIComponent(target)}`}>
          {t('ssoWith', { name: sso.name })}
        </a>
      )}
      {sso && methods.data?.passwords === false ? (
        <details class="break-glass">
          <summary>{t('breakGlass')}</summary>
          {passwordForm}
        </details>
      ) : (
        <>
          {sso && <p class="sso-or">{t('orPassword')}</p>}
          {passwordForm}
        </>
      )}
    </AuthFrame>
  );
}
