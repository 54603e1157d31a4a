import { useState } from 'preact/hooks';
import { ApiError, api, unwrap } from '../api/client.ts';
import { ErrorNote, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
import { session } from '../session.ts';
import { TwoStep } from './TwoStep.tsx';

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const change = useSubmit(async () => {
    setDone(false);
    if (next !== repeat) throw new ApiError(400, 'invalid_body', 'The two new passwords differ.', 'repeat');
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
        label="Current password"
        error={change.fieldError('current_password')}
        type="password"
        autocomplete="current-password"
        required
        value={current}
        onValue={setCurrent}
      />
      <InputField
        label="New password"
        hint="10 characters or more."
        error={change.fieldError('new_password')}
        type="password"
        autocomplete="new-password"
        minLength={10}
        required
        value={next}
        onValue={setNext}
      />
      <InputField
        label="New password again"
        error={change.fieldError('repeat')}
        type="password"
        autocomplete="new-password"
        required
        value={repeat}
        onValue={setRepeat}
      />
      <ErrorNote error={change.formError('current_password', 'new_password', 'repeat')} />
      {done && <p role="status">Your password is changed. Your other sessions are signed out.</p>}
      <button class="button" type="submit" disabled={change.busy}>
        Change the password
      </button>
    </form>
  );
}

/** The signed-in person's own account: password and two-step. */
export function AccountScreen() {
  const person = session.value?.person;
  return (
    <main class="page" id="main" tabIndex={-1}>
      <h1>Your account</h1>
      <p class="muted">
        {person?.email} · {person?.role === 'owner' ? 'Owner' : 'Viewer'}
      </p>
      <section class="section card">
        <h2>Password</h2>
        <PasswordForm />
      </section>
      <section class="section card">
        <h2>Two-step sign-in</h2>
        <TwoStep />
      </section>
    </main>
  );
}
