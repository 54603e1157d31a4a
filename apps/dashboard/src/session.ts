import { computed, signal } from '@preact/signals';
import { ApiError, api, type Schema, setCsrfToken, unwrap, whenSignedOut } from './api/client.ts';

export type SessionInfo = Schema<'SessionInfo'>;

/** The signed-in person: undefined while it is being asked, null when nobody is signed in. */
export const session = signal<SessionInfo | null | undefined>(undefined);

/** Why the session could not be asked (the service unreachable), shown instead of the app. */
export const sessionError = signal<unknown>(undefined);

/** Whether the person may change the instance (owners); viewers see no settings. */
export const isOwner = computed(() => session.value?.person.role === 'owner');

whenSignedOut(() => {
  setCsrfToken(undefined);
  session.value = null;
});

const HINT = 'footfall_signed_in';

/**
 * Whether this browser may hold a session: the server sets this readable cookie beside the session
 * cookie, which scripts cannot read (apps/query/src/auth/cookies.ts). Without it nobody is signed
 * in, and asking would only log a 401 in the console.
 */
export function maybeSignedIn(): boolean {
  return document.cookie.split(';').some((part) => part.trim() === `${HINT}=1`);
}

/** Asks who is signed in (the session cookie decides). */
export async function loadSession(): Promise<void> {
  if (!maybeSignedIn()) {
    session.value = null;
    return;
  }
  try {
    const info = await unwrap(api.GET('/api/v1/session'), { signIn: true });
    setCsrfToken(info.csrf_token);
    sessionError.value = undefined;
    session.value = info;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
      // the session ended: the hint goes too, so the next page asks nothing
      // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the dashboard supports
      document.cookie = `${HINT}=; path=/; max-age=0; samesite=lax`;
      session.value = null;
      return;
    }
    sessionError.value = e;
  }
}

/** After sign-in or setup: keeps the CSRF token, then reads the whole session. */
export async function startSession(answer: { csrf_token: string }): Promise<void> {
  setCsrfToken(answer.csrf_token);
  await loadSession();
}

export async function signOut(): Promise<void> {
  await unwrap(api.DELETE('/api/v1/session')).catch(() => undefined);
  setCsrfToken(undefined);
  session.value = null;
}
