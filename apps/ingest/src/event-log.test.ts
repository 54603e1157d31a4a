import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@footfall/http';
import { decodeWalRecord, type WalRecord } from '@footfall/schema';
import { listWalStreams, nodeFs, openWalReader, type WalFs } from '@footfall/wal';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from './event-log.ts';

const logger = createLogger({ level: 'silent', name: 'test' });
const dirs: string[] = [];
const logs: EventLog[] = [];
afterEach(async () => {
  for (const l of logs.splice(0)) await l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const bot = (n: number): WalRecord => ({ t: 'bot', site: `s${n}`, day: '2026-11-22', kind: 'list' });

/** node:fs, except that writes fail with ENOSPC while `full` is true. */
function fillableFs() {
  const state = { full: false };
  const fs: WalFs = {
    ...nodeFs,
    async open(path, flags, mode) {
      const h = await nodeFs.open(path, flags, mode);
      return {
        ...h,
        read: h.read.bind(h),
        sync: h.sync.bind(h),
        truncate: h.truncate.bind(h),
        stat: h.stat.bind(h),
        close: h.close.bind(h),
        write: (buf, off, len, pos) => {
          if (state.full)
            return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
          return h.write(buf, off, len, pos);
        },
      };
    },
  };
  return { fs, state };
}

async function readAll(walRoot: string): Promise<WalRecord[]> {
  const out: WalRecord[] = [];
  for (const stream of await listWalStreams(walRoot)) {
    const reader = await openWalReader({ dir: join(walRoot, stream) });
    const recs = await reader.read({ after: 0n, maxRecords: 10_000 });
    out.push(...recs.map((r) => decodeWalRecord(r.payload)));
    await reader.close();
  }
  return out;
}

async function until(probe: () => boolean, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('EventLog', () => {
  it('stores appended records durably in its own stream', async () => {
    const walRoot = mkdtempSync(join(tmpdir(), 'ff-log-'));
    dirs.push(walRoot);
    const log = new EventLog({ walRoot, logger, now: Date.now, streamName: 'gw' });
    logs.push(log);
    await log.open();
    await Promise.all([log.append([bot(1)]), log.append([bot(2), bot(3)])]);
    expect(log.lastSeq).toBe(3n);
    expect((await readAll(walRoot)).map((r) => r.site).sort()).toEqual(['s1', 's2', 's3']);
  });

  it('takes the next stream name when another live writer holds the first', async () => {
    const walRoot = mkdtempSync(join(tmpdir(), 'ff-log-'));
    dirs.push(walRoot);
    const a = new EventLog({ walRoot, logger, now: Date.now, streamName: 'gw' });
    const b = new EventLog({ walRoot, logger, now: Date.now, streamName: 'gw' });
    logs.push(a, b);
    await a.open();
    await b.open();
    expect([a.stream, b.stream]).toEqual(['gw', 'gw-2']);
  });

  it('moves to refusing when the disk is full, keeps stored data, and accepts again by itself', async () => {
    const walRoot = mkdtempSync(join(tmpdir(), 'ff-log-'));
    dirs.push(walRoot);
    const { fs, state } = fillableFs();
    const log = new EventLog({ walRoot, logger, now: Date.now, streamName: 'gw', fs, retryMs: 50 });
    logs.push(log);
    await log.open();
    await log.append([bot(1)]);
    state.full = true;
    await expect(log.append([bot(2)])).rejects.toMatchObject({ code: 'refusing', retryAfter: 30 });
    expect(log.state).toMatchObject({ state: 'refusing', reason: 'the disk is full', code: 'ENOSPC' });
    // while refusing, nothing is attempted at all
    await expect(log.append([bot(3)])).rejects.toMatchObject({ code: 'refusing' });
    state.full = false;
    await until(() => log.state.state === 'accepting');
    await log.append([bot(4)]);
    expect((await readAll(walRoot)).map((r) => r.site)).toEqual(['s1', 's4']);
  });

  it('answers 503 under pressure when too many appends wait for the disk', async () => {
    const walRoot = mkdtempSync(join(tmpdir(), 'ff-log-'));
    dirs.push(walRoot);
    const log = new EventLog({ walRoot, logger, now: Date.now, streamName: 'gw', maxPending: 1 });
    logs.push(log);
    await log.open();
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => log.append([bot(i)])));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable', retryAfter: 1 });
    const stored = await readAll(walRoot);
    expect(stored.length).toBe(50 - refused.length);
  });
});
