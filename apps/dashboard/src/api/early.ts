/**
 * Requests started before the screen that needs them exists: when the app opens on a site's page,
 * `main.tsx` asks for the site and its status at once, side by side with the session, instead of
 * one after the other. The screen then takes the answer (once) instead of asking again.
 */
const started = new Map<string, Promise<unknown>>();

export function startEarly(key: string, load: () => Promise<unknown>): void {
  const promise = load();
  promise.catch(() => undefined); // a screen that takes it sees the error; nobody else must
  started.set(key, promise);
}

/** The answer started early for `key`, or a new request. */
export function early<T>(key: string, load: () => Promise<T>): Promise<T> {
  const promise = started.get(key);
  if (!promise) return load();
  started.delete(key);
  return promise as Promise<T>;
}
