import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { type Cipher, SealError } from './crypto.ts';
import { replaceDurably } from './durable-file.ts';

/**
 * A file sealed in chunks, for copies too large to seal in memory at once (the analytics
 * database). Layout: the 8 ASCII bytes `FFSEALF1`, then for each chunk its sealed length (u32 LE)
 * and the chunk sealed for 'backup' (crypto.ts, format 1). A chunk's plain bytes start with its
 * index (u32 LE) and a flag (u32 LE, 1 on the last chunk), so that a chunk dropped, repeated,
 * moved or cut off at the end is noticed when the file is opened. An empty file is one last chunk.
 */
const MAGIC = Buffer.from('FFSEALF1');
const CHUNK_BYTES = 8 * 1024 * 1024;
const CHUNK_HEADER = 8;
const LAST = 1;

/** Whether the file at `path` starts like one sealFile wrote. */
export function isSealedFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const magic = Buffer.alloc(MAGIC.length);
    return readFully(fd, magic, 0, magic.length) === magic.length && magic.equals(MAGIC);
  } finally {
    closeSync(fd);
  }
}

/** Seals the file at `source` into `target` (temp file, fsync, rename, fsync the directory). */
export function sealFile(source: string, target: string, cipher: Cipher): void {
  const input = openSync(source, 'r');
  try {
    const size = fstatSync(input).size;
    const chunks = Math.max(1, Math.ceil(size / CHUNK_BYTES));
    replaceDurably(target, (out) => {
      writeSync(out, MAGIC);
      const plain = Buffer.alloc(CHUNK_HEADER + CHUNK_BYTES);
      for (let index = 0; index < chunks; index++) {
        const length = readFully(
          input,
          plain,
          CHUNK_HEADER,
          Math.min(CHUNK_BYTES, size - index * CHUNK_BYTES),
        );
        plain.writeUInt32LE(index, 0);
        plain.writeUInt32LE(index === chunks - 1 ? LAST : 0, 4);
        const sealed = cipher.seal(plain.subarray(0, CHUNK_HEADER + length), 'backup');
        const head = Buffer.alloc(4);
        head.writeUInt32LE(sealed.length, 0);
        writeSync(out, head);
        writeSync(out, sealed);
      }
    });
  } finally {
    closeSync(input);
  }
}

/**
 * Opens a file written by sealFile into `target` (durably, as sealFile writes). Throws SealError
 * ('other-key', 'damaged', ...) and writes nothing when any chunk fails to open or is out of place.
 */
export function unsealFile(source: string, target: string, cipher: Cipher): void {
  const input = openSync(source, 'r');
  try {
    const magic = Buffer.alloc(MAGIC.length);
    if (readFully(input, magic, 0, magic.length) !== magic.length || !magic.equals(MAGIC)) {
      throw new SealError('unknown-version', 'not a sealed file (FFSEALF1)');
    }
    replaceDurably(target, (out) => {
      const head = Buffer.alloc(4);
      for (let index = 0; ; index++) {
        const got = readFully(input, head, 0, 4);
        if (got === 0)
          throw new SealError('damaged', `sealed file ends before its last chunk (${index} read)`);
        if (got < 4) throw new SealError('damaged', 'sealed file is cut short');
        const sealed = Buffer.alloc(head.readUInt32LE(0));
        if (readFully(input, sealed, 0, sealed.length) < sealed.length) {
          throw new SealError('damaged', 'sealed file is cut short');
        }
        const plain = cipher.open(sealed, 'backup');
        if (plain.length < CHUNK_HEADER || plain.readUInt32LE(0) !== index) {
          throw new SealError('damaged', `chunk ${index} of the sealed file is out of place`);
        }
        writeSync(out, plain.subarray(CHUNK_HEADER));
        if (plain.readUInt32LE(4) === LAST) break;
      }
      if (readFully(input, head, 0, 1) !== 0) throw new SealError('damaged', 'bytes after the last chunk');
    });
  } finally {
    closeSync(input);
  }
}

/** Reads up to `length` bytes into `buffer` at `offset`; fewer only at the end of the file. */
function readFully(fd: number, buffer: Buffer, offset: number, length: number): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, offset + done, length - done, null);
    if (n === 0) break;
    done += n;
  }
  return done;
}
