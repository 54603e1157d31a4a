import { COOKIELESS } from './config.ts';
import { off } from './state.ts';

/** localStorage key of the send queue (cookie mode only). */
export const QUEUE_KEY = 'footfall_q';
const COOKIE = 'footfall_vid';
// Cached for the page, so a browser refusing cookies still sends one id per page.
let vid = '';

/**
 * A random url-safe id of `words` x 32 bits: each word is written in base 36 after adding 2^32,
 * so every word is exactly 7 characters ([0-9a-z]) and the id is 7 x `words` long.
 */
export const randomId = (words: number): string =>
  Array.from(crypto.getRandomValues(new Uint32Array(words)), (word) => (2 ** 32 + word).toString(36)).join(
    '',
  );

/**
 * The visitor id from the `footfall_vid` cookie, created on first use. The cookie lives one year
 * from its creation and is not refreshed on later visits (a fixed lifetime, within the 13 months
 * regulators accept for audience measurement). Nothing in cookieless mode or without consent.
 */
export const visitorId = (): string | undefined => {
  if (COOKIELESS || off) return;
  if (!vid) {
    const found = document.cookie.match(/footfall_vid=([\w-]{8,64})/);
    vid = found ? found[1]! : randomId(4);
    if (!found) {
      // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is async and missing in older Safari
      document.cookie = `${COOKIE}=${vid};max-age=31536000;path=/;samesite=lax${location.protocol === 'https:' ? ';secure' : ''}`;
    }
  }
  return vid;
};

/**
 * `localStorage[key]`, after setting it to `value` when one is given; undefined when storage is
 * blocked (a sandboxed frame, privacy settings: then nothing is remembered past the page).
 */
export const stored = (key: string, value?: string): string | undefined => {
  try {
    if (value) localStorage[key] = value;
    return localStorage[key];
  } catch {
    // storage blocked
  }
};

/** Forgets everything the tracker keeps in the browser: the cookie, the stored queue, the cached id. */
export const forget = (): void => {
  vid = '';
  // biome-ignore lint/suspicious/noDocumentCookie: as above
  document.cookie = `${COOKIE}=;max-age=0;path=/`;
  try {
    delete localStorage[QUEUE_KEY];
  } catch {
    // storage blocked (sandboxed frame, privacy settings): there is nothing to remove
  }
};
