import { open, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalCorruptionError } from './errors.ts';
import {
  encodeRecord,
  FLAG_BATCH_START,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
  segmentName,
} from './format.ts';
import { encodeMark, MARK_FILE } from './mark.ts';
import { payloads, utf8, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

const SEG1 = segmentName(1n);

/** Byte offset of record `seq` in a first segment of "rN" records (seq 1..9: 2-byte payloads). */
const offsetOf = (seq: number): number => SEGMENT_HEADER_BYTES + (seq - 1) * (RECORD_HEADER_BYTES + 2);

/** What a power loss can leave: the mark file's last write never reached the disk. */
const rewindMark = (dir: string, seq: bigint) => writeFile(join(dir, MARK_FILE), encodeMark(seq));

/** Writes `bytes` into the first segment at `at`, as a write the crash interrupted would have. */
async function writeAt(dir: string, at: number, bytes: Uint8Array): Promise<void> {
  const handle = await open(join(dir, SEG1), 'r+');
  try {
    await handle.write(bytes, 0, bytes.length, at);
  } finally {
    await handle.close();
  }
}

/** `keep` bytes of `bytes` without their trailing zeros: what a cut reports as the torn write. */
function withoutTrailingZeros(bytes: Uint8Array, keep: number): number {
  let end = keep;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return end;
}

// The writer keeps zero-filled space after its last record (the default) or, with fillBytes 0,
// extends the file with every batch. Recovery must read both alike.
const LAYOUTS = [
  { layout: 'zero-filled segments', fillBytes: undefined },
  { layout: 'segments without zero fill', fillBytes: 0 },
];

describe.each(LAYOUTS)('opening a writer on a stream with a damaged end ($layout)', ({ fillBytes }) => {
  const openWriter = (dir: string) => openWalWriter({ dir, fillBytes });

  /** A stream with records "r1".."rN", each appended (and fsynced) as its own batch. */
  async function streamOf(dir: string, count: number): Promise<void> {
    const wal = await openWriter(dir);
    for (let i = 1; i <= count; i++) await wal.append(utf8(`r${i}`));
    await wal.close();
  }

  it('cuts a record that was cut short by a crash before its fsync', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 4);
      const record = encodeRecord(5n, utf8('r5'));
      for (let keep = 1; keep < record.length; keep++) {
        await writeAt(dir, offsetOf(5), record.subarray(0, keep));
        const wal = await openWriter(dir);
        expect(wal.lastSeq).toBe(4n);
        const torn = withoutTrailingZeros(record, keep);
        // zeros written over zeros (or past the end) leave nothing to tell from unwritten space
        if (torn === 0) expect(wal.recovered).toBeNull();
        else expect(wal.recovered).toMatchObject({ offset: offsetOf(5), bytes: torn });
        await wal.close();
        const after = await readFile(join(dir, SEG1));
        expect(after.subarray(offsetOf(5)).every((byte) => byte === 0)).toBe(true);
      }
      expect(await payloads(dir)).toEqual(['r1', 'r2', 'r3', 'r4']);
    });
  });

  it('keeps a record that was written whole before the crash, even though it was never fsynced', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 4);
      await writeAt(dir, offsetOf(5), encodeRecord(5n, utf8('r5')));
      expect(await payloads(dir)).toEqual(['r1', 'r2', 'r3', 'r4']); // not durable yet: not handed out
      const wal = await openWriter(dir);
      expect(wal.lastSeq).toBe(5n);
      expect(wal.recovered).toBeNull();
      expect(await wal.append(utf8('r6'))).toBe(6n);
      await wal.close();
      expect(await payloads(dir)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    });
  });

  it('cuts garbage written after the last record and continues with the next seq', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 3);
      const garbage = new Uint8Array(1000).map((_, i) => (i * 7919 + 13) % 256);
      await writeAt(dir, offsetOf(4), garbage);
      const wal = await openWriter(dir);
      expect(wal.recovered).toMatchObject({ offset: offsetOf(4), bytes: 1000 });
      expect(await wal.append(utf8('r4'))).toBe(4n);
      await wal.close();
      expect(await payloads(dir)).toEqual(['r1', 'r2', 'r3', 'r4']);
    });
  });

  it('cuts a whole unfinished batch when a record inside it did not reach the disk', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 2);
      // One batch of three; the page holding the middle record was lost, the later one survived.
      const batch = [
        encodeRecord(3n, utf8('r3'), FLAG_BATCH_START),
        encodeRecord(4n, utf8('r4'), 0).fill(0),
        encodeRecord(5n, utf8('r5'), 0),
      ];
      await writeAt(dir, offsetOf(3), Buffer.concat(batch));
      const wal = await openWriter(dir);
      expect(wal.lastSeq).toBe(3n);
      expect(wal.recovered?.offset).toBe(offsetOf(4));
      await wal.close();
    });
  });

  it('cuts a short last record after a power loss that also lost the latest durable mark', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 5);
      await truncate(join(dir, SEG1), offsetOf(5) + 7);
      await rewindMark(dir, 4n);
      const wal = await openWriter(dir);
      expect(wal.lastSeq).toBe(4n);
      await wal.close();
    });
  });

  it('refuses to open when a record the durable mark covers is cut short', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 5);
      await truncate(join(dir, SEG1), offsetOf(5) + 7);
      const error = await openWriter(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WalCorruptionError);
      expect(error).toMatchObject({ segment: join(dir, SEG1), offset: offsetOf(5) });
    });
  });

  it('reports a flipped byte in an early record with the file and offset instead of skipping it', async () => {
    await withTempDir(async (dir) => {
      await streamOf(dir, 5);
      const bytes = await readFile(join(dir, SEG1));
      const at = offsetOf(2) + RECORD_HEADER_BYTES; // first payload byte of record 2
      bytes[at] = bytes[at]! ^ 0x01;
      await writeFile(join(dir, SEG1), bytes);
      // Even with the mark lost, the valid batches after it prove it is corruption, not a torn tail.
      await rewindMark(dir, 0n);
      const error = await openWriter(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WalCorruptionError);
      expect(error).toMatchObject({ segment: join(dir, SEG1), offset: offsetOf(2) });
      expect(String(error)).toContain(`${SEG1} at byte offset ${offsetOf(2)}`);
      expect((await readFile(join(dir, SEG1))).equals(bytes)).toBe(true); // nothing was cut
    });
  });
});

describe('opening a writer on a zero-filled segment', () => {
  it('takes the zeros after the last record as its end and cuts nothing', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      for (let i = 1; i <= 5; i++) await wal.append(utf8(`r${i}`));
      await wal.close();
      expect((await stat(join(dir, SEG1))).size).toBeGreaterThan(offsetOf(6));
      const reopened = await openWalWriter({ dir });
      expect(reopened.recovered).toBeNull();
      expect(reopened.lastSeq).toBe(5n);
      expect(await reopened.append(utf8('r6'))).toBe(6n);
      await reopened.close();
      expect(await payloads(dir)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    });
  });

  it('reports zeros where a record should be when a later write batch follows them', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      for (let i = 1; i <= 3; i++) await wal.append(utf8(`r${i}`));
      await wal.close();
      // r4's bytes never reached the disk, yet r5 (a batch of its own) did: r4 was durable once.
      await writeAt(dir, offsetOf(5), encodeRecord(5n, utf8('r5')));
      await rewindMark(dir, 3n);
      const error = await openWalWriter({ dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WalCorruptionError);
      expect(error).toMatchObject({ segment: join(dir, SEG1), offset: offsetOf(4) });
      expect(String(error)).toContain('zero bytes where a record should start');
    });
  });
});
