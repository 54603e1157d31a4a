import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with node's built-in scrypt (memory-hard, no native dependency), at one of
 * OWASP's settings: N = 2^15, r = 8, p = 3 (32 MiB per hash: the p lanes run one after another in
 * the same memory). The parameters are stored in the hash, so they can be raised without breaking
 * existing passwords: a hash made with others (earlier installs used p = 1) is made again at the next
 * sign-in (`hashIsCurrent`).
 *
 * Format: `scrypt$<log2 N>$<r>$<p>$<salt base64url>$<hash base64url>`
 */
const LOG2N = 15;
const R = 8;
const P = 3;
const KEYLEN = 32;

/** Shortest and longest password accepted. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

function derive(password: string, salt: Buffer, log2n: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2n;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEYLEN, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Hashes a password (runs on libuv's thread pool, not the event loop). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG2N, R, P);
  return `scrypt$${LOG2N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether a stored hash was made with today's parameters (else it is made again at sign-in). */
export function hashIsCurrent(stored: string): boolean {
  return stored.startsWith(`scrypt$${LOG2N}$${R}$${P}$`);
}

/** Checks a password against a stored hash in constant time; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([\w-]+)\$([\w-]+)$/.exec(stored);
  if (!m) return false;
  const [log2n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (log2n > 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const key = await derive(password, Buffer.from(m[4]!, 'base64url'), log2n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash that matches no password: checked for unknown e-mails so that timing does not tell them apart. */
export const DUMMY_HASH = `scrypt$${LOG2N}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEYLEN).toString('base64url')}`;

/** A generated password (for `footfall admin` and new people): 20 characters, 120 bits. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return undefined;
}
