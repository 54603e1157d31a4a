import { describe, expect, it } from 'vitest';
import { WalWriteError } from './errors.ts';
import { FaultyFs, payloads, utf8, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

describe('a failed write', () => {
  it('rejects the appends in flight and every later one with ENOSPC until the writer is reopened', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      await wal.appendMany([utf8('kept-1'), utf8('kept-2')]);

      fs.failWrites = 'ENOSPC';
      fs.partialBytes = 30; // part of the batch lands before the disk fills up
      const inFlight = [wal.append(utf8('lost-a')), wal.append(utf8('lost-b'))];
      const results = await Promise.allSettled(inFlight);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as WalWriteError;
        expect(reason).toBeInstanceOf(WalWriteError);
        expect(reason.code).toBe('ENOSPC');
        expect(reason.diskFull).toBe(true);
      }
      expect(wal.failure?.code).toBe('ENOSPC');

      // The disk has room again, but the writer stays refusing: the failure is sticky.
      fs.failWrites = null;
      const writesBefore = fs.segmentWrites;
      await expect(wal.append(utf8('refused'))).rejects.toBe(wal.failure);
      expect(fs.segmentWrites).toBe(writesBefore);
      await wal.close();

      const reopened = await openWalWriter({ dir, fs });
      expect(reopened.failure).toBeNull();
      expect(await reopened.append(utf8('kept-3'))).toBe(3n);
      await reopened.close();
      expect(await payloads(dir)).toEqual(['kept-1', 'kept-2', 'kept-3']);
    });
  });

  it('leaves a half-written batch that could not be removed for the next open to cut', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      await wal.append(utf8('kept-1'));
      fs.failWrites = 'ENOSPC';
      fs.partialBytes = 25;
      fs.failTruncates = 'EIO';
      await expect(wal.append(utf8('half-written'))).rejects.toMatchObject({ code: 'ENOSPC' });
      await wal.close();

      fs.failWrites = null;
      fs.failTruncates = null;
      const reopened = await openWalWriter({ dir, fs });
      expect(reopened.recovered?.bytes).toBe(25);
      expect(reopened.lastSeq).toBe(1n);
      await reopened.appendMany([utf8('kept-2'), utf8('kept-3')]);
      await reopened.close();
      expect(await payloads(dir)).toEqual(['kept-1', 'kept-2', 'kept-3']);
    });
  });

  it('treats a failed fsync as sticky too, carrying the errno code, and does not keep that batch', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      await wal.append(utf8('kept-1'));
      fs.failSyncs = 'EIO';
      const error = await wal.append(utf8('unsure')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WalWriteError);
      expect(error).toMatchObject({ code: 'EIO', diskFull: false });
      expect(String(error)).toContain('fsync');
      expect(wal.lastSeq).toBe(1n);
      await wal.close();

      fs.failSyncs = null;
      const reopened = await openWalWriter({ dir, fs });
      expect(reopened.lastSeq).toBe(1n);
      expect(await reopened.append(utf8('kept-2'))).toBe(2n);
      await reopened.close();
      expect(await payloads(dir)).toEqual(['kept-1', 'kept-2']);
    });
  });

  it('does not hand a reader records from a batch whose fsync failed', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      await wal.append(utf8('kept-1'));
      fs.failSyncs = 'EIO';
      fs.failTruncates = 'EIO'; // the failed batch stays in the file
      await expect(wal.append(utf8('unsure'))).rejects.toBeInstanceOf(WalWriteError);
      expect(await payloads(dir)).toEqual(['kept-1']);
      await wal.close();
    });
  });

  it('resolves a durable batch whose mark write failed, then refuses what comes after', async () => {
    await withTempDir(async (dir) => {
      const fs = new FaultyFs();
      const wal = await openWalWriter({ dir, fs });
      fs.failMarkWrites = 'EIO';
      // the mark is written in the background after the fsync: the durable batch resolves
      expect(await wal.append(utf8('durable'))).toBe(1n);
      for (let i = 0; i < 20 && !wal.failure; i++) await new Promise((resolve) => setImmediate(resolve));
      await expect(wal.append(utf8('after the failed mark'))).rejects.toMatchObject({ code: 'EIO' });
      expect(String(wal.failure)).toContain('durable mark');
      await wal.close();
      fs.failMarkWrites = null;
      const reopened = await openWalWriter({ dir, fs });
      expect(reopened.lastSeq).toBe(1n);
      await reopened.close();
    });
  });
});
