import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client.ts';
import { ErrorNote, InputField } from '../components/ui.tsx';
import { useSubmit } from '../components/use-submit.ts';
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
    <AuthFrame title="Choose your own password">
      <p>You signed in with a password someone else was given. Replace it with one only you know.</p>
      <form onSubmit={form.submit}>
        <InputField
          label="The password you were given"
          error={form.fieldError('current_password')}
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onValue={setCurrent}
        />
        <InputField
          label="New password"
          hint="10 characters or more."
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
          Save and continue
        </button>
      </form>
      <p class="muted">Signed in as {session.value?.person.email}</p>
    </AuthFrame>
  );
}
