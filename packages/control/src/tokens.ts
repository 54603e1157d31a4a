import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const ID_ALPHABET = 'abcdefghijkmnopqrstuvwxyz23456789';

/** A short, url-safe random id (no look-alike characters): site ids, person ids, key ids. */
export function randomId(length = 10): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return out;
}

/** A random secret token (256 bits, base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex of a high-entropy secret: what is stored for session tokens and API keys. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two strings in constant time (through their digests, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
