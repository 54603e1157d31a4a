import createClient, { createFinalURL, createQuerySerializer, defaultPathSerializer } from 'openapi-fetch';
import { t } from '../i18n/common.ts';
import type { components, paths } from './schema.d.ts';

/** The schemas of docs/openapi.yaml, by name: `Schema<'Site'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** What a failed call says: the API's error code and message, and the status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | undefined;
let shareCredential: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** On a shared dashboard: the link's credential, sent as the bearer of every call. */
export function setShareCredential(credential: string | undefined): void {
  shareCredential = credential;
}

/** The session's CSRF token, sent on every state-changing call. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when a call answers 401: the session has ended. */
export function whenSignedOut(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * The one API client, typed from docs/openapi.yaml (scripts/build.ts generates the types), so the
 * dashboard cannot call a path or send a field the API does not document.
 */
export const api = createClient<paths>({ baseUrl: '' });

api.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('X-Footfall-CSRF', csrfToken);
    if (shareCredential) request.headers.set('Authorization', `Bearer ${shareCredential}`);
    return request;
  },
});

type GetPath = { [P in keyof paths]: paths[P] extends { get: unknown } ? P : never }[keyof paths];
type GetParams<P extends GetPath> = paths[P] extends { get: { parameters: infer Q } } ? Q : never;
const serializeQuery = createQuerySerializer();

/**
 * The URL of a documented GET, for what the browser fetches itself (a CSV download link, the live
 * EventSource), typed like the client's calls.
 */
export function urlFor<P extends GetPath>(
  path: P,
  params: {
    path: GetParams<P>['path' & keyof GetParams<P>];
    query?: GetParams<P>['query' & keyof GetParams<P>];
  },
): string {
  const p = params as { path?: Record<string, unknown>; query?: Record<string, unknown> };
  return createFinalURL(path, {
    baseUrl: '',
    params: { path: p.path, query: p.query },
    querySerializer: serializeQuery,
    pathSerializer: defaultPathSerializer,
  });
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * The data of a call, or an ApiError with the API's own message. A 401 outside the sign-in calls
 * means the session is over: the app goes back to the sign-in screen.
 */
export async function unwrap<T>(call: Promise<Answer<T>>, options: { signIn?: boolean } = {}): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', t('unreachable'));
  }
  const { response } = answer;
  if (response.ok) return answer.data as T;
  const body = (answer.error ?? {}) as { code?: string; message?: string; field?: string };
  if (response.status === 401 && !options.signIn) onUnauthorized?.();
  const retry = Number(response.headers.get('retry-after')) || undefined;
  throw new ApiError(
    response.status,
    body.code ?? 'error',
    explain(response.status, body.message, retry),
    body.field,
    retry,
  );
}

function explain(status: number, message: string | undefined, retry: number | undefined): string {
  const text = message ?? t('serverAnswered', { status: String(status) });
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  if (status === 429 && retry) return t('retryIn', { sentence, seconds: retry });
  return sentence;
}
