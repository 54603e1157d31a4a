import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalCorruptionError } from './errors.ts';
import { encodeRecord, RECORD_HEADER_BYTES, SEGMENT_HEADER_BYTES, segmentName } from './format.ts';
import { MARK_FILE } from './mark.ts';
import { listWalStreams, openWalReader } from './reader.ts';
import { text, utf8, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

describe('WalReader', () => {
  it('lists the streams under a WAL root, and none for a missing root', async () => {
    await withTempDir(async (root) => {
      expect(await listWalStreams(join(root, 'wal'))).toEqual([]);
      for (const id of ['ingest-b', 'ingest-a'])
        await (await openWalWriter({ dir: join(root, 'wal', id) })).close();
      await writeFile(join(root, 'wal', 'README'), 'not a stream');
      expect(await listWalStreams(join(root, 'wal'))).toEqual(['ingest-a', 'ingest-b']);
    });
  });

  it('reads an empty or not yet created stream as having nothing, not as an error', async () => {
    await withTempDir(async (root) => {
      const reader = openWalReader({ dir: join(root, 'never-written') });
      expect(await reader.read({ after: 0n })).toEqual([]);
      expect(await reader.lastSeq()).toBe(0n);
      await reader.close();
    });
  });

  it('returns records after a stored position in bounded batches', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      await wal.appendMany(Array.from({ length: 10 }, (_, i) => utf8(`p${i + 1}`.padEnd(10, '.'))));
      await wal.close();
      const reader = openWalReader({ dir });
      expect((await reader.read({ after: 3n, maxRecords: 4 })).map((r) => r.seq)).toEqual([4n, 5n, 6n, 7n]);
      // maxBytes stops before the record that would go over it...
      expect((await reader.read({ after: 7n, maxBytes: 25 })).map((r) => r.seq)).toEqual([8n, 9n]);
      // ...but always returns at least one record.
      expect((await reader.read({ after: 9n, maxBytes: 1 })).map((r) => text(r.payload))).toEqual([
        'p10.......',
      ]);
      expect(await reader.read({ after: 10n })).toEqual([]);
      // Going back to an earlier position works too.
      expect((await reader.read({ after: 0n, maxRecords: 2 })).map((r) => r.seq)).toEqual([1n, 2n]);
      await reader.close();
    });
  });

  it('tails a live writer, seeing every record once and in order', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir, segmentBytes: 4096 });
      const reader = openWalReader({ dir });
      const total = 600;
      const writing = (async () => {
        for (let i = 1; i <= total; i += 20) {
          await Promise.all(Array.from({ length: 20 }, (_, k) => wal.append(utf8(`event-${i + k}`))));
        }
      })();
      const seen: string[] = [];
      let position = 0n;
      while (position < BigInt(total)) {
        const batch = await reader.read({ after: position, maxRecords: 37 });
        for (const record of batch) {
          expect(record.seq).toBe(position + 1n);
          seen.push(text(record.payload));
          position = record.seq;
        }
        if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await writing;
      expect(seen).toEqual(Array.from({ length: total }, (_, i) => `event-${i + 1}`));
      expect(await reader.lastSeq()).toBe(BigInt(total));
      await reader.close();
      await wal.close();
    });
  });

  it('treats a partial or not yet durable record at the end as "not yet"', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      await wal.appendMany([utf8('a'), utf8('b'), utf8('c')]);
      // appends resolve once durable; the mark readers follow is written just after
      const reader = openWalReader({ dir });
      for (let i = 0; i < 200 && (await reader.lastSeq()) < 3n; i++)
        await new Promise((r) => setTimeout(r, 5));
      // A writer in the middle of its next batch: one whole record, one half written, no fsync yet.
      await appendFile(join(dir, segmentName(1n)), encodeRecord(4n, utf8('d')));
      await appendFile(join(dir, segmentName(1n)), encodeRecord(5n, utf8('e')).subarray(0, 9));
      expect((await reader.read({ after: 0n })).map((r) => text(r.payload))).toEqual(['a', 'b', 'c']);
      expect(await reader.read({ after: 3n })).toEqual([]);
      expect(await reader.lastSeq()).toBe(3n);
      await reader.close();
      await wal.close();
    });
  });

  it('keeps the last intact durable seq when the mark file reads damaged', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      await wal.appendMany([utf8('a'), utf8('b')]);
      const reader = openWalReader({ dir });
      expect(await reader.lastSeq()).toBe(2n);
      await wal.close();
      await writeFile(join(dir, MARK_FILE), new Uint8Array(12).fill(7));
      expect(await reader.lastSeq()).toBe(2n);
      expect((await reader.read({ after: 0n })).length).toBe(2);
      await reader.close();
    });
  });

  it('reports corruption in an earlier segment, naming the file and offset', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir, segmentBytes: 100 });
      for (let i = 1; i <= 8; i++) await wal.append(utf8(`record-${i}`));
      await wal.close();
      const first = join(dir, segmentName(1n));
      const bytes = await readFile(first);
      const at = SEGMENT_HEADER_BYTES + RECORD_HEADER_BYTES + 3;
      bytes[at] = bytes[at]! ^ 0xff;
      await writeFile(first, bytes);
      // The writer only checks the last segment; the reader checks each record it hands out.
      await (await openWalWriter({ dir, segmentBytes: 100 })).close();
      const reader = openWalReader({ dir });
      const error = await reader.read({ after: 0n }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WalCorruptionError);
      expect(error).toMatchObject({ segment: first, offset: SEGMENT_HEADER_BYTES });
      await reader.close();
    });
  });

  it('reports a missing segment in the middle of a stream instead of skipping over it', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir, segmentBytes: 100 });
      for (let i = 1; i <= 9; i++) await wal.append(utf8(`record-${i}`));
      await wal.close();
      const { readdir, unlink } = await import('node:fs/promises');
      const segments = (await readdir(dir)).filter((n) => n.endsWith('.seg')).sort();
      expect(segments.length).toBeGreaterThanOrEqual(3);
      await unlink(join(dir, segments[1]!));
      const reader = openWalReader({ dir });
      await expect(reader.read({ after: 0n })).rejects.toThrow(/segment ends before durable seq/);
      await reader.close();
    });
  });

  it('ignores files in a stream directory that are not segments', async () => {
    await withTempDir(async (dir) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'notes.txt'), 'hello');
      const wal = await openWalWriter({ dir });
      await wal.append(utf8('x'));
      await wal.close();
      const reader = openWalReader({ dir });
      expect((await reader.read({ after: 0n })).map((r) => text(r.payload))).toEqual(['x']);
      await reader.close();
    });
  });
});
