import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WalClosedError, WalLockedError } from './errors.ts';
import { SEGMENT_HEADER_BYTES, segmentName } from './format.ts';
import { LOCK_FILE } from './lock.ts';
import { readMark } from './mark.ts';
import { openWalReader } from './reader.ts';
import { FaultyFs, text, utf8, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

async function readAll(dir: string): Promise<string[]> {
  const reader = openWalReader({ dir });
  try {
    return (await reader.read({ after: 0n, maxRecords: 100_000 })).map((r) => text(r.payload));
  } finally {
    await reader.close();
  }
}

describe('WalWriter', () => {
  it('gives seqs from 1 and hands the same payloads back to a reader', async () => {
    await withTempDir(async (root) => {
      const dir = join(root, 'wal', 'ingest-a');
      const wal = await openWalWriter({ dir });
      expect(await wal.append(utf8('{"a":1}'))).toBe(1n);
      expect(await wal.appendMany([utf8('{"a":2}'), utf8(''), utf8('{"a":4}')])).toEqual([2n, 3n, 4n]);
      expect(wal.lastSeq).toBe(4n);
      await wal.close();
      expect(await readAll(dir)).toEqual(['{"a":1}', '{"a":2}', '', '{"a":4}']);
    });
  });

  it('stores a text payload as its UTF-8 bytes, mixed with byte payloads in one commit', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      const texts = ['{"path":"/caf\u00e9"}', '\u{1f600} emoji', 'lone \ud800 surrogate', ''];
      await Promise.all([...texts.map((t) => wal.append(t)), wal.append(utf8('bytes'))]);
      await wal.close();
      const reader = openWalReader({ dir });
      const stored = await reader.read({ after: 0n, maxRecords: 10 });
      await reader.close();
      expect(stored.map((r) => Buffer.from(r.payload))).toEqual([
        ...texts.map((t) => Buffer.from(t, 'utf8')),
        Buffer.from('bytes'),
      ]);
    });
  });

  it('continues after the last durable record when reopened', async () => {
    await withTempDir(async (dir) => {
      const first = await openWalWriter({ dir });
      await first.appendMany([utf8('one'), utf8('two')]);
      await first.close();
      const second = await openWalWriter({ dir });
      expect(second.lastSeq).toBe(2n);
      expect(second.recovered).toBeNull();
      expect(await second.append(utf8('three'))).toBe(3n);
      await second.close();
      expect(await readAll(dir)).toEqual(['one', 'two', 'three']);
    });
  });

  it('shares one fsync among appends made together', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      fs.segmentSyncs = 0;
      const seqs = await Promise.all(Array.from({ length: 200 }, (_, i) => wal.append(utf8(`e${i}`))));
      expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i + 1)));
      expect(fs.segmentSyncs).toBe(1);
      await wal.close();
    });
  });

  it('queues appends while an fsync is in flight and sends them together with one more fsync', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      fs.segmentSyncs = 0;
      let release = (): void => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let syncStarted = (): void => {};
      const started = new Promise<void>((resolve) => {
        syncStarted = resolve;
      });
      fs.beforeSync = async () => {
        fs.beforeSync = null;
        syncStarted();
        await held;
      };
      const firstAppend = wal.append(utf8('first'));
      await started;
      const later = Array.from({ length: 99 }, (_, i) => wal.append(utf8(`later${i}`)));
      expect(wal.pending).toBe(100);
      release();
      await Promise.all([firstAppend, ...later]);
      expect(fs.segmentSyncs).toBe(2);
      expect(wal.pending).toBe(0);
      await wal.close();
      expect(await readAll(dir)).toHaveLength(100);
    });
  });

  it('writes the durable mark once at a time, skipping to the newest seq, never backwards', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      fs.markWrites = 0;
      let release = (): void => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      fs.beforeMarkWrite = async () => {
        fs.beforeMarkWrite = null;
        await held;
      };
      // five commits, one after the other, while the first mark write is held open
      for (let i = 1; i <= 5; i++) expect(await wal.append(utf8(`e${i}`))).toBe(BigInt(i));
      expect(fs.markWrites).toBe(1);
      release();
      await wal.close();
      // the held write (seq 1), then one write with the newest seq instead of four
      expect(fs.markWrites).toBe(2);
      expect(await readMark(fs, dir)).toBe(5n);
      expect(await readAll(dir)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    });
  });

  it('rolls over to a new segment named by its first seq and reads across segments', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir, segmentBytes: 200 });
      for (let i = 1; i <= 12; i++)
        await wal.append(utf8(`record-${String(i).padStart(3, '0')}-${'x'.repeat(20)}`));
      expect(wal.currentSegment.endsWith('.seg')).toBe(true);
      await wal.close();
      const segments = (await readdir(dir)).filter((n) => n.endsWith('.seg')).sort();
      expect(segments.length).toBeGreaterThan(3);
      expect(segments[0]).toBe('00000000000000000001.seg');
      // Each name is the seq of the record that opens it: the previous segments hold the ones before.
      const reader = openWalReader({ dir });
      const all = await reader.read({ after: 0n });
      expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(i + 1)));
      for (const name of segments) {
        const first = BigInt(name.slice(0, 20));
        expect(text(all[Number(first) - 1]!.payload)).toContain(`record-${String(first).padStart(3, '0')}`);
      }
      await reader.close();
      const reopened = await openWalWriter({ dir, segmentBytes: 200 });
      expect(await reopened.append(utf8('after roll'))).toBe(13n);
      await reopened.close();
    });
  });

  it('refuses a second writer on the same stream while the first holds the lock', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      await expect(openWalWriter({ dir })).rejects.toBeInstanceOf(WalLockedError);
      await wal.close();
      const again = await openWalWriter({ dir });
      expect(await again.append(utf8('x'))).toBe(1n);
      await again.close();
    });
  });

  it('refuses a lock held by another live process and takes over one left by a dead process', async () => {
    await withTempDir(async (dir) => {
      const { writeFile } = await import('node:fs/promises');
      const { hostname } = await import('node:os');
      const { spawnSync } = await import('node:child_process');
      await (await openWalWriter({ dir })).close();
      // The parent of this test process is alive and is not us.
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: process.ppid, host: hostname() }));
      await expect(openWalWriter({ dir })).rejects.toThrow(`pid ${process.ppid}`);
      // A child that has exited leaves a pid no live process has (until it is reused).
      const dead = spawnSync(process.execPath, [
        '-e',
        'process.stdout.write(String(process.pid))',
      ]).stdout.toString();
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: Number(dead), host: hostname() }));
      const wal = await openWalWriter({ dir });
      expect(await wal.append(utf8('taken over'))).toBe(1n);
      await wal.close();
    });
  });

  it('removes its lock file on close and refuses appends afterwards', async () => {
    await withTempDir(async (dir) => {
      const wal = await openWalWriter({ dir });
      const pending = wal.append(utf8('queued before close'));
      await wal.close();
      expect(await pending).toBe(1n);
      expect(await readdir(dir)).not.toContain(LOCK_FILE);
      await expect(wal.append(utf8('late'))).rejects.toBeInstanceOf(WalClosedError);
    });
  });

  it('keeps zero-filled space ahead of its records, never past the segment size', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs, segmentBytes: 16 * 1024, fillBytes: 4096 });
      const first = join(dir, segmentName(1n));
      const sizeOf = async (path: string) => (await stat(path)).size;
      expect(await sizeOf(first)).toBe(SEGMENT_HEADER_BYTES + 4096);
      const sizes: number[] = [];
      // 100-byte records (80 of payload): (16384 - 16) / 100 = 163 fit the first segment
      for (let i = 1; i <= 170; i++) {
        await wal.append(utf8(`r${String(i).padStart(79, '0')}`));
        await wal.filled();
        sizes.push(await sizeOf(first));
      }
      // it grew in steps of 4096 zero bytes, each written once at least 2048 bytes were left
      expect(new Set(sizes)).toEqual(new Set([4112, 8208, 12304, 16384]));
      // the first fill after open: once record 21 left 4112 - (16 + 21 * 100) < 2048 bytes ahead
      expect(sizes.indexOf(8208)).toBe(20);
      expect(fs.fills).toBe(5); // the first segment's four, the second's first
      const second = join(dir, segmentName(164n));
      expect(wal.currentSegment).toBe(second);
      expect(await sizeOf(second)).toBe(SEGMENT_HEADER_BYTES + 4096);
      await wal.close();
      const reopened = await openWalWriter({ dir, fs, segmentBytes: 16 * 1024, fillBytes: 4096 });
      expect(reopened.recovered).toBeNull();
      expect(await reopened.append(utf8('after'))).toBe(171n);
      await reopened.close();
      expect(await readAll(dir)).toHaveLength(171);
    });
  });

  it('goes on appending, extending the file, when writing the zero fill fails', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs, fillBytes: 1024 });
      fs.failFills = 'ENOSPC';
      for (let i = 1; i <= 40; i++) await wal.append(utf8(`r${String(i).padStart(79, '0')}`));
      await wal.filled();
      expect(fs.fills).toBe(2); // the one at open, then one that failed: no more in this segment
      expect(wal.failure).toBeNull();
      expect((await stat(join(dir, segmentName(1n)))).size).toBe(SEGMENT_HEADER_BYTES + 40 * 100);
      await wal.close();
      expect(await readAll(dir)).toHaveLength(40);
    });
  });
});
