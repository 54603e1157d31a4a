import {
  crcMatches,
  FLAG_BATCH_START,
  isPlausibleHeader,
  MAX_PAYLOAD_BYTES,
  RECORD_HEADER_BYTES,
  readRecordHeader,
} from './format.ts';
import type { ByteWindow } from './segments.ts';

/** What lies at one offset of a segment. */
export type ScanResult =
  | { kind: 'record'; seq: bigint; flags: number; payload: Uint8Array; size: number }
  | { kind: 'end' }
  | { kind: 'bad'; reason: string };

/**
 * Reads the record starting at `offset`. 'end' means no bytes at all there, or zero bytes only
 * where a record header would be: the zero-filled space the writer keeps ahead of its last record
 * (no real record has seq 0); whether data follows such zeros is the caller's concern. Any partial,
 * oversized or CRC-failing record is 'bad' with a reason. Whether 'bad' is a torn tail or
 * corruption is the caller's call: it depends on what is known about durability (see recover.ts
 * and reader.ts).
 */
export async function scanRecord(window: ByteWindow, offset: number): Promise<ScanResult> {
  const head = await window.get(offset, RECORD_HEADER_BYTES);
  if (isZero(head)) return { kind: 'end' };
  if (head.length < RECORD_HEADER_BYTES) return { kind: 'bad', reason: 'record header is cut short' };
  const header = readRecordHeader(head, 0);
  if (!isPlausibleHeader(header)) return { kind: 'bad', reason: 'record header is not valid' };
  const whole = await window.get(offset, RECORD_HEADER_BYTES + header.length);
  if (whole.length < RECORD_HEADER_BYTES + header.length)
    return { kind: 'bad', reason: 'record is cut short' };
  if (!crcMatches(whole, 0, header)) return { kind: 'bad', reason: 'record CRC-32C does not match' };
  return {
    kind: 'record',
    seq: header.seq,
    flags: header.flags,
    payload: whole.slice(RECORD_HEADER_BYTES),
    size: RECORD_HEADER_BYTES + header.length,
  };
}

/**
 * Looks in `tail` (the bytes after a bad record) for the start of a later write batch: a valid
 * record flagged FLAG_BATCH_START with a seq at or above `fromSeq`. The writer starts a batch only
 * after the previous one's fsync finished, so finding one proves the bad record was durable, i.e.
 * real corruption rather than a torn write. Returns its offset within `tail`, or -1.
 */
export function findLaterBatchStart(tail: Uint8Array, fromSeq: bigint): number {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  // Each record takes at least a header, which bounds how far seqs can run in these bytes.
  const maxSeq = fromSeq + BigInt(Math.floor(tail.length / RECORD_HEADER_BYTES));
  for (let p = 1; p + RECORD_HEADER_BYTES <= tail.length; p++) {
    if (view.getUint32(p + 16, true) !== FLAG_BATCH_START) continue;
    const length = view.getUint32(p + 4, true);
    if (length > MAX_PAYLOAD_BYTES || p + RECORD_HEADER_BYTES + length > tail.length) continue;
    const seq = view.getBigUint64(p + 8, true);
    if (seq < fromSeq || seq > maxSeq) continue;
    if (crcMatches(tail, p, readRecordHeader(tail, p))) return p;
  }
  return -1;
}

/** Whether every byte is 0 (compared a word at a time where the bytes allow it). */
export function isZero(bytes: Uint8Array): boolean {
  const words = bytes.byteOffset % 4 === 0 ? bytes.length >>> 2 : 0;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < words; i++) if (view[i] !== 0) return false;
  }
  for (let i = words * 4; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
