import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
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

/**
 * The same format as sealFile, as a stream: bytes in, sealed file out, for data whose size is not
 * known in advance (a backup archive). It holds one chunk in memory (8 MiB), so memory stays flat
 * however much passes through; the last chunk is sealed, flagged as last, when the input ends.
 */
export function sealStream(cipher: Cipher): Transform {
  let index = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const emit = (stream: Transform, plain: Buffer, last: boolean) => {
    const header = Buffer.alloc(CHUNK_HEADER);
    header.writeUInt32LE(index++, 0);
    header.writeUInt32LE(last ? LAST : 0, 4);
    const sealed = cipher.seal(Buffer.concat([header, plain]), 'backup');
    const head = Buffer.alloc(4);
    head.writeUInt32LE(sealed.length, 0);
    stream.push(head);
    stream.push(sealed);
  };
  return new Transform({
    construct(callback) {
      this.push(MAGIC);
      callback();
    },
    transform(data: Buffer, _encoding, callback: TransformCallback) {
      pending.push(data);
      pendingBytes += data.length;
      // a full chunk goes out only once more follows it, so the last one can be flagged
      while (pendingBytes > CHUNK_BYTES) {
        const all = Buffer.concat(pending);
        emit(this, all.subarray(0, CHUNK_BYTES), false);
        pending = [all.subarray(CHUNK_BYTES)];
        pendingBytes = all.length - CHUNK_BYTES;
      }
      callback();
    },
    flush(callback: TransformCallback) {
      emit(this, Buffer.concat(pending), true);
      pending = [];
      callback();
    },
  });
}

/**
 * Opens a sealed file as a stream (sealStream's or sealFile's output in, the plain bytes out).
 * Each chunk is checked before any of its bytes go out; a chunk that fails to open, is out of
 * place, or is missing at the end makes the stream fail with SealError, so a reader that writes
 * as it goes must throw away what it wrote when the stream fails.
 */
export function unsealStream(cipher: Cipher): Transform {
  // the input arrives in small pieces: they are joined once a whole chunk is there, not on each
  // piece, so opening costs one copy per chunk
  let pieces: Buffer[] = [];
  let size = 0;
  const joined = (): Buffer => {
    if (pieces.length !== 1) pieces = [Buffer.concat(pieces, size)];
    return pieces[0] as Buffer;
  };
  const drop = (n: number) => {
    pieces = [joined().subarray(n)];
    size -= n;
  };
  let magicSeen = false;
  let index = 0;
  let ended = false;
  return new Transform({
    transform(data: Buffer, _encoding, callback: TransformCallback) {
      pieces.push(data);
      size += data.length;
      try {
        if (!magicSeen) {
          if (size < MAGIC.length) return callback();
          if (!joined().subarray(0, MAGIC.length).equals(MAGIC)) {
            throw new SealError('unknown-version', 'not a sealed file (FFSEALF1)');
          }
          magicSeen = true;
          drop(MAGIC.length);
        }
        while (size >= 4) {
          if (ended) throw new SealError('damaged', 'bytes after the last chunk');
          const first = (pieces[0] as Buffer).length >= 4 ? (pieces[0] as Buffer) : joined();
          const length = first.readUInt32LE(0);
          if (length > CHUNK_BYTES + CHUNK_HEADER + 64)
            throw new SealError('damaged', `chunk ${index} is too long`);
          if (size < 4 + length) break;
          const plain = cipher.open(joined().subarray(4, 4 + length), 'backup');
          drop(4 + length);
          if (plain.length < CHUNK_HEADER || plain.readUInt32LE(0) !== index) {
            throw new SealError('damaged', `chunk ${index} of the sealed file is out of place`);
          }
          index++;
          if (plain.readUInt32LE(4) === LAST) ended = true;
          this.push(plain.subarray(CHUNK_HEADER));
        }
        if (ended && size > 0) throw new SealError('damaged', 'bytes after the last chunk');
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      if (!magicSeen) return callback(new SealError('unknown-version', 'not a sealed file (FFSEALF1)'));
      if (!ended || size > 0) {
        return callback(new SealError('damaged', `sealed file ends before its last chunk (${index} read)`));
      }
      callback();
    },
  });
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
