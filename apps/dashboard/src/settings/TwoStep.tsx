import { useState } from 'preact/hooks';
import { api, type Schema, unwrap } from '../api/client.ts';
import { CopyButton, ErrorNote, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { t } from '../i18n/account.ts';
import { loadSession, session } from '../session.ts';
import { QrCode } from './QrCode.tsx';

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div class="card notice-card stack" role="status">
      <p>{t.rich('recoveryCodesIntro', { on: <strong>{t('twoStepNowOn')}</strong> })}</p>
      <ol class="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div class="row">
        <CopyButton text={codes.join('\n')} label={t('copyCodes')} />
        <button type="button" class="button secondary" onClick={onDone}>
          {t('keptThem')}
        </button>
      </div>
    </div>
  );
}

/**
 * Two-step sign-in: set up an authenticator (password, then scan and confirm a code), see the
 * recovery codes once, set up a new phone, or turn it off (password and a code).
 */
export function TwoStep() {
  const on = !!session.value?.person.two_step;
  const left = session.value?.recovery_codes_left;
  const [password, setPassword] = useState('');
  const [current, setCurrent] = useState('');
  const [code, setCode] = useState('');
  const [pending, setPending] = useState<Schema<'TwoStepSetup'>>();
  const [codes, setCodes] = useState<string[]>();
  const [action, setAction] = useState<'setup' | 'off' | null>(null);
  const start = useSubmit(async () => {
    setPending(
      await unwrap(
        api.POST('/api/v1/account/two-step/setup', {
          body: { password, ...(on ? { code: current.trim() } : {}) },
        }),
      ),
    );
    setPassword('');
    setCurrent('');
  });
  const confirm = useSubmit(async () => {
    const answer = await unwrap(
      api.POST('/api/v1/account/two-step/confirm', { body: { code: code.trim() } }),
    );
    setCodes(answer.recovery_codes);
    setPending(undefined);
    setCode('');
    setAction(null);
    await loadSession();
  });
  const off = useSubmit(async () => {
    await unwrap(api.DELETE('/api/v1/account/two-step', { body: { password, code: current.trim() } }));
    setPassword('');
    setCurrent('');
    setAction(null);
    await loadSession();
  });
  if (codes) return <RecoveryCodes codes={codes} onDone={() => setCodes(undefined)} />;
  if (pending) {
    return (
      <form class="stack" onSubmit={confirm.submit}>
        <p>{t('scanCode')}</p>
        <QrCode text={pending.otpauth_uri} label={t('qrCodeLabel')} />
        <p>
          {t.rich('keyIs', {
            key: <code class="secret">{pending.secret.replace(/(.{4})/g, '$1 ').trim()}</code>,
          })}
        </p>
        <InputField
          label={t('codeFromApp')}
          error={confirm.fieldError('code')}
          autocomplete="one-time-code"
          inputMode="numeric"
          required
          value={code}
          onValue={setCode}
        />
        <ErrorNote error={confirm.formError('code')} />
        <div class="row">
          <button class="button" type="submit" disabled={confirm.busy}>
            {t('turnOn')}
          </button>
          <button class="button secondary" type="button" onClick={() => setPending(undefined)}>
            {t('cancel')}
          </button>
        </div>
      </form>
    );
  }
  const form = action === 'off' ? off : start;
  return (
    <div class="stack">
      <p>
        {on ? (
          <>
            {t.rich('twoStepIsOn', { on: <strong>{t('stateOn')}</strong> })}{' '}
            {left !== null && left !== undefined && t('recoveryCodesLeft', { count: left })}
          </>
        ) : (
          t('twoStepIsOff')
        )}
      </p>
      {action === null ? (
        <div class="row">
          <button type="button" class="button" onClick={() => setAction('setup')}>
            {on ? t('setUpNewPhone') : t('setUpTwoStep')}
          </button>
          {on && (
            <button type="button" class="button secondary" onClick={() => setAction('off')}>
              {t('turnOff')}
            </button>
          )}
        </div>
      ) : (
        <form class="form-narrow" onSubmit={form.submit}>
          <InputField
            label={t('yourPassword')}
            error={form.fieldError('password')}
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onValue={setPassword}
          />
          {on && (
            <InputField
              label={t('codeOrRecovery')}
              error={form.fieldError('code')}
              autocomplete="one-time-code"
              required
              value={current}
              onValue={setCurrent}
            />
          )}
          <ErrorNote error={form.formError('password', 'code')} />
          <div class="row">
            <button class={action === 'off' ? 'button danger' : 'button'} type="submit" disabled={form.busy}>
              {action === 'off' ? t('turnOff') : t('continue')}
            </button>
            <button class="button secondary" type="button" onClick={() => setAction(null)}>
              {t('cancel')}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
