import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openWalReader } from './reader.ts';
import { text, withTempDir } from './testing.ts';
import { openWalWriter } from './writer.ts';

const writerModule = fileURLToPath(new URL('./writer.ts', import.meta.url));

/** A child process that appends as fast as it can and prints each seq once it is acknowledged. */
const childSource = `
import { openWalWriter } from ${JSON.stringify(writerModule)};
const wal = await openWalWriter({ dir: process.argv[2], segmentBytes: 8192 });
for (let i = 0; ; i++) {
  const seqs = await Promise.all(
    Array.from({ length: 10 }, (_, k) => wal.append(new TextEncoder().encode('payload-' + (i * 10 + k)))),
  );
  process.stdout.write(seqs.at(-1) + '\\n');
}
`;

describe('a writer killed with SIGKILL in the middle of appending', () => {
  it('leaves a stream that reopens with every acknowledged record and continues without a gap', async () => {
    await withTempDir(async (root) => {
      const dir = join(root, 'stream');
      const script = join(root, 'child.mts');
      await writeFile(script, childSource);
      const child = spawn(process.execPath, ['--import', 'tsx', script, dir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let acked = 0n;
      await new Promise<void>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', () => resolve());
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          const lines = chunk.trim().split('\n');
          acked = BigInt(lines.at(-1) ?? '0');
          if (acked >= 300n) child.kill('SIGKILL');
        });
      });
      expect(acked).toBeGreaterThanOrEqual(300n);

      // The dead child's lock is taken over; whatever it wrote is kept or cut, never corruption.
      const wal = await openWalWriter({ dir, segmentBytes: 8192 });
      expect(wal.lastSeq).toBeGreaterThanOrEqual(acked);
      const next = await wal.append(new TextEncoder().encode('after the crash'));
      expect(next).toBe(wal.lastSeq);
      await wal.close();

      const reader = openWalReader({ dir });
      const records = await reader.read({ after: 0n, maxRecords: 1_000_000 });
      await reader.close();
      expect(records.map((r) => r.seq)).toEqual(
        Array.from({ length: Number(next) }, (_, i) => BigInt(i + 1)),
      );
      expect(text(records.at(-1)!.payload)).toBe('after the crash');
      expect(text(records[Number(acked) - 1]!.payload)).toBe(`payload-${acked - 1n}`);
    });
  });
});
