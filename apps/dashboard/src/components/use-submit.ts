import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';

/**
 * A form's submission: one at a time, with the API's error kept to show. `fieldError(name)` is
 * the message when the API named that field, so it can sit under the field itself.
 */
export function useSubmit(action: () => Promise<void>) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (name: string) =>
    error instanceof ApiError && error.field === name ? error.message : undefined;
  /** the error when it belongs to none of these fields (shown once, under the form) */
  const formError = (...fields: string[]) => (fields.some((f) => fieldError(f)) ? undefined : error);
  return { error, busy, submit, fieldError, formError, clear: () => setError(undefined) };
}
