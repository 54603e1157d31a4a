import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Sealing with the instance key (FOOTFALL_SECRET or data/secret.key). Every purpose gets its own
 * AES-256-GCM key, derived with HKDF-SHA256 from the instance secret, so a two-step secret can never
 * be opened as a backup or the other way round.
 *
 * Sealed format, version 1 (binary; `sealText` writes it as `v1.<base64url>`):
 *
 *     0x01 | key id (4 bytes) | IV (12 bytes) | GCM tag (16 bytes) | ciphertext
 *
 * The key id is the start of an HMAC of the derived key: it tells "sealed with another instance
 * key" apart from "damaged" without revealing anything about the key.
 */
export const SEAL_VERSION = 1;
const HEADER = 1 + 4 + 12 + 16;

/** What a sealed value is for; part of the key derivation. */
export type SealPurpose = 'two-step' | 'backup' | 'provider-secret' | (string & {});

/** Thrown when a sealed value cannot be opened. */
export class SealError extends Error {
  constructor(
    readonly reason: 'other-key' | 'damaged' | 'unknown-version',
    message: string,
  ) {
    super(message);
    this.name = 'SealError';
  }
}

/** Seals and opens values with keys derived from the instance secret. */
export interface Cipher {
  seal(plain: Uint8Array, purpose: SealPurpose): Buffer;
  open(sealed: Uint8Array, purpose: SealPurpose): Buffer;
  /** seals UTF-8 text as `v1.<base64url>` for a TEXT column */
  sealText(plain: string, purpose: SealPurpose): string;
  openText(sealed: string, purpose: SealPurpose): string;
  /**
   * A keyed hash (HMAC-SHA256, hex) of `text`: the same text gives the same hash on this instance
   * only, so a stored hash of an e-mail cannot be reversed by hashing a list of addresses.
   */
  keyedHash(text: string, purpose: SealPurpose): string;
}

/**
 * Builds the cipher of one instance key.
 *
 * @example
 * const cipher = createCipher(instance.secret);
 * const stored = cipher.sealText(totpSecret, 'two-step');
 * cipher.openText(stored, 'two-step') === totpSecret;
 */
export function createCipher(secret: string): Cipher {
  const keys = new Map<string, { key: Buffer; id: Buffer }>();
  const keyFor = (purpose: string) => {
    let k = keys.get(purpose);
    if (k === undefined) {
      const key = Buffer.from(
        hkdfSync('sha256', secret, 'footfall-instance-key', `footfall/${purpose}/v1`, 32),
      );
      const id = createHmac('sha256', key).update('key-id').digest().subarray(0, 4);
      k = { key, id };
      keys.set(purpose, k);
    }
    return k;
  };
  const seal = (plain: Uint8Array, purpose: SealPurpose): Buffer => {
    const { key, id } = keyFor(purpose);
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    c.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([c.update(plain), c.final()]);
    return Buffer.concat([Buffer.from([SEAL_VERSION]), id, iv, c.getAuthTag(), body]);
  };
  const open = (sealed: Uint8Array, purpose: SealPurpose): Buffer => {
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (buf.length < HEADER) throw new SealError('damaged', 'sealed value is too short');
    if (buf[0] !== SEAL_VERSION) throw new SealError('unknown-version', `unknown sealed format ${buf[0]}`);
    const { key, id } = keyFor(purpose);
    if (!buf.subarray(1, 5).equals(id)) {
      throw new SealError('other-key', 'sealed with another instance key (FOOTFALL_SECRET changed?)');
    }
    const d = createDecipheriv('aes-256-gcm', key, buf.subarray(5, 17));
    d.setAAD(Buffer.from(purpose));
    d.setAuthTag(buf.subarray(17, HEADER));
    try {
      return Buffer.concat([d.update(buf.subarray(HEADER)), d.final()]);
    } catch {
      throw new SealError('damaged', 'sealed value is damaged');
    }
  };
  return {
    seal,
    open,
    keyedHash: (text, purpose) =>
      createHmac('sha256', keyFor(`${purpose}/hash`).key)
        .update(text)
        .digest('hex'),
    sealText: (plain, purpose) => `v1.${seal(Buffer.from(plain, 'utf8'), purpose).toString('base64url')}`,
    openText: (sealed, purpose) => {
      if (!sealed.startsWith('v1.')) throw new SealError('unknown-version', 'unknown sealed text format');
      return open(Buffer.from(sealed.slice(3), 'base64url'), purpose).toString('utf8');
    },
  };
}
