import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneWal } from './prune.ts';
import { openWalReader } from './reader.ts';
import { utf8, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

const DAY = 24 * 60 * 60 * 1000;

/** A stream of 12 records over several small segments, all files dated `ageMs` ago. */
async function stream(dir: string, ageMs: number, now: number): Promise<bigint[]> {
  const wal = await openWalWriter({ dir, segmentBytes: 100 });
  for (let i = 1; i <= 12; i++) await wal.append(utf8(`record-${i}`));
  await wal.close();
  const firsts = (await readdir(dir))
    .filter((name) => name.endsWith('.seg'))
    .sort()
    .map((name) => BigInt(name.slice(0, 20)));
  const when = new Date(now - ageMs);
  for (const first of firsts)
    await utimes(join(dir, `${first.toString().padStart(20, '0')}.seg`), when, when);
  return firsts;
}

const remaining = async (dir: string) =>
  (await readdir(dir))
    .filter((name) => name.endsWith('.seg'))
    .sort()
    .map((name) => BigInt(name.slice(0, 20)));

describe('pruneWal', () => {
  it('deletes old segments whose records are all applied, and keeps the rest readable', async () => {
    await withTempDir(async (dir) => {
      const now = Date.now();
      const firsts = await stream(dir, 3 * DAY, now);
      expect(firsts.length).toBeGreaterThanOrEqual(4);
      // Applied up to the last record of the second segment: the first two can go.
      const applied = firsts[2]! - 1n;
      const deleted = await pruneWal({ dir, appliedThrough: applied, olderThanMs: DAY, now });
      expect(deleted.length).toBe(2);
      expect(await remaining(dir)).toEqual(firsts.slice(2));
      const reader = openWalReader({ dir });
      expect((await reader.read({ after: applied })).map((r) => r.seq)[0]).toBe(applied + 1n);
      await reader.close();
    });
  });

  it('keeps a segment with a record not yet applied, and everything after it', async () => {
    await withTempDir(async (dir) => {
      const now = Date.now();
      const firsts = await stream(dir, 3 * DAY, now);
      // The second segment's last record is not applied yet.
      const deleted = await pruneWal({ dir, appliedThrough: firsts[2]! - 2n, olderThanMs: DAY, now });
      expect(deleted.length).toBe(1);
      expect(await remaining(dir)).toEqual(firsts.slice(1));
    });
  });

  it('keeps applied segments younger than the retention', async () => {
    await withTempDir(async (dir) => {
      const now = Date.now();
      const firsts = await stream(dir, DAY / 2, now);
      expect(await pruneWal({ dir, appliedThrough: 12n, olderThanMs: DAY, now })).toEqual([]);
      expect(await remaining(dir)).toEqual(firsts);
    });
  });

  it('never deletes the newest segment, the one the writer appends to', async () => {
    await withTempDir(async (dir) => {
      const now = Date.now();
      const firsts = await stream(dir, 3 * DAY, now);
      await pruneWal({ dir, appliedThrough: 12n, olderThanMs: DAY, now });
      expect(await remaining(dir)).toEqual([firsts.at(-1)!]);
      const wal = await openWalWriter({ dir, segmentBytes: 100 });
      expect(await wal.append(utf8('next'))).toBe(13n);
      await wal.close();
    });
  });
});
