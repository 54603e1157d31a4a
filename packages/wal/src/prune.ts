import { fsyncDir, nodeFs, type WalFs } from './fs.ts';
import { listSegments } from './segments.ts';

export interface PruneOptions {
  /** The stream's directory. */
  dir: string;
  /** Every record with a seq at or below this is applied (stored where it is going). */
  appliedThrough: bigint;
  /** Keep segments modified less than this long ago, even when applied. */
  olderThanMs: number;
  /** Current time in unix ms; defaults to Date.now(). */
  now?: number;
  fs?: WalFs;
}

/**
 * Deletes a stream's oldest segments while each is fully applied (the next segment starts at or
 * below `appliedThrough + 1`) and older than the retention. The newest segment, the one a writer
 * appends to, is never deleted, and deletion stops at the first segment that must stay so the
 * stream never has a hole. Returns the deleted paths.
 *
 * @example
 * await pruneWal({ dir, appliedThrough: storedSeq, olderThanMs: 24 * 3600_000 });
 */
export async function pruneWal(options: PruneOptions): Promise<string[]> {
  const fs = options.fs ?? nodeFs;
  const now = options.now ?? Date.now();
  const segments = await listSegments(fs, options.dir);
  const deleted: string[] = [];
  // A segment's records end right before the next segment's first seq; the last one has no next.
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    const next = segments[i + 1]!;
    if (next.firstSeq - 1n > options.appliedThrough) break;
    const { mtimeMs } = await fs.stat(segment.path);
    if (now - mtimeMs < options.olderThanMs) break;
    await fs.unlink(segment.path);
    deleted.push(segment.path);
  }
  if (deleted.length > 0) await fsyncDir(fs, options.dir);
  return deleted;
}
