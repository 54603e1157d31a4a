import { crc32c } from '@node-rs/crc32';

/**
 * The on-disk byte layout of a WAL stream. Pure functions only: no I/O here, so the format can be
 * read (and tested) on its own. README.md describes the same layout in prose; keep them in step.
 */

/** Every segment starts with this 16-byte header: the magic, then the first seq (u64 LE). */
export const SEGMENT_MAGIC = new TextEncoder().encode('FFWALv01');
export const SEGMENT_HEADER_BYTES = 16;

/** crc u32 | length u32 | seq u64 | flags u32, all little-endian, then the payload. */
export const RECORD_HEADER_BYTES = 20;

/** Set on the first record of every write batch (one write + one fsync): see recover.ts. */
export const FLAG_BATCH_START = 1;
const KNOWN_FLAGS = FLAG_BATCH_START;

/**
 * Largest payload one record may carry. Far above what the gateway writes (an event is a few KB);
 * it exists so a garbage length field can be told from a real one.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export const SEGMENT_SUFFIX = '.seg';
const SEQ_DIGITS = 20; // 2^64 - 1 has 20 decimal digits, so names sort as numbers

/** `00000000000000000001.seg` for a segment whose first record has seq 1. */
export function segmentName(firstSeq: bigint): string {
  return firstSeq.toString().padStart(SEQ_DIGITS, '0') + SEGMENT_SUFFIX;
}

/** The first seq encoded in a segment file name, or null when the name is not a segment's. */
export function parseSegmentName(name: string): bigint | null {
  const match = /^(\d{20})\.seg$/.exec(name);
  if (!match?.[1]) return null;
  const seq = BigInt(match[1]);
  return seq >= 1n ? seq : null;
}

export function encodeSegmentHeader(firstSeq: bigint): Uint8Array {
  const out = new Uint8Array(SEGMENT_HEADER_BYTES);
  out.set(SEGMENT_MAGIC, 0);
  new DataView(out.buffer).setBigUint64(8, firstSeq, true);
  return out;
}

/** The first seq stored in a segment header, or null when the bytes are not a valid header. */
export function decodeSegmentHeader(bytes: Uint8Array): bigint | null {
  if (bytes.length < SEGMENT_HEADER_BYTES) return null;
  for (let i = 0; i < SEGMENT_MAGIC.length; i++) if (bytes[i] !== SEGMENT_MAGIC[i]) return null;
  return new DataView(bytes.buffer, bytes.byteOffset, SEGMENT_HEADER_BYTES).getBigUint64(8, true);
}

/** Bytes a record with this payload occupies on disk. */
export function recordSize(payloadBytes: number): number {
  return RECORD_HEADER_BYTES + payloadBytes;
}

/** A record's payload: bytes, or text that is written as UTF-8. */
export type Payload = Uint8Array | string;

/** The payload's length in bytes. */
export function payloadBytes(payload: Payload): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
}

/**
 * Writes one record into `out` at `at` and returns the offset just past it; `length` is the
 * payload's byte length (payloadBytes). A text payload is encoded straight into `out`, with no
 * buffer of its own. The CRC covers every byte after the CRC field: length, seq, flags and
 * payload, so a damaged length is caught too.
 */
export function writeRecord(
  out: Buffer,
  at: number,
  seq: bigint,
  flags: number,
  payload: Payload,
  length: number,
): number {
  out.writeUInt32LE(length, at + 4);
  out.writeBigUInt64LE(seq, at + 8);
  out.writeUInt32LE(flags, at + 16);
  const start = at + RECORD_HEADER_BYTES;
  if (typeof payload === 'string') {
    if (out.write(payload, start, length, 'utf8') !== length) throw new RangeError('payload length mismatch');
  } else out.set(payload, start);
  const end = start + length;
  out.writeUInt32LE(crc32c(out.subarray(at + 4, end)), at);
  return end;
}

/** One record as a standalone byte array (tests use it to fake a crash between write and fsync). */
export function encodeRecord(seq: bigint, payload: Payload, flags = FLAG_BATCH_START): Uint8Array {
  const length = payloadBytes(payload);
  const out = Buffer.alloc(recordSize(length));
  writeRecord(out, 0, seq, flags, payload, length);
  return out;
}

export interface RecordHeader {
  crc: number;
  length: number;
  seq: bigint;
  flags: number;
}

/** Reads the fixed header at `at`; `bytes` must hold at least RECORD_HEADER_BYTES from there. */
export function readRecordHeader(bytes: Uint8Array, at: number): RecordHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, RECORD_HEADER_BYTES);
  return {
    crc: view.getUint32(0, true),
    length: view.getUint32(4, true),
    seq: view.getBigUint64(8, true),
    flags: view.getUint32(16, true),
  };
}

/** A header whose fields could belong to a real record (cheap checks before computing a CRC). */
export function isPlausibleHeader(header: RecordHeader): boolean {
  return header.length <= MAX_PAYLOAD_BYTES && (header.flags & ~KNOWN_FLAGS) === 0 && header.seq >= 1n;
}

/** Whether the record at `at` (header and whole payload inside `bytes`) has a matching CRC. */
export function crcMatches(bytes: Uint8Array, at: number, header: RecordHeader): boolean {
  const end = at + RECORD_HEADER_BYTES + header.length;
  return end <= bytes.length && crc32c(bytes.subarray(at + 4, end)) === header.crc;
}
