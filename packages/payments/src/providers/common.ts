import { loadUndici } from '@footfall/http';
import type { fetch } from 'undici';
import { ProviderError } from './types.ts';

/**
 * An API key as pasted: surrounding and inner white space, and the quotes a copy from a `.env`
 * file or a JSON snippet brings, removed. Keys never contain either.
 */
export function cleanApiKey(pasted: string): string {
  return pasted.replace(/[\s"'`\u201c\u201d\u2018\u2019]/g, '');
}

/** Object keys that carry a payer's personal data in any provider's payloads (compared lower-case). */
const PERSONAL_KEYS = new Set([
  'email',
  'customer_email',
  'user_email',
  'receipt_email',
  'billing_email',
  'name',
  'customer_name',
  'user_name',
  'first_name',
  'last_name',
  'phone',
  'address',
  'billing_address',
  'billing_details',
  'shipping',
  'shipping_address',
  'shipping_details',
  'customer_details',
  'ip_address',
  'tax_id',
  'tax_ids',
  'footfall_vid',
]);

/**
 * A deep copy of a JSON value without the keys that carry personal data: the generic ones above
 * and `extra` (a provider's customer and subscription id fields, for example). Amounts, currencies,
 * times and the ids of payments, refunds and disputes stay.
 */
export function redactPersonal(value: unknown, extra: readonly string[] = []): unknown {
  const drop = new Set([...PERSONAL_KEYS, ...extra.map((k) => k.toLowerCase())]);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) if (!drop.has(k.toLowerCase())) out[k] = walk(inner);
    return out;
  };
  return walk(value);
}

/** The keys an e-mail address is found under in any provider's payloads (compared lower-case). */
const EMAIL_KEYS = new Set(['email', 'customer_email', 'user_email', 'receipt_email', 'billing_email']);

/**
 * The first e-mail address a payload holds under one of EMAIL_KEYS, depth first, or undefined: the
 * payer of an event that moves no money, so erasing them finds its stored payload too.
 */
export function emailIn(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const inner of value) {
      const found = emailIn(inner);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, inner] of Object.entries(value)) {
    if (EMAIL_KEYS.has(k.toLowerCase()) && typeof inner === 'string' && inner.includes('@')) return inner;
  }
  for (const inner of Object.values(value)) {
    const found = emailIn(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A JSON object's field when the value is one, else undefined: for reading payloads defensively. */
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && /^-?\d+$/.test(v)
      ? Number(v)
      : undefined;

/** How long a provider API call may take before the provider counts as unreachable. */
export const PROVIDER_TIMEOUT_MS = 15_000;

/** A ProviderError for a network failure or timeout: the provider could not be reached. */
export function unreachable(provider: string, cause?: unknown): ProviderError {
  const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return new ProviderError({
    reason: 'unreachable',
    message: `${provider} could not be reached${detail}; try again later`,
  });
}

/** A ProviderError for a key the provider refused. */
export function keyRejected(provider: string): ProviderError {
  return new ProviderError({
    reason: 'key_rejected',
    message: `${provider} did not accept this API key: check that it was copied whole and is not revoked`,
  });
}

/** A ProviderError for a key without a permission Footfall needs, naming it as the provider does. */
export function missingPermission(provider: string, permission: string): ProviderError {
  return new ProviderError({
    reason: 'missing_permission',
    permission,
    message: `the ${provider} API key lacks the permission "${permission}"; add it to the key (or create one with it) and paste it again`,
  });
}

/** A provider's JSON answer: its status and its body when that is a JSON object. */
export interface JsonAnswer {
  status: number;
  ok: boolean;
  json: Record<string, unknown> | undefined;
}

/**
 * One call to a provider's JSON API with the shared timeout. A network failure or timeout throws
 * `unreachable`; any HTTP answer comes back for the adapter to read in its provider's terms.
 */
export async function fetchJson(
  provider: string,
  url: string,
  init: { method: 'GET' | 'POST' | 'DELETE'; headers: Record<string, string>; body?: unknown },
): Promise<JsonAnswer> {
  let res: Awaited<ReturnType<typeof fetch>>;
  let text: string;
  try {
    // undici loads with the first call to a provider
    const { fetch } = await loadUndici();
    res = await fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body === undefined ? null : JSON.stringify(init.body),
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    text = await res.text();
  } catch (error) {
    throw unreachable(provider, error);
  }
  let json: Record<string, unknown> | undefined;
  try {
    json = text === '' ? {} : obj(JSON.parse(text));
  } catch {
    json = undefined;
  }
  return { status: res.status, ok: res.ok, json };
}

/** What a provider's error body says: its own code and words, and whether it names the key. */
export interface Refusal {
  detail: string;
  code?: string | undefined;
  keyRejected?: boolean;
}

/**
 * The body of a provider's answer, or the ProviderError its status says: 401 (or an error the
 * provider names as a key error) the key is not accepted; 403 a permission is missing; 5xx, 429
 * or an answer without the provider's error body, unreachable; anything else refused in the
 * provider's own words. `refusal` reads the error body in the provider's terms.
 */
export function answerOf(
  provider: string,
  res: JsonAnswer,
  permission: string,
  refusal: (json: Record<string, unknown>) => Refusal | undefined,
): Record<string, unknown> {
  if (res.ok && res.json) return res.json;
  const refused = res.json ? refusal(res.json) : undefined;
  if (res.status === 401 || refused?.keyRejected) throw keyRejected(provider);
  if (res.status === 403) throw missingPermission(provider, permission);
  if (res.status >= 500 || res.status === 429 || refused === undefined) {
    throw unreachable(provider, new Error(`HTTP ${res.status}`));
  }
  throw new ProviderError({
    reason: 'unreachable',
    message: `${provider} refused the request (${refused.code || res.status}): ${refused.detail || 'no detail'}`,
  });
}

/** An RFC 3339 time as unix ms, when it is one between 2000 and 2100. */
export const isoMs = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isFinite(t) && t >= Date.UTC(2000, 0, 1) && t < Date.UTC(2100, 0, 1) ? t : undefined;
};

/** An ISO 4217 code in capitals, whichever case the provider writes it in. */
export const currencyCode = (c: unknown): string | undefined => {
  const code = str(c)?.toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : undefined;
};

/** An amount in minor units (a number or a string of digits), when it is a safe non-negative integer. */
export const minorUnits = (v: unknown): number | undefined => {
  const n = num(v);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/** An id (a string, or a number as JSON:API ids and some providers write them) of sane length. */
export const idOf = (v: unknown): string | undefined => {
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : str(v);
  return s && s.length <= 200 ? s : undefined;
};

/** The objects of a JSON array (anything else is skipped). */
export const objects = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map(obj).filter((o) => o !== undefined) : [];
