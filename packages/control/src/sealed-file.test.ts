import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import { createCipher, SealError } from './crypto.ts';
import { isSealedFile, sealFile, sealStream, unsealFile, unsealStream } from './sealed-file.ts';

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

/** `bytes` through `transform`, fed in pieces of `piece` bytes. */
const through = (bytes: Buffer, transform: NodeJS.ReadWriteStream, piece = 65_521) => {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += piece) pieces.push(bytes.subarray(at, at + piece));
  return buffer(Readable.from(pieces).pipe(transform));
};

describe('sealed streams', () => {
  it('write the format sealFile reads, and read what sealFile writes, in one chunk or several', async () => {
    const dir = temp();
    for (const size of [0, 1000, 8 * 1024 * 1024, 17 * 1024 * 1024 + 5]) {
      const plain = content(size);
      const sealed = await through(plain, sealStream(cipher));
      expect(chunksOf(sealed)).toHaveLength(Math.max(1, Math.ceil(size / (8 * 1024 * 1024))));
      writeFileSync(join(dir, 'streamed.sealed'), sealed);
      unsealFile(join(dir, 'streamed.sealed'), join(dir, 'back'), cipher);
      expect(readFileSync(join(dir, 'back')).equals(plain)).toBe(true);
      writeFileSync(join(dir, 'plain'), plain);
      sealFile(join(dir, 'plain'), join(dir, 'filed.sealed'), cipher);
      const opened = await through(readFileSync(join(dir, 'filed.sealed')), unsealStream(cipher), 4097);
      expect(opened.equals(plain)).toBe(true);
    }
  });

  it('fail on a changed byte, a dropped or repeated chunk, a cut end, extra bytes and another key', async () => {
    const plain = content(17 * 1024 * 1024);
    const sealed = await through(plain, sealStream(cipher));
    const [first, second, third] = chunksOf(sealed) as [[number, number], [number, number], [number, number]];
    const flipped = Buffer.from(sealed);
    flipped[second[0] + 100] = (flipped[second[0] + 100] ?? 0) ^ 1;
    const dropped = Buffer.concat([sealed.subarray(0, second[0]), sealed.subarray(third[0])]);
    const repeated = Buffer.concat([
      sealed.subarray(0, second[0]),
      sealed.subarray(first[0], second[0]),
      sealed.subarray(second[0]),
    ]);
    const cut = sealed.subarray(0, third[0]);
    const extra = Buffer.concat([sealed, Buffer.from([0, 0, 0, 0])]);
    for (const bad of [flipped, dropped, repeated, cut, extra]) {
      const error = await through(bad, unsealStream(cipher)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SealError);
      expect((error as SealError).reason).toBe('damaged');
    }
    const other = await through(sealed, unsealStream(createCipher('y'.repeat(43)))).catch((e: unknown) => e);
    expect((other as SealError).reason).toBe('other-key');
    const junk = await through(Buffer.from('not sealed at all'), unsealStream(cipher)).catch(
      (e: unknown) => e,
    );
    expect((junk as SealError).reason).toBe('unknown-version');
  });
});
