import { useLayoutEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** loads again (after a change) */
  reload: () => void;
}

/**
 * Loads data for a view and loads it again when `keys` change; a load that is no longer wanted is
 * aborted (its request cancelled, so the server stops working on it too). The request starts as
 * soon as the component is in the page, not after the next frame is painted: a screen's requests
 * chain (session, then site, then report), and each frame's wait would add up.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, keys: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [round, setRound] = useState(0);
  useLayoutEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => controller.abort();
  }, [...keys, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}
