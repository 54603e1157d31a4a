import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCipher, SealError } from './crypto.ts';
import { isSealedFile, sealFile, unsealFile } from './sealed-file.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ff-sealed-'));
  dirs.push(dir);
  return dir;
};
const cipher = createCipher('x'.repeat(43));
/** bytes that differ from chunk to chunk, so a swapped chunk would give different bytes */
function content(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 20)) % 251;
  return bytes;
}

/** The sealed file's chunks: [offset, length] of each length prefix plus its sealed bytes. */
function chunksOf(sealed: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (let at = 8; at < sealed.length; ) {
    const length = 4 + sealed.readUInt32LE(at);
    out.push([at, length]);
    at += length;
  }
  return out;
}

describe('sealed files', () => {
  it('gives back the same bytes, for an empty file, a small one and one of several chunks', () => {
    const dir = temp();
    for (const size of [0, 1000, 8 * 1024 * 1024, 17 * 1024 * 1024 + 5]) {
      const plain = content(size);
      writeFileSync(join(dir, 'db'), plain);
      sealFile(join(dir, 'db'), join(dir, 'db.sealed'), cipher);
      expect(isSealedFile(join(dir, 'db.sealed'))).toBe(true);
      const sealed = readFileSync(join(dir, 'db.sealed'));
      expect(sealed.includes(plain.subarray(0, Math.min(size, 64)))).toBe(size === 0);
      rmSync(join(dir, 'back'), { force: true });
      unsealFile(join(dir, 'db.sealed'), join(dir, 'back'), cipher);
      expect(readFileSync(join(dir, 'back')).equals(plain)).toBe(true);
    }
    expect(isSealedFile(join(dir, 'db'))).toBe(false);
  });

  it('refuses a copy with a chunk missing, moved or cut off, or sealed with another key, and writes nothing', () => {
    const dir = temp();
    writeFileSync(join(dir, 'db'), content(20 * 1024 * 1024)); // three chunks
    sealFile(join(dir, 'db'), join(dir, 'db.sealed'), cipher);
    const sealed = readFileSync(join(dir, 'db.sealed'));
    const [a, b, c] = chunksOf(sealed).map(([at, length]) => sealed.subarray(at, at + length));
    const head = sealed.subarray(0, 8);
    const variants: [string, Buffer, RegExp][] = [
      ['last chunk dropped', Buffer.concat([head, a!, b!]), /ends before its last chunk/],
      ['middle chunk dropped', Buffer.concat([head, a!, c!]), /out of place/],
      ['chunks swapped', Buffer.concat([head, b!, a!, c!]), /out of place/],
      ['cut inside a chunk', sealed.subarray(0, sealed.length - 10), /cut short/],
      ['bytes appended', Buffer.concat([sealed, Buffer.from([1, 2, 3])]), /after the last chunk/],
    ];
    for (const [what, bytes, message] of variants) {
      writeFileSync(join(dir, 'bad.sealed'), bytes);
      expect(() => unsealFile(join(dir, 'bad.sealed'), join(dir, 'out'), cipher), what).toThrow(message);
      expect(existsSync(join(dir, 'out')), what).toBe(false);
    }
    const other = createCipher('y'.repeat(43));
    const error = (() => {
      try {
        unsealFile(join(dir, 'db.sealed'), join(dir, 'out'), other);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SealError);
    expect(error).toMatchObject({ reason: 'other-key' });
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});
