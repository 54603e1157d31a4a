import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@footfall/http';
import { encodeWalRecord, type WalRecord } from '@footfall/schema';
import { openWalWriter } from '@footfall/wal';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchRecord, BatchResult } from './engine/loader.ts';
import { Tailer, type TailTarget } from './tailer.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An engine stand-in: stores records and positions the way a transaction would. */
function memoryTarget(initial: Map<string, bigint> = new Map()) {
  const positions = new Map(initial);
  const applied: { stream: string; seq: bigint; site: string }[] = [];
  const target: TailTarget = {
    positions: async () => new Map(positions),
    beginBatch: async () => {
      const added: BatchRecord[] = [];
      return {
        add: async (records) => void added.push(...records),
        commit: async (): Promise<BatchResult> => {
          for (const r of added) {
            applied.push({ stream: r.stream, seq: r.seq, site: r.record.site });
            positions.set(r.stream, r.seq);
          }
          return {
            events: 0,
            duplicates: 0,
            replayed: 0,
            crawls: 0,
            botDrops: added.length,
            committed: true,
          };
        },
        abort: () => {},
      };
    },
  };
  return { target, positions, applied };
}

const bot = (site: string): WalRecord => ({ t: 'bot', site, day: '2026-11-22', kind: 'list' });

async function walWith(root: string, stream: string, sites: string[]) {
  const w = await openWalWriter({ dir: join(root, stream) });
  for (const s of sites) await w.append(encodeWalRecord(bot(s)));
  await w.close();
}

describe('Tailer', () => {
  it('applies every stream in order, in bounded batches, and knows its lag', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1', 'a2', 'a3', 'a4', 'a5']);
    await walWith(root, 'b', ['b1', 'b2']);
    const { target, applied } = memoryTarget();
    const tailer = new Tailer({
      walRoot: root,
      quarantineDir: join(root, 'q'),
      target,
      logger,
      batchSize: 3,
    });
    await tailer.init();
    expect(await tailer.drain()).toBe(7);
    expect(applied.filter((r) => r.stream === 'a').map((r) => r.site)).toEqual([
      'a1',
      'a2',
      'a3',
      'a4',
      'a5',
    ]);
    expect(applied.filter((r) => r.stream === 'b').map((r) => r.site)).toEqual(['b1', 'b2']);
    expect(tailer.lag).toBe(0);
    await tailer.stop(); // closes its readers
  });

  it('resumes after the stored positions, never applying a record twice', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1', 'a2', 'a3']);
    const { target, applied } = memoryTarget(new Map([['a', 2n]]));
    const tailer = new Tailer({ walRoot: root, quarantineDir: join(root, 'q'), target, logger });
    await tailer.init();
    await tailer.drain();
    expect(applied.map((r) => r.site)).toEqual(['a3']);
    await tailer.stop(); // closes its readers
  });

  it('knows how many records are not yet applied', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1', 'a2', 'a3', 'a4']);
    const tailer = new Tailer({
      walRoot: root,
      quarantineDir: join(root, 'q'),
      target: memoryTarget().target,
      logger,
      batchSize: 1,
    });
    await tailer.init();
    expect(tailer.lag).toBe(4); // known before the first batch
    expect(await tailer.poll()).toBe(1);
    expect(tailer.lag).toBe(3);
    expect(await tailer.drain()).toBe(3);
    expect(tailer.lag).toBe(0);
    await tailer.stop(); // closes its readers
  });

  it('keeps a record it cannot read in quarantine, says so loudly, and goes on', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    const w = await openWalWriter({ dir: join(root, 'a') });
    await w.append(encodeWalRecord(bot('before')));
    const odd = new TextEncoder().encode('{"t":"event","id":"x","site":"s"}');
    await w.append(odd);
    await w.append(encodeWalRecord(bot('after')));
    await w.close();
    const lines: string[] = [];
    const loud = createLogger({
      level: 'info',
      name: 'test',
      destination: { write: (l: string) => void lines.push(l) },
    });
    const { target, applied, positions } = memoryTarget();
    const tailer = new Tailer({ walRoot: root, quarantineDir: join(root, 'q'), target, logger: loud });
    await tailer.init();
    expect(await tailer.drain()).toBe(3);
    expect(applied.map((r) => r.site)).toEqual(['before', 'after']);
    expect(positions.get('a')).toBe(3n);
    expect(tailer.unreadable).toBe(1);
    expect(readFileSync(join(root, 'q', 'a-2.json'))).toEqual(Buffer.from(odd));
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string; problem?: string });
    const error = logged.find((l) => l.level === 50);
    expect(error?.msg).toMatch(/cannot be read: kept in quarantine/);
    expect(error?.problem).toMatch(/at|kind|host/);
    await tailer.stop();
  });

  it('counts as not yet applied what a batch holds while it commits, and what arrives meanwhile', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1', 'a2', 'a3']);
    const { target } = memoryTarget();
    let release = () => {};
    let committing = () => {};
    let held = false;
    const inCommit = new Promise<void>((r) => {
      committing = r;
    });
    const slow: TailTarget = {
      positions: target.positions,
      beginBatch: async () => {
        const inner = await target.beginBatch();
        return {
          add: inner.add,
          commit: async () => {
            // the first commit waits until the test lets it go
            if (!held) {
              held = true;
              committing();
              await new Promise<void>((r) => {
                release = r;
              });
            }
            return inner.commit();
          },
          abort: inner.abort,
        };
      },
    };
    const tailer = new Tailer({ walRoot: root, quarantineDir: join(root, 'q'), target: slow, logger });
    await tailer.init();
    const polled = tailer.poll();
    await inCommit;
    await walWith(root, 'a', ['a4', 'a5']);
    // the batch read all three: as of that read nothing was left, but none is in reports yet
    expect(await tailer.liveLag()).toBe(5);
    release();
    expect(await polled).toBe(3);
    expect(tailer.lag).toBe(0); // as of its last read
    expect(await tailer.liveLag()).toBe(2);
    await tailer.drain();
    expect(await tailer.liveLag()).toBe(0);
    await tailer.stop();
  });

  it('reads the next slice while a batch commits, and throws it away when the commit fails', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    const w = await openWalWriter({ dir: join(root, 'a') });
    for (const s of ['a1', 'a2', 'a3', 'a4']) await w.append(encodeWalRecord(bot(s)));
    await w.append(new TextEncoder().encode('{"t":"event"}')); // read ahead twice, kept once
    await w.append(encodeWalRecord(bot('a6')));
    await w.close();
    const { target, applied, positions } = memoryTarget();
    const reads: bigint[] = [];
    let calls = 0;
    const failing: TailTarget = {
      positions: target.positions,
      beginBatch: async () => {
        const inner = await target.beginBatch();
        return {
          add: async (records) => {
            reads.push(records[0]!.seq);
            await inner.add(records);
          },
          commit: async () => {
            // the next slice is being read while this batch commits
            await new Promise((r) => setTimeout(r, 20));
            if (++calls === 2) throw new Error('engine busy');
            return inner.commit();
          },
          abort: inner.abort,
        };
      },
    };
    const tailer = new Tailer({
      walRoot: root,
      quarantineDir: join(root, 'q'),
      target: failing,
      logger,
      batchSize: 2,
    });
    await tailer.init();
    expect(await tailer.poll()).toBe(2);
    await expect(tailer.poll()).rejects.toThrow('engine busy');
    expect(await tailer.drain()).toBe(4);
    expect(reads).toEqual([1n, 3n, 3n, 6n]);
    expect(applied.map((r) => r.site)).toEqual(['a1', 'a2', 'a3', 'a4', 'a6']);
    expect(positions.get('a')).toBe(6n);
    expect(tailer.unreadable).toBe(1);
    await tailer.stop();
  });

  it('runs by itself once started and stops cleanly', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1']);
    const { target, applied } = memoryTarget();
    const tailer = new Tailer({ walRoot: root, quarantineDir: join(root, 'q'), target, logger, idleMs: 10 });
    await tailer.start();
    await walWith(root, 'b', ['b1']);
    for (let i = 0; i < 200 && applied.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await tailer.stop();
    expect(applied.map((r) => r.site).sort()).toEqual(['a1', 'b1']);
  });

  it('says when it has caught up, only once nothing is left to load', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['a1', 'a2', 'a3']);
    const { target, applied } = memoryTarget();
    const seen: number[] = [];
    const tailer = new Tailer({
      walRoot: root,
      quarantineDir: join(root, 'q'),
      target,
      logger,
      idleMs: 10,
      batchSize: 1,
      onCaughtUp: () => seen.push(applied.length),
    });
    await tailer.start();
    for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await tailer.stop();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen)).toEqual(new Set([3]));
  });

  it('commits after liveBatchMs while it keeps up, and takes the long window for a backlog', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ff-tail-'));
    dirs.push(root);
    await walWith(root, 'a', ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's10']);
    /** batches committed, each the records it held; every slice takes 30 ms to load */
    const run = async (liveLag: number) => {
      const { target } = memoryTarget();
      const sizes: number[] = [];
      const slow: TailTarget = {
        positions: target.positions,
        beginBatch: async () => {
          const inner = await target.beginBatch();
          let held = 0;
          return {
            add: async (records) => {
              held += records.length;
              await new Promise((r) => setTimeout(r, 30));
              await inner.add(records);
            },
            commit: async () => {
              sizes.push(held);
              return inner.commit();
            },
            abort: inner.abort,
          };
        },
      };
      const tailer = new Tailer({
        walRoot: root,
        quarantineDir: join(root, 'q'),
        target: slow,
        logger,
        sliceSize: 2,
        batchMs: 5_000,
        liveBatchMs: 50,
        liveLag,
      });
      await tailer.init();
      expect(await tailer.drain()).toBe(10);
      return sizes;
    };
    // 8 records wait behind the first slice: under a liveLag of 100 the tail keeps up
    const live = await run(100);
    expect(live.length).toBeGreaterThan(1);
    expect(live.reduce((a, b) => a + b, 0)).toBe(10);
    // with a liveLag of 1 they are a backlog: one batch takes them all
    expect(await run(1)).toEqual([10]);
  });
});
